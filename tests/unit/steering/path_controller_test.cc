#include "generators/steering/path_controller.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

namespace gw::steering {
namespace {

std::uint32_t count(const std::vector<std::uint32_t>& v, std::uint32_t p) {
  return static_cast<std::uint32_t>(std::count(v.begin(), v.end(), p));
}

PathSample path(double gbps, std::int64_t base_ms, std::int64_t queue_ms = 0) {
  PathSample s;
  s.capacity = BitRate{static_cast<std::uint64_t>(gbps * 1e9)};
  s.base_delay = Duration{base_ms * 1'000'000};
  s.queue_delay = Duration{queue_ms * 1'000'000};
  return s;
}

std::vector<QpSample> qps_on(const std::vector<std::uint32_t>& paths) {
  std::vector<QpSample> out;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    QpSample q;
    q.path = paths[i];
    q.entropy = 0x1000 + i;
    out.push_back(q);
  }
  return out;
}

// Largest remainder: 12 pairs at 2/3 : 1/3 is exactly 8 : 4.
TEST(AssignByWeights, CountsFollowTheWeights) {
  const std::vector<std::uint32_t> all_on_0(12, 0);
  const std::vector<double> w{2.0 / 3, 1.0 / 3};
  const auto out = assign_by_weights(w, all_on_0);
  EXPECT_EQ(count(out, 0), 8U);
  EXPECT_EQ(count(out, 1), 4U);
}

// A pair whose path keeps its share stays: from 8 : 4 to 3 : 9 moves exactly 5 pairs, all
// from path 0.
TEST(AssignByWeights, MovesAsFewAsPossible) {
  std::vector<std::uint32_t> now(12, 0);
  for (int i = 8; i < 12; ++i) {
    now[i] = 1;
  }
  const std::vector<double> w{2.0 / 7, 5.0 / 7};
  const auto out = assign_by_weights(w, now);
  EXPECT_EQ(count(out, 0), 3U);
  int moved = 0;
  for (std::size_t i = 0; i < now.size(); ++i) {
    moved += out[i] != now[i];
    if (now[i] == 1) {
      EXPECT_EQ(out[i], 1U) << "pair " << i << " was on the path that grows";
    }
  }
  EXPECT_EQ(moved, 5);
  EXPECT_EQ(assign_by_weights(w, out), out) << "a second call with the same weights moves nothing";
}

// te: shares by capacity (headroom taken off all alike), a down path gets none.
TEST(TeController, SplitsByCapacityAndLeavesADownPath) {
  Settings s;
  s.policy = "te";
  auto c = make_path_controller(s, 2);
  std::vector<PathSample> paths{path(10, 30), path(5, 26)};
  const auto out = c->steer(kEpoch, paths, qps_on(std::vector<std::uint32_t>(12, 0)));
  EXPECT_NEAR(c->weights()[0], 2.0 / 3, 1e-9);
  EXPECT_EQ(count(out, 0), 8U);
  paths[0].up = false;
  const auto failed = c->steer(kEpoch, paths, qps_on(out));
  EXPECT_EQ(count(failed, 1), 12U);
  EXPECT_DOUBLE_EQ(c->weights()[0], 0);
}

// A new pair goes where its path is furthest below its share, before any interval ended.
TEST(TeController, PlacesNewPairsByCapacityFromTheStart) {
  Settings s;
  s.policy = "te";
  auto c = make_path_controller(s, 2);
  const std::vector<PathSample> paths{path(10, 30), path(5, 26)};
  std::vector<std::uint32_t> placed;
  for (int i = 0; i < 12; ++i) {
    placed.push_back(c->place(QpSample{}, paths, placed));
  }
  EXPECT_EQ(count(placed, 0), 8U);
  EXPECT_EQ(count(placed, 1), 4U);
}

// Static shares are equal whatever the paths do, failures included.
TEST(StaticController, KeepsEqualShares) {
  Settings s;
  auto c = make_path_controller(s, 2);
  std::vector<PathSample> paths{path(10, 30), path(1, 26)};
  paths[0].up = false;
  const auto out = c->steer(kEpoch, paths, qps_on(std::vector<std::uint32_t>(6, 0)));
  EXPECT_EQ(count(out, 0), 3U);
}

// ECMP: a hash of each pair's entropy, so deterministic, with collisions: over 1,000 sets of
// 4 pairs on 2 paths, the share of sets where all 4 land on one path is near 2 x (1/2)^4 =
// 1/8 (binomial standard error over 1,000 sets: 0.010; the tolerance is 4 of them).
TEST(EcmpController, HashesDeterministicallyWithCollisions) {
  Settings s;
  s.policy = "ecmp";
  const std::vector<PathSample> paths{path(10, 30), path(10, 30)};
  int lopsided = 0;
  for (std::uint64_t set = 0; set < 1000; ++set) {
    auto c = make_path_controller(s, 2);
    std::vector<QpSample> qps = qps_on(std::vector<std::uint32_t>(4, 0));
    for (std::size_t i = 0; i < qps.size(); ++i) {
      qps[i].entropy = set * 16 + i;
    }
    const auto a = c->steer(kEpoch, paths, qps);
    EXPECT_EQ(make_path_controller(s, 2)->steer(kEpoch, paths, qps), a);
    lopsided += count(a, 0) == 4 || count(a, 1) == 4;
  }
  EXPECT_NEAR(lopsided / 1000.0, 0.125, 0.04);
}

// ECMP rehashes over the paths that are up: nothing stays on a failed one.
TEST(EcmpController, AvoidsADownPath) {
  Settings s;
  s.policy = "ecmp";
  auto c = make_path_controller(s, 3);
  std::vector<PathSample> paths{path(10, 30), path(10, 30), path(10, 30)};
  paths[1].up = false;
  const auto out = c->steer(kEpoch, paths, qps_on(std::vector<std::uint32_t>(30, 0)));
  EXPECT_EQ(count(out, 1), 0U);
  EXPECT_GT(count(out, 0), 0U);
  EXPECT_GT(count(out, 2), 0U);
}

// PLB: a pair re-hashes after plb_rounds congested rounds in a row, not before; a pair that
// is not congested never moves.
TEST(PlbController, RepathsAfterRepeatedCongestedRounds) {
  Settings s;
  s.policy = "plb";
  s.plb_rounds = 3;
  std::vector<PathSample> paths;
  for (int i = 0; i < 8; ++i) {
    paths.push_back(path(10, 30));
  }
  auto c = make_path_controller(s, 8);
  std::vector<QpSample> qps = qps_on({0, 0});
  const auto first = c->steer(kEpoch, paths, qps);
  qps[0].path = first[0];
  qps[1].path = first[1];
  qps[0].packets_received = 100;
  qps[0].ce_marked = 60;  // congested
  qps[1].packets_received = 100;
  qps[1].ce_marked = 10;
  EXPECT_EQ(c->steer(kEpoch, paths, qps), first);
  EXPECT_EQ(c->steer(kEpoch, paths, qps), first);
  // Third congested round: pair 0 draws new entropy; with 8 paths it lands elsewhere unless the
  // hash repeats. Repeat until it moved (each draw is a fresh hash), within a few rounds.
  std::vector<std::uint32_t> out = c->steer(kEpoch, paths, qps);
  for (int round = 0; round < 9 && out[0] == first[0]; ++round) {
    out = c->steer(kEpoch, paths, qps);
  }
  EXPECT_NE(out[0], first[0]);
  EXPECT_EQ(out[1], first[1]);
}

// seed: the direct path (the route's first) takes everything until its queue grows; then its share is
// cut by seed_backoff per interval and the rest goes to the other path; with the queue
// steady and under target it takes back seed_step per interval.
TEST(SeedController, BacksOffOnARisingQueueAndCreepsBack) {
  Settings s;
  s.policy = "seed";
  auto c = make_path_controller(s, 2);
  std::vector<PathSample> paths{path(10, 30), path(5, 26)};  // the detour is shorter, as in the scenario
  const auto q = qps_on(std::vector<std::uint32_t>(20, 0));
  c->steer(kEpoch, paths, q);
  EXPECT_DOUBLE_EQ(c->weights()[0], 1.0);
  paths[0].queue_delay = Duration{2'000'000};
  c->steer(kEpoch, paths, q);
  EXPECT_NEAR(c->weights()[0], 0.95, 1e-9);
  paths[0].queue_delay = Duration{4'000'000};
  c->steer(kEpoch, paths, q);
  EXPECT_NEAR(c->weights()[0], 0.95 * 0.95, 1e-9);
  paths[0].queue_delay = Duration{1'000'000};
  c->steer(kEpoch, paths, q);
  EXPECT_NEAR(c->weights()[0], 0.95 * 0.95 + 0.015, 1e-9);
  EXPECT_NEAR(c->weights()[1], 1 - c->weights()[0], 1e-9);
}

// The lag covers the old path's stragglers: the delay difference plus a margin, and nothing
// when moving to a longer path or away from a dead one.
TEST(LagAfterMove, CoversTheDelayDifference) {
  const PathSample long_path = path(5, 26, 10);  // 36 ms
  const PathSample short_path = path(10, 30);    // 30 ms
  const Duration lag = lag_after_move(long_path, short_path);
  EXPECT_GE(lag, Duration{6'000'000});
  EXPECT_LE(lag, Duration{6'000'000 + 600'000 + 100'000});
  EXPECT_EQ(lag_after_move(short_path, long_path), Duration{0});
  PathSample dead = long_path;
  dead.up = false;
  EXPECT_EQ(lag_after_move(dead, short_path), Duration{0});
}

TEST(PathController, UnknownPolicyIsRefused) {
  Settings s;
  s.policy = "magic";
  EXPECT_THROW(make_path_controller(s, 2), std::invalid_argument);
  EXPECT_EQ(policy_names().size(), 5U);
}

}  // namespace
}  // namespace gw::steering
