// The lazy ring graph is build_schedule's ring step for step: the same steps under the same
// numbers, the same roots and the same dependencies, for every op the ring runs, with channels,
// chunked pieces and placements that reorder the ring by region.
#include "generators/collectives/step_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>

namespace gw::coll {
namespace {

struct Case {
  Op op;
  std::vector<std::uint32_t> regions;
  std::uint64_t bytes;
  std::uint32_t channels;
  std::uint64_t chunk;
};

std::string describe(const Case& c) {
  return std::string(op_name(c.op)) + " p=" + std::to_string(c.regions.size()) +
         " bytes=" + std::to_string(c.bytes) + " ch=" + std::to_string(c.channels) +
         " chunk=" + std::to_string(c.chunk);
}

void expect_same(const Case& c) {
  CollectiveSpec spec;
  spec.op = c.op;
  spec.algorithm = Algorithm::kRing;
  spec.bytes = c.bytes;
  spec.channels = c.channels;
  spec.chunk_bytes = c.chunk;
  const Placement placement{c.regions};
  const Schedule built = build_schedule(spec, placement);
  const auto graph = step_graph(spec, placement);
  const auto reference = schedule_graph(built);
  ASSERT_EQ(graph->ranks(), built.ranks) << describe(c);
  ASSERT_EQ(graph->size(), built.steps.size()) << describe(c);
  std::vector<std::uint32_t> roots;
  std::vector<std::vector<std::uint32_t>> dependents(built.steps.size());
  for (std::uint32_t i = 0; i < built.steps.size(); ++i) {
    const Step& want = built.steps[i];
    if (want.after.empty()) {
      roots.push_back(i);
    }
    for (const std::uint32_t a : want.after) {
      dependents[a].push_back(i);
    }
    const Step got = graph->at(i);
    ASSERT_EQ(std::tie(got.src, got.dst, got.bytes, got.offset, got.channel, got.combine),
              std::tie(want.src, want.dst, want.bytes, want.offset, want.channel, want.combine))
        << describe(c) << " step " << i;
    ASSERT_EQ(graph->waits(i), want.after.size()) << describe(c) << " step " << i;
  }
  EXPECT_EQ(graph->roots(), roots) << describe(c);
  EXPECT_EQ(reference->roots(), roots) << describe(c);
  for (std::uint32_t i = 0; i < built.steps.size(); ++i) {
    std::vector<std::uint32_t> got;
    graph->dependents(i, got);
    ASSERT_EQ(got, dependents[i]) << describe(c) << " step " << i;
  }
}

TEST(RingGraph, IsBuildSchedulesRingStepForStep) {
  const std::vector<std::vector<std::uint32_t>> placements = {
      {0, 0},
      {0, 1, 0},
      {0, 0, 1, 1},
      {1, 0, 2, 0, 1, 2, 2},  // the ring goes region by region: members out of rank order
      std::vector<std::uint32_t>(16, 0),
  };
  for (const auto& regions : placements) {
    for (const Op op : {Op::kAllReduce, Op::kAllGather, Op::kReduceScatter, Op::kBarrier}) {
      for (const std::uint32_t channels : {1U, 3U}) {
        for (const std::uint64_t chunk : {0ULL, 7ULL, 100ULL}) {
          for (const std::uint64_t bytes : {0ULL, 1ULL, 1000ULL, 4099ULL}) {
            expect_same(Case{op, regions, bytes, channels, chunk});
          }
        }
      }
    }
  }
}

// A walk over the graph, completing steps in a random order as they become ready, reaches every
// step exactly once, with the ring's and the built schedule's graphs alike (the walk keeps what
// it has heard only for steps with several waits).
TEST(GraphWalk, ReachesEveryStepOnceInAnyCompletionOrder) {
  CollectiveSpec spec;
  spec.op = Op::kAllReduce;
  spec.bytes = 1 << 20;
  spec.channels = 2;
  for (const Algorithm a : {Algorithm::kRing, Algorithm::kDoubleBinaryTree, Algorithm::kHierarchical}) {
    spec.algorithm = a;
    const auto graph = step_graph(spec, Placement{{0, 0, 0, 0, 1, 1, 1, 1}});
    GraphWalk walk(*graph);
    std::vector<std::uint32_t> pending = graph->roots();
    std::vector<int> seen(graph->size(), 0);
    std::uint64_t x = 12345;
    while (!pending.empty()) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      const std::size_t k = (x >> 33) % pending.size();
      const std::uint32_t step = pending[k];
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(k));
      ++seen[step];
      walk.complete(step, pending);
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<std::ptrdiff_t>(graph->size()))
        << algorithm_name(a);
  }
}

TEST(RingGraph, RefusesWhatBuildScheduleRefuses) {
  CollectiveSpec spec;
  spec.op = Op::kBroadcast;
  spec.bytes = 100;
  EXPECT_THROW((void)step_graph(spec, Placement{{0, 0}}), CollectiveError);
  spec.op = Op::kAllReduce;
  spec.channels = 0;
  EXPECT_THROW((void)step_graph(spec, Placement{{0, 0}}), CollectiveError);
  spec.channels = 1;
  spec.bytes = 1ULL << 40;
  spec.chunk_bytes = 1;
  EXPECT_THROW((void)step_graph(spec, Placement{{0, 0}}), CollectiveError);
}

}  // namespace
}  // namespace gw::coll
