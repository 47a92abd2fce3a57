// The cost estimate (harness/cli/run_cost.h): its step count against the schedules the simulator
// really builds, its growth with what drives memory, and the refusal with the estimate and the
// limit.
#include "harness/cli/run_cost.h"

#include <gtest/gtest.h>

#include "core/errors.h"
#include "generators/collectives/collective.h"

namespace gw {
namespace {

coll::Placement one_region(std::uint32_t ranks) {
  return coll::Placement{std::vector<std::uint32_t>(ranks, 0)};
}

// The estimate must not under-count what build_schedule() makes by more than 2x, nor over-
// count by more than 2x: memory is priced per step.
TEST(RunCost, StepCountsMatchTheBuiltSchedules) {
  struct Case {
    coll::Op op;
    coll::Algorithm algorithm;
    std::uint64_t chunk;
  };
  const Case cases[] = {
      {coll::Op::kAllReduce, coll::Algorithm::kRing, 0},
      {coll::Op::kAllReduce, coll::Algorithm::kRing, 4096},
      {coll::Op::kAllReduce, coll::Algorithm::kDoubleBinaryTree, 0},
      {coll::Op::kAllReduce, coll::Algorithm::kHalvingDoubling, 0},
      {coll::Op::kAllGather, coll::Algorithm::kRing, 0},
      {coll::Op::kReduceScatter, coll::Algorithm::kRing, 0},
      {coll::Op::kBroadcast, coll::Algorithm::kBinomialTree, 0},
      {coll::Op::kAllToAll, coll::Algorithm::kPairwise, 0},
      {coll::Op::kAllToAll, coll::Algorithm::kDirect, 0},
  };
  for (const std::uint32_t ranks : {8U, 16U}) {
    for (const Case& c : cases) {
      coll::CollectiveSpec spec;
      spec.op = c.op;
      spec.algorithm = c.algorithm;
      spec.bytes = 1 << 20;
      spec.channels = 2;
      spec.chunk_bytes = c.chunk;
      double built = 0;
      try {
        built = static_cast<double>(coll::build_schedule(spec, one_region(ranks)).steps.size());
      } catch (const coll::CollectiveError& e) {
        ADD_FAILURE() << e.reason;
      }
      const double estimated = estimate_steps(spec, ranks);
      EXPECT_GE(estimated, built / 2)
          << coll::op_name(c.op) << " " << coll::algorithm_name(c.algorithm) << " " << ranks;
      EXPECT_LE(estimated, built * 2)
          << coll::op_name(c.op) << " " << coll::algorithm_name(c.algorithm) << " " << ranks;
    }
  }
}

Scenario flows_scenario(std::uint32_t count) {
  Scenario s;
  s.file = "s.json";
  s.topology.regions = {{"a", 1, BitRate{10'000'000'000}}, {"b", 1, BitRate{10'000'000'000}}};
  s.workload.kind = "flows";
  s.workload.duration = Duration{1'000'000'000};
  FlowSpec f;
  f.from = "a";
  f.to = "b";
  f.count = count;
  s.workload.flows = {f};
  return s;
}

TEST(RunCost, MemoryGrowsWithConnectionsAndIsRefusedOverTheLimit) {
  const RunCost small = estimate_cost(flows_scenario(1000));
  const RunCost big = estimate_cost(flows_scenario(100'000));
  EXPECT_EQ(small.connections, 1000);
  // 70 KB per flow measured (run_cost.cc): 100,000 flows are 6-8 GB, 1,000 below 100 MB.
  EXPECT_GT(big.memory_bytes, 6e9);
  EXPECT_LT(big.memory_bytes, 8e9);
  EXPECT_LT(small.memory_bytes, 100e6);
  EXPECT_EQ(big.driver, "100,000 connections");

  CostLimits limits;
  limits.memory_bytes = 1e9;
  EXPECT_NO_THROW(check_cost(flows_scenario(1000), small, limits));
  try {
    check_cost(flows_scenario(100'000), big, limits);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "s.json");
    EXPECT_NE(e.reason().find("estimated 6."), std::string::npos) << e.reason();
    EXPECT_NE(e.reason().find("above the memory limit of 954 MiB"), std::string::npos) << e.reason();
    EXPECT_NE(e.reason().find("--force"), std::string::npos) << e.reason();
  }
}

TEST(RunCost, TimeFollowsTheBytesOfACollective) {
  Scenario s = flows_scenario(1);
  s.workload.kind = "collective";
  s.workload.flows.clear();
  s.workload.collective.bytes = 1 << 20;
  const double t1 = estimate_cost(s).cpu_seconds;
  s.topology.regions[0].hosts = 4;
  s.topology.regions[1].hosts = 4;
  s.workload.collective.bytes = std::uint64_t{1} << 40;  // 1 TiB per rank, 8 ranks
  const RunCost tb = estimate_cost(s);
  EXPECT_GT(tb.cpu_seconds, 1000 * t1);
  CostLimits limits;
  limits.memory_bytes = 1e12;
  EXPECT_THROW(check_cost(s, tb, limits), InputError);  // hours of CPU against the 1 h limit
}

// With the analytic intra-region fabric a ring sends one hop per region per round instead of
// one per rank: 2 regions of 512 ranks send 2/1024 of the packets, and hold no schedule.
TEST(RunCost, AnalyticFabricPricesOnlyTheRingsHopsAcrossRegions) {
  Scenario s = flows_scenario(1);
  s.workload.kind = "collective";
  s.workload.flows.clear();
  s.workload.collective.bytes = std::uint64_t{1} << 30;
  s.topology.regions[0].hosts = 512;
  s.topology.regions[1].hosts = 512;
  const RunCost packet = estimate_cost(s);
  s.topology.intra_region_analytic = true;
  const RunCost analytic = estimate_cost(s);
  EXPECT_NEAR(analytic.packets / packet.packets, 2.0 / 1024, 0.1 * 2.0 / 1024);
  EXPECT_LT(analytic.cpu_seconds * 100, packet.cpu_seconds);
  EXPECT_LT(analytic.memory_bytes, packet.memory_bytes);
}

}  // namespace
}  // namespace gw
