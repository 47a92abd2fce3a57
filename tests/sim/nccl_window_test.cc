// NCCL's buffer as a window (docs/collectives.md "NCCL's buffers"): over a long round trip
// one channel moves at most one NCCL_BUFFSIZE per RTT, whatever the link. Two regions of one
// host each, a lossless WAN of 25 ms each way (RTT 50 ms), a ring all-reduce of 256 MiB on one
// channel, two iterations: the second (connections and congestion windows warm, as in a
// training job's steady state) is measured. With two ranks the ring's bus bandwidth is
// size / time, and the window bound is buffsize / RTT: 4 MiB / 50 ms = 83.9 MB/s.
// Tolerance 5 % (the bound): the bound leaves out the ring's two one-way latencies
// (50 ms of a ~3.2 s op, 1.5 %) and serialization of the last slot; the transport is lossless
// and cwnd-unlimited once warm, so nothing else separates the two.
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

constexpr double kRtt = 0.050;
constexpr double kMiB = 1024.0 * 1024.0;

json document(const std::string& rate, const json& nccl) {
  json workload = {{"kind", "collective"},
                   {"iterations", 2},
                   {"collective", {{"op", "all_reduce"}, {"algorithm", "ring"}, {"size", "256MiB"}}}};
  workload["nccl"] = nccl;
  return {{"gradwall", "scenario/v1"},
          {"name", "nccl-window"},
          {"seed", 1},
          {"topology",
           {{"regions",
             {{{"name", "west"}, {"hosts", 1}, {"nic_rate", rate}},
              {{"name", "east"}, {"hosts", 1}, {"nic_rate", rate}}}},
            {"wan",
             {{{"between", {"west", "east"}},
               {"netem", "delay 25ms rate " + rate},
               {"limit_bytes", 1ULL << 28}}}}}},
          {"workload", workload},
          {"transport", {{"cc", "cubic"}, {"mtu", 4096}}},
          {"results", {{"interval", "1s"}}}};
}

struct Measured {
  double busbw = 0;  // bytes per second, second iteration
  CollectiveOpResult op;
};

Measured run(const std::string& rate, const json& nccl) {
  const Scenario s = parse_scenario(document(rate, nccl), "nccl-window.json");
  SimOptions options;
  options.keep_series = false;
  const SimResult r = run_sim(s, options);
  EXPECT_TRUE(r.completed);
  EXPECT_EQ(r.transport.retransmits, 0U);
  if (r.collectives.size() != 2 || r.collectives[1].end_ns < 0) {
    ADD_FAILURE() << "expected two completed all-reduces";
    return {};
  }
  const CollectiveOpResult& c = r.collectives[1];
  const double seconds = static_cast<double>(c.end_ns - c.start_ns) / 1e9;
  // Two ranks: busbw = algbw x 2(p-1)/p = size / time.
  Measured m{static_cast<double>(c.bytes) / seconds, c};
  std::printf("  %s nccl %s: %.3f s, busbw %.1f MB/s, predicted %.3f s (network %.3f, window %.3f)\n",
              rate.c_str(), nccl.dump().c_str(), seconds, m.busbw / 1e6,
              static_cast<double>(c.predicted_ns) / 1e9, static_cast<double>(c.predicted_network_ns) / 1e9,
              static_cast<double>(c.predicted_window_ns) / 1e9);
  return m;
}

TEST(NcclWindow, OneChannelMovesOneBufferPerRoundTrip) {
  const Measured m = run("10Gbit", json{{"buffsize", "4MiB"}, {"channels", 1}});
  const double bound = 4 * kMiB / kRtt;
  EXPECT_NEAR(m.busbw / bound, 1.0, 0.05) << "busbw " << m.busbw << " B/s, window bound " << bound;
  // The α-β prediction says the window binds, and matches the run.
  EXPECT_GT(m.op.predicted_window_ns, m.op.predicted_network_ns);
  EXPECT_EQ(m.op.predicted_ns, m.op.predicted_window_ns);
  EXPECT_NEAR(static_cast<double>(m.op.end_ns - m.op.start_ns) / static_cast<double>(m.op.predicted_ns), 1.0,
              0.05);
}

TEST(NcclWindow, DoublingTheBufferDoublesBusbwUntilTheLinkBinds) {
  const Measured four = run("10Gbit", json{{"buffsize", "4MiB"}});
  const Measured eight = run("10Gbit", json{{"buffsize", "8MiB"}});
  EXPECT_NEAR(eight.busbw / four.busbw, 2.0, 0.1);
  // On a 1 Gbit/s link 8 MiB per 50 ms (1.34 Gbit/s) is more than the link carries: the
  // network binds, at the link's goodput (4096 B of data per 4096 + 62 B frame, 98.5 %).
  const Measured link = run("1Gbit", json{{"buffsize", "8MiB"}});
  const double goodput = 1e9 / 8 * 4096.0 / (4096 + 62);
  EXPECT_GT(link.busbw / goodput, 0.9);
  EXPECT_LE(link.busbw / goodput, 1.0);
  EXPECT_GT(link.op.predicted_network_ns, link.op.predicted_window_ns);
  // Without NCCL's buffers the 10 Gbit/s run is limited by the link alone.
  const Measured ideal = run("10Gbit", false);
  EXPECT_GT(ideal.busbw, 8 * four.busbw);
  EXPECT_EQ(ideal.op.predicted_window_ns, -1);
}

// LL carries 8 bytes of data per 16-byte line and has a 512 KiB buffer: its window is 256 KiB
// of data per round trip, 1/16 of Simple's 4 MiB.
TEST(NcclWindow, LowLatencyProtocolHasItsSmallerBuffer) {
  const Measured ll = run("10Gbit", json{{"protocol", "ll"}});
  const double bound = 256 * 1024 / kRtt;
  EXPECT_NEAR(ll.busbw / bound, 1.0, 0.05);
}

// A step smaller than a slot still takes a whole slot: a ring of 128 ranks (64 + 64, a 5 ms
// WAN) all-reducing 512 KiB moves 4 KiB per step, so the rank before the WAN sends its 254
// steps at 8 slots per 10 ms round trip, ~317 ms, where the byte window alone would allow the
// α-β network bound of ~21 ms. The prediction counts whole slots (coll::slot_rounding) and the
// measured second all-reduce is within 5 % of it (the α terms and the intra-region hops are
// < 1 % of it).
TEST(NcclWindow, SmallStepsTakeAWholeSlotEach) {
  json doc = document("25Gbit", json::object());
  doc["topology"]["regions"][0]["hosts"] = 64;
  doc["topology"]["regions"][1]["hosts"] = 64;
  doc["topology"]["wan"][0]["netem"] = "delay 5ms rate 100Gbit";
  doc["workload"]["collective"]["size"] = "512KiB";
  doc["transport"]["cc"] = "dctcp";
  const Scenario s = parse_scenario(doc, "nccl-small-steps.json");
  SimOptions options;
  options.keep_series = false;
  const SimResult r = run_sim(s, options);
  ASSERT_TRUE(r.completed);
  ASSERT_EQ(r.collectives.size(), 2U);
  const CollectiveOpResult& c = r.collectives[1];
  const auto cct = static_cast<double>(c.end_ns - c.start_ns);
  std::printf("  128 ranks, 4 KiB steps: %.3f ms, predicted %.3f ms (network %.3f, window %.3f)\n", cct / 1e6,
              static_cast<double>(c.predicted_ns) / 1e6, static_cast<double>(c.predicted_network_ns) / 1e6,
              static_cast<double>(c.predicted_window_ns) / 1e6);
  EXPECT_GT(c.predicted_window_ns, 10 * c.predicted_network_ns);
  EXPECT_NEAR(cct / static_cast<double>(c.predicted_ns), 1.0, 0.05);
}

}  // namespace
}  // namespace gw
