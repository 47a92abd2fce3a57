// End-to-end properties of the simulator: scenario in, result out. The congestion-control
// yardsticks (docs/references.md §3 "Analytic yardsticks") live in tests/sim/yardstick_test.cc.
#include "harness/sim/sim_runner.h"

#include <gtest/gtest.h>

#include "unit/harness/sim_test_util.h"

namespace gw {
namespace {

using testutil::two_regions;

TEST(Sim, SameSeedGivesByteIdenticalResults) {
  const Scenario s = two_regions("delay 5ms rate 200Mbit loss 1%", "cubic", "2s", 2);
  const std::string first = to_json(run_sim(s)).dump();
  const std::string second = to_json(run_sim(s)).dump();
  EXPECT_EQ(first, second);
  Scenario other = s;
  other.seed = 2;
  EXPECT_NE(to_json(run_sim(other)).dump(), first);
}

// Every packet that left a NIC was received, dropped with a cause, or is still inside the
// network at the end, whatever the impairments do.
TEST(Sim, EveryPacketIsAccountedFor) {
  const Scenario s =
      two_regions("delay 5ms 1ms rate 100Mbit loss 2% duplicate 1% corrupt 0.5%", "reno", "2s", 3);
  const SimResult r = run_sim(s);
  EXPECT_TRUE(r.accounting.balanced()) << to_json(r)["accounting"].dump();
  EXPECT_GT(r.accounting.corrupted_discarded, 0U);
  EXPECT_GT(r.accounting.duplicates_made, 0U);
  EXPECT_GT(r.accounting.dropped.at("wan a->b/loss"), 0U);
  for (const FlowResult& f : r.flows) {
    EXPECT_GT(f.bytes_delivered, 0U);
    EXPECT_GT(f.retransmits, 0U);
  }
}

// Without impairments one flow fills the bottleneck: goodput is the bottleneck's payload
// share (4096 of 4166 wire bytes per packet) minus the slow-start ramp; 90 % over 2 s is
// conservative (slow start to 500 Mbit/s x 10 ms takes about 0.1 s).
TEST(Sim, OneFlowFillsAnUnimpairedBottleneck) {
  const Scenario s = two_regions("delay 5ms rate 500Mbit", "cubic", "2s", 1, 8 << 20);
  const SimResult r = run_sim(s);
  ASSERT_EQ(r.flows.size(), 1U);
  const double payload_rate = 5e8 * 4096.0 / (4096.0 + 70.0);
  EXPECT_GT(static_cast<double>(r.flows[0].goodput_bps), 0.9 * payload_rate);
  EXPECT_LE(static_cast<double>(r.flows[0].goodput_bps), payload_rate);
  // The RTT is at least the 10 ms propagation delay plus four region latencies.
  EXPECT_GE(r.flows[0].rtt_ns.min, 10'000'000 + 4 * 2'000);
}

TEST(Sim, TimeSeriesAreSampledAtTheInterval) {
  Scenario s = two_regions("delay 5ms rate 100Mbit", "reno", "1s", 1);
  s.interval = Duration{100'000'000};
  const SimResult r = run_sim(s);
  ASSERT_EQ(r.series.t_ns.size(), 10U);
  EXPECT_EQ(r.series.t_ns[0], 100'000'000);  // samples close each interval
  EXPECT_EQ(r.series.t_ns[9], 1'000'000'000);
  ASSERT_EQ(r.series.flow_rate_bps.size(), 1U);
  EXPECT_EQ(r.series.flow_rate_bps[0].size(), 10U);
  EXPECT_EQ(r.series.hop_queue_bytes.size(), r.hops.size());
}

TEST(Sim, FiniteTransfersReportTheirCompletionTime) {
  nlohmann::json doc = testutil::two_regions_json("delay 10ms rate 1Gbit", "cubic", "5s", 1);
  doc["workload"]["flows"][0]["size_bytes"] = 1 << 20;
  const SimResult r = run_sim(parse_scenario(doc, "finite.json"));
  ASSERT_EQ(r.flows.size(), 1U);
  EXPECT_EQ(r.flows[0].bytes_delivered, 1U << 20);
  // 1 MiB in slow start from 10 packets over a 20 ms RTT: a handful of round trips, each at
  // least 20 ms; well under a second.
  EXPECT_GT(r.flows[0].completion.count(), 3 * 20'000'000);
  EXPECT_LT(r.flows[0].completion.count(), 500'000'000);
}

}  // namespace
}  // namespace gw
