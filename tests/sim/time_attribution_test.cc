// Where a collective's time went (docs/reports.md "Where the time went"), on scenarios whose
// cause is known by construction: two regions of one host each, a 2-rank ring all-reduce over
// one WAN link, two iterations, the second (warm) measured (unless said otherwise). Each scenario puts its
// largest part beyond the model where it belongs, the parts add up to the CCT to the nanosecond, and the
// named parts explain all but 5 % of it (`other` <= 5 %, the bound: the α-β model leaves out
// per-packet header time, the ring's intra-host hops and the last slot's serialization, each < 2 % here).
#include <algorithm>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/run/scenario.h"
#include "harness/sim/sim_runner.h"

namespace gw {
namespace {

using nlohmann::json;

struct Case {
  std::string netem;  // both directions
  std::string cc;
  json cc_params = json::object();
  json nccl = false;
  std::string size = "32MiB";
  std::uint64_t limit_bytes = 1ULL << 26;
  json background = json::array();
  int iterations = 2;  // the last one is measured
};

TimeAttribution run(const Case& c, const char* name) {
  json transport = {{"cc", c.cc}, {"mtu", 4096}};
  if (!c.cc_params.empty()) {
    transport["cc_params"] = c.cc_params;
  }
  const json doc = {
      {"gradwall", "scenario/v1"},
      {"name", name},
      {"seed", 1},
      {"topology",
       {{"regions",
         {{{"name", "west"}, {"hosts", 1}, {"nic_rate", "10Gbit"}},
          {{"name", "east"}, {"hosts", 1}, {"nic_rate", "10Gbit"}}}},
        {"wan", {{{"between", {"west", "east"}}, {"netem", c.netem}, {"limit_bytes", c.limit_bytes}}}}}},
      {"workload",
       {{"kind", "collective"},
        {"iterations", c.iterations},
        {"nccl", c.nccl},
        {"collective", {{"op", "all_reduce"}, {"algorithm", "ring"}, {"size", c.size}}}}},
      {"background", c.background},
      {"transport", transport},
      {"results", {{"interval", "1s"}}}};
  const Scenario s = parse_scenario(doc, std::string(name) + ".json");
  SimOptions options;
  options.keep_series = false;
  const SimResult r = run_sim(s, options);
  EXPECT_TRUE(r.completed);
  if (r.collectives.size() != static_cast<std::size_t>(c.iterations) || !r.collectives.back().attribution) {
    ADD_FAILURE() << name << ": expected every all-reduce completed, with attributions";
    return {};
  }
  for (const CollectiveOpResult& op : r.collectives) {
    EXPECT_EQ(op.attribution->total(), Duration{op.end_ns - op.start_ns}) << name;
    EXPECT_TRUE(op.attribution->transport_measured);
  }
  const TimeAttribution& a = *r.collectives.back().attribution;
  std::printf("  %s: %.2f ms =", name, static_cast<double>(a.total().count()) / 1e6);
  for (std::size_t i = 0; i < kTimeParts; ++i) {
    std::printf(" %s %.1f%%", std::string(time_part_name(static_cast<TimePart>(i))).c_str(),
                100.0 * static_cast<double>(a.part[i].count()) / static_cast<double>(a.total().count()));
  }
  std::printf(
      " (retransmits %llu, timeouts %llu, cuts %llu)\n", static_cast<unsigned long long>(a.wan.retransmits),
      static_cast<unsigned long long>(a.wan.timeouts), static_cast<unsigned long long>(a.wan.chrono.cc_cuts));
  return a;
}

double share(const TimeAttribution& a, TimePart p) {
  return static_cast<double>(a[p].count()) / static_cast<double>(a.total().count());
}

// The largest of the parts beyond what a perfect transport spends.
TimePart largest_excess(const TimeAttribution& a) {
  TimePart best = TimePart::kNcclWindow;
  for (std::size_t i = 2; i < kTimeParts; ++i) {
    if (a.part[i] > a[best]) {
      best = static_cast<TimePart>(i);
    }
  }
  return best;
}

void expect_explained(const TimeAttribution& a) {
  EXPECT_LE(share(a, TimePart::kOther), 0.05);
}

// A clean 1 Gbit/s link and an open window: the bytes at the bottleneck are the op.
TEST(TimeAttribution, CleanLinkIsSerialization) {
  const TimeAttribution a = run({.netem = "delay 5ms rate 1Gbit", .cc = "bbr"}, "clean");
  expect_explained(a);
  EXPECT_GE(share(a, TimePart::kSerialization), 0.7);
}

// One channel of 4 MiB over a 50 ms RTT at 10 Gbit/s: NCCL's window is the op.
TEST(TimeAttribution, NcclWindowWhenItBinds) {
  const TimeAttribution a =
      run({.netem = "delay 25ms rate 10Gbit", .cc = "cubic", .nccl = {{"channels", 1}}}, "nccl-window");
  expect_explained(a);
  EXPECT_EQ(largest_excess(a), TimePart::kNcclWindow);
  EXPECT_GE(share(a, TimePart::kNcclWindow), 0.7);
}

// A fixed window of 256 KiB on a 10 ms RTT, 10 Gbit/s path (BDP 12.5 MB): the window is the op.
TEST(TimeAttribution, SmallCongestionWindow) {
  const TimeAttribution a = run(
      {.netem = "delay 5ms rate 10Gbit", .cc = "fixed", .cc_params = {{"cwnd_bytes", 262144}}}, "small-cwnd");
  expect_explained(a);
  EXPECT_EQ(largest_excess(a), TimePart::kCwndWindow);
  EXPECT_GE(share(a, TimePart::kCwndWindow), 0.7);
}

// 1 % random loss on a 1 Gbit/s, 10 ms RTT path under CUBIC: losses and the regrowth after them.
TEST(TimeAttribution, RandomLossIsLossRecovery) {
  const TimeAttribution a = run({.netem = "delay 5ms rate 1Gbit loss 1%", .cc = "cubic"}, "loss");
  expect_explained(a);
  EXPECT_EQ(largest_excess(a), TimePart::kLossRecovery);
  EXPECT_GT(a.wan.retransmits, 0U);
}

// The same 1 % marked CE instead of dropped (netem's ecn) under DCTCP: the controller's cuts.
TEST(TimeAttribution, EcnMarksAreCcCuts) {
  const TimeAttribution a = run({.netem = "delay 5ms rate 1Gbit loss 1% ecn", .cc = "dctcp"}, "ecn");
  expect_explained(a);
  EXPECT_EQ(largest_excess(a), TimePart::kCcCuts);
  EXPECT_EQ(a.wan.retransmits, 0U);
  EXPECT_GT(a.wan.chrono.cc_cuts, 0U);
}

// A tenant's bulk CUBIC flow keeps a 16 MB buffer of a 1 Gbit/s link full (up to 128 ms of
// queue over a 10 ms RTT) once out of slow start; a latency-bound all-reduce (256 KiB: 2 ms at
// the link rate) waits behind it at each step of the ring. The 40th all-reduce is measured.
TEST(TimeAttribution, StandingQueueIsQueueing) {
  const TimeAttribution a = run(
      {.netem = "delay 5ms rate 1Gbit",
       .cc = "cubic",
       .size = "256KiB",
       .limit_bytes = 16'000'000,
       .background = json::array({{{"class", "tenant"}, {"from", "west"}, {"to", "east"}, {"cc", "cubic"}},
                                  {{"class", "tenant"}, {"from", "east"}, {"to", "west"}, {"cc", "cubic"}}}),
       .iterations = 40},
      "queue");
  expect_explained(a);
  EXPECT_EQ(largest_excess(a), TimePart::kQueueing);
  EXPECT_GE(share(a, TimePart::kQueueing), 0.5);
}

}  // namespace
}  // namespace gw
