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

namespace gw::coll {
namespace {

// The folded ring times exactly what the full ring does when a hop inside region g takes
// local[g] + bytes and a hop between regions takes `wan` + bytes (no contention: a ring's
// member sends one step per round): every hop between regions finishes at the same time as
// the same step of the full ring, and the op ends at the same time.
TEST(FoldedRing, TimesHopsBetweenRegionsAsTheFullRingDoes) {
  const std::vector<std::vector<std::uint32_t>> placements = {
      {0, 1},
      {0, 0, 1, 1},
      {0, 0, 0, 1},
      {1, 0, 2, 0, 1, 2, 2, 0, 0},
      std::vector<std::uint32_t>(6, 0),
      {0, 0, 0, 0, 0, 0, 0, 1},  // a region with more members than rounds
  };
  const std::vector<std::int64_t> local = {3, 5, 7};
  const std::int64_t wan = 1000;
  for (const auto& regions : placements) {
    for (const Op op : {Op::kAllReduce, Op::kAllGather, Op::kReduceScatter}) {
      for (const std::uint32_t channels : {1U, 2U}) {
        for (const std::uint64_t chunk : {0ULL, 40ULL}) {
          CollectiveSpec spec;
          spec.op = op;
          spec.bytes = 1000;
          spec.channels = channels;
          spec.chunk_bytes = chunk;
          const Placement placement{regions};
          const auto ring = step_graph(spec, placement);
          const auto cost = [&](const Step& s) {
            const std::uint32_t a = regions[s.src];
            return static_cast<std::int64_t>(s.bytes) + (a == regions[s.dst] ? local[a] : wan);
          };
          // The full ring: each step ends its predecessor's end + its own cost.
          std::vector<std::int64_t> end(ring->size(), 0);
          std::vector<std::uint32_t> order = ring->roots();
          std::vector<std::int64_t> start(ring->size(), 0);
          std::int64_t last = 0;
          for (std::size_t k = 0; k < order.size(); ++k) {
            const std::uint32_t i = order[k];
            end[i] = start[i] + cost(ring->at(i));
            last = std::max(last, end[i]);
            std::vector<std::uint32_t> deps;
            ring->dependents(i, deps);
            for (const std::uint32_t d : deps) {
              start[d] = end[i];
              order.push_back(d);
            }
          }
          ASSERT_EQ(order.size(), ring->size());
          // The folded ring.
          const FoldedRing folded(spec, placement);
          std::vector<std::int64_t> done(folded.size(), -1);
          std::int64_t folded_last = 0;
          for (const FoldedRing::Wait& run : folded.local_runs()) {
            folded_last =
                std::max(folded_last, run.hops * (local[run.region] + static_cast<std::int64_t>(run.bytes)));
          }
          for (std::uint32_t i = 0; i < folded.size(); ++i) {  // `after` is always earlier
            const FoldedRing::Wait w = folded.wait(i);
            const std::int64_t from = w.after == FoldedRing::kNone ? 0 : done[w.after];
            ASSERT_GE(from, 0) << i;
            const Step s = folded.at(i);
            done[i] = from + w.hops * (local[w.region] + static_cast<std::int64_t>(w.bytes)) + cost(s);
            const FoldedRing::Wait t = folded.tail(i);
            folded_last = std::max(folded_last,
                                   done[i] + t.hops * (local[t.region] + static_cast<std::int64_t>(t.bytes)));
          }
          // Chunked and uneven blocks differ by a byte per hop at most.
          const std::int64_t slack = static_cast<std::int64_t>(2 * ring->size());
          EXPECT_NEAR(static_cast<double>(folded_last), static_cast<double>(last), static_cast<double>(slack))
              << op_name(op) << " ch " << channels << " chunk " << chunk << " p " << regions.size();
          for (std::uint32_t i = 0; i < folded.size(); ++i) {
            const Step s = folded.at(i);
            ASSERT_NE(regions[s.src], regions[s.dst]);
          }
          std::vector<std::uint32_t> roots;
          for (std::uint32_t i = 0; i < folded.size(); ++i) {
            if (folded.wait(i).after == FoldedRing::kNone) {
              roots.push_back(i);
            }
            if (folded.next(i) != FoldedRing::kNone) {
              EXPECT_EQ(folded.wait(folded.next(i)).after, i);
            }
          }
          EXPECT_EQ(folded.roots(), roots);
        }
      }
    }
  }
}

}  // namespace
}  // namespace gw::coll
