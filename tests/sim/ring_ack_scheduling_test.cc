// A host's NIC serves its queue pairs in the order they became due (harness/sim/sim_runner.cc,
// SimHost). A pair holding an ACK must keep its place when more data arrives for it: until
// 2026-12-03 every arriving packet re-queued it behind the host's busy sending pair, so in a
// ring all-reduce with single-packet steps (4 KiB per step, 4096-byte MTU) the rank after the
// WAN, forwarding each step at line rate as it arrives, held its ACKs back ~100 µs. Over a
// 10 ms round trip the RTO is only srtt + 4·rttvar (~40 µs above srtt after hundreds of equal
// samples), so those ACKs fired spurious RTOs and DCTCP restarted from one packet: 1,024 ranks
// took 12x the α-β prediction (commit 04bce4f). 128 ranks with 512 KiB reproduce it
// (60 ms for 21.2 ms predicted before the fix) in well under a second.
#include <cstdint>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/run/scenario.h"
#include "harness/sim/sim_runner.h"

namespace gw {
namespace {

using nlohmann::json;

// The 1,024-rank scaling benchmark (ci/bench/scenarios/ring-allreduce-scaling.json) at 64 + 64
// ranks, with the bytes per rank cut so that each ring step is still one 4 KiB packet.
// Without NCCL's buffers (`"nccl": false`): with them the WAN edge is bound by 8 slots per
// round trip (tests/sim/nccl_window_test.cc), which would hide the transport's timing.
json ring_over_wan(std::uint32_t hosts_per_region, std::uint64_t bytes) {
  return {{"gradwall", "scenario/v1"},
          {"name", "ring-ack-scheduling"},
          {"seed", 1},
          {"topology",
           {{"regions",
             {{{"name", "west"}, {"hosts", hosts_per_region}, {"nic_rate", "25Gbit"}},
              {{"name", "east"}, {"hosts", hosts_per_region}, {"nic_rate", "25Gbit"}}}},
            {"wan",
             {{{"between", {"west", "east"}},
               {"netem", "delay 5ms rate 100Gbit"},
               {"limit_bytes", 64ULL << 20}}}}}},
          {"workload",
           {{"kind", "collective"},
            {"iterations", 2},
            {"collective", {{"op", "all_reduce"}, {"algorithm", "ring"}, {"size_bytes", bytes}}},
            {"nccl", false}}},
          {"transport", {{"cc", "dctcp"}, {"mtu", 4096}}},
          {"results", {{"interval", "100ms"}}}};
}

// No packet is lost, so any RTO is spurious: none may fire. The second iteration (connections
// open, DCTCP out of slow start; the first pays slow start over the 10 ms round trip) is within
// 2 % of the α-β prediction: measured 0.03 % above it (1,024 ranks: 0.15 %), the neglected
// store-and-forward and round-robin terms are a few µs per step, while one spurious RTO costs at
// least one 10 ms RTT (47 % of the 21.2 ms prediction).
TEST(RingAckScheduling, SinglePacketStepsOverWanNoSpuriousRto) {
  const Scenario s = parse_scenario(ring_over_wan(64, 512 * 1024), "ring-ack-scheduling.json");
  SimOptions options;
  options.keep_series = false;
  const SimResult r = run_sim(s, options);
  ASSERT_TRUE(r.completed);
  ASSERT_EQ(r.collectives.size(), 2U);
  EXPECT_TRUE(r.accounting.dropped.empty()) << "the scenario is meant to be lossless";
  EXPECT_EQ(r.transport.timeouts, 0U) << r.transport.retransmits << " retransmits";
  const CollectiveOpResult& c = r.collectives[1];
  ASSERT_GE(c.end_ns, 0);
  const auto cct = static_cast<double>(c.end_ns - c.start_ns);
  const auto predicted = static_cast<double>(c.predicted_ns);
  std::printf("  128 ranks, 4 KiB steps: second all-reduce %.3f ms, predicted %.3f ms, %llu timeouts\n",
              cct / 1e6, predicted / 1e6, static_cast<unsigned long long>(r.transport.timeouts));
  ASSERT_GT(predicted, 0);
  EXPECT_NEAR(cct / predicted, 1.0, 0.02);
}

}  // namespace
}  // namespace gw
