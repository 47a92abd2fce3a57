// busbw factors and α-β predictions, against hand-computed values.
#include <gtest/gtest.h>

#include "generators/collectives/collective.h"

namespace gw::coll {
namespace {

CollectiveSpec spec_of(Op op, Algorithm a, std::uint64_t bytes) {
  CollectiveSpec s;
  s.op = op;
  s.algorithm = a;
  s.bytes = bytes;
  return s;
}

// α = 10 µs, β = 0.5 ns/B (16 Gbit/s): large enough to tell the terms apart.
const AlphaBeta kModel{Duration{10'000}, 0.5};

TEST(BusBandwidth, FactorsAreExactlyNcclTests) {
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kAllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kAllGather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kReduceScatter, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kAllToAll, 2), 1.0 / 2);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kBroadcast, 16), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kReduce, 16), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kBarrier, 16), 0.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kAllReduce, 1), 0.0);
}

TEST(PredictedTime, RingAllReduceIs2PMinus1AlphaPlus2PMinus1OverPNBeta) {
  // 2*3*10000 + 2*3/4*1000*0.5 = 60000 + 750
  EXPECT_EQ(predicted_time(spec_of(Op::kAllReduce, Algorithm::kRing, 1000), 4, kModel), Duration{60'750});
  // channels change neither term
  CollectiveSpec four = spec_of(Op::kAllReduce, Algorithm::kRing, 1000);
  four.channels = 4;
  EXPECT_EQ(predicted_time(four, 4, kModel), Duration{60'750});
}

TEST(PredictedTime, EachAlgorithmMatchesItsFormula) {
  const std::uint64_t n = 8000;
  // Rabenseifner: 2 lg 8 α + 2 (7/8) n β = 60000 + 7000
  EXPECT_EQ(predicted_time(spec_of(Op::kAllReduce, Algorithm::kHalvingDoubling, n), 8, kModel),
            Duration{67'000});
  // ring all-gather: 7 α + 7/8 n β = 70000 + 3500
  EXPECT_EQ(predicted_time(spec_of(Op::kAllGather, Algorithm::kRing, n), 8, kModel), Duration{73'500});
  EXPECT_EQ(predicted_time(spec_of(Op::kReduceScatter, Algorithm::kRing, n), 8, kModel), Duration{73'500});
  // recursive-doubling all-gather: 3 α + 7/8 n β
  EXPECT_EQ(predicted_time(spec_of(Op::kAllGather, Algorithm::kRecursiveDoubling, n), 8, kModel),
            Duration{33'500});
  // recursive-doubling all-reduce (whole arrays): 3 (α + n β)
  EXPECT_EQ(predicted_time(spec_of(Op::kAllReduce, Algorithm::kRecursiveDoubling, n), 8, kModel),
            Duration{42'000});
  // binomial broadcast on 5 ranks: ceil(lg 5) (α + n β) = 3 * 14000
  EXPECT_EQ(predicted_time(spec_of(Op::kBroadcast, Algorithm::kBinomialTree, n), 5, kModel),
            Duration{42'000});
  // pairwise all-to-all: 7 α + 7/8 n β; direct: α + 7/8 n β
  EXPECT_EQ(predicted_time(spec_of(Op::kAllToAll, Algorithm::kPairwise, n), 8, kModel), Duration{73'500});
  EXPECT_EQ(predicted_time(spec_of(Op::kAllToAll, Algorithm::kDirect, n), 8, kModel), Duration{13'500});
  // double binary tree on 8: height 3, a rank has 2 children: 6 α + 6 * 2 * n/2 β
  EXPECT_EQ(predicted_time(spec_of(Op::kAllReduce, Algorithm::kDoubleBinaryTree, n), 8, kModel),
            Duration{60'000 + 24'000});
  // on 2 ranks: 2 α + 2 * n/2 β
  EXPECT_EQ(predicted_time(spec_of(Op::kAllReduce, Algorithm::kDoubleBinaryTree, n), 2, kModel),
            Duration{20'000 + 4'000});
  // dissemination barrier on 5 ranks: 3 α
  EXPECT_EQ(predicted_time(spec_of(Op::kBarrier, Algorithm::kRecursiveDoubling, n), 5, kModel),
            Duration{30'000});
  EXPECT_EQ(predicted_time(spec_of(Op::kBarrier, Algorithm::kRing, n), 5, kModel), Duration{80'000});
}

TEST(PredictedTime, UnevenAllToAllPaysForTheBusiestPort) {
  CollectiveSpec s = spec_of(Op::kAllToAll, Algorithm::kDirect, 0);
  s.send_matrix = {{5, 100, 0}, {10, 0, 20}, {300, 0, 7}};
  // rank 0 receives 10 + 300 = 310, the most anyone sends or receives
  EXPECT_EQ(predicted_time(s, 3, kModel), Duration{10'000 + 155});
}

TEST(PredictedTime, HierarchicalUsesIntraForRegionsAndInterAcross) {
  const Placement pl{{0, 0, 0, 0, 1, 1, 1, 1}};  // R = 2, m = 4
  const AlphaBeta intra{Duration{1'000}, 0.1};
  const AlphaBeta inter{Duration{40'000'000}, 1.0};
  const std::uint64_t n = 4'000'000;
  // inside, ring reduce-scatter: 3 steps of n/4, each α_in + n/4 β_in = 1000 + 100000;
  // across, per shard k a ring of 2 on n/8 (reduce-scatter 1 step, all-gather 1 step); the
  // 4 shards share the region pair's path, so each step takes α_out + 4 · n/8 · β_out;
  // inside, ring all-gather: 3 steps again.
  EXPECT_EQ(predicted_time(spec_of(Op::kAllReduce, Algorithm::kHierarchical, n), pl, intra, inter),
            Duration{3 * 101'000 + 2 * (40'000'000 + 2'000'000) + 3 * 101'000});
  EXPECT_THROW(predicted_time(spec_of(Op::kAllReduce, Algorithm::kHierarchical, n), 8, inter),
               CollectiveError);
}

// A flat ring over two regions crosses the WAN on 2 of its 8 edges: its critical path of 14
// steps holds at most 4 WAN steps (not 14, as a single WAN α would say). Lower bound: that
// path, 4 (α_out + n/8 β_out) + 10 (α_in + n/8 β_in); the WAN sender's port can delay it by at
// most its 14 sends of n/8 β_out.
TEST(PredictedTime, FlatRingOverRegionsPaysTheWanOnlyWhereItCrossesIt) {
  const Placement pl{{0, 0, 0, 0, 1, 1, 1, 1}};
  const AlphaBeta intra{Duration{1'000}, 0.1};
  const AlphaBeta inter{Duration{40'000'000}, 1.0};
  const std::uint64_t n = 4'000'000;
  const auto t = predicted_time(spec_of(Op::kAllReduce, Algorithm::kRing, n), pl, intra, inter).count();
  const std::int64_t path = 4 * (40'000'000 + 500'000) + 10 * (1'000 + 50'000);
  EXPECT_GE(t, path);
  EXPECT_LE(t, path + 14 * 500'000);
  EXPECT_LT(t, 14LL * 40'000'000 / 3);
  // Every pair alike (one region per rank, one α-β): exactly the closed form.
  const Placement spread{{0, 1, 2, 3, 4, 5, 6, 7}};
  EXPECT_EQ(predicted_time(spec_of(Op::kAllReduce, Algorithm::kRing, n), spread, inter, inter),
            predicted_time(spec_of(Op::kAllReduce, Algorithm::kRing, n), 8, inter));
}

// The schedule evaluation agrees with the closed forms where they apply: one α-β for every
// pair but a placement that forces the evaluation (the diagonal differs and no two ranks
// share a region, so it is never used).
TEST(PredictedTime, ScheduleEvaluationMatchesClosedForms) {
  const AlphaBeta inter{Duration{40'000'000}, 1.0};
  const std::uint64_t n = 4'000'000;
  LinkModel links = LinkModel::two_level(8, AlphaBeta{Duration{1}, 0.001}, inter);
  links.pair[1] = AlphaBeta{Duration{40'000'000}, 1.0};  // unchanged: still uniform off the diagonal
  const Placement spread{{0, 1, 2, 3, 4, 5, 6, 7}};
  for (const Algorithm a : {Algorithm::kRing, Algorithm::kHalvingDoubling}) {
    EXPECT_EQ(predicted_time(spec_of(Op::kAllReduce, a, n), spread, links),
              predicted_time(spec_of(Op::kAllReduce, a, n), 8, inter));
  }
  // Forced: one pair slightly different makes the links non-uniform; ring and halving-doubling
  // change by no more than that pair's difference on the steps that use it.
  links.pair[0 * 8 + 1].alpha = Duration{40'000'001};
  for (const Algorithm a : {Algorithm::kRing, Algorithm::kHalvingDoubling}) {
    const auto closed = predicted_time(spec_of(Op::kAllReduce, a, n), 8, inter).count();
    const auto evaluated = predicted_time(spec_of(Op::kAllReduce, a, n), spread, links).count();
    EXPECT_GE(evaluated, closed);
    EXPECT_LE(evaluated, closed + 14);
  }
}

// A chunked ring is priced from its schedule: pieces as large as the blocks give the closed
// form back; small pieces over a high α overlap the latency with the next piece's transmission.
TEST(PredictedTime, ChunkedRingOverlapsLatencyWithTransmission) {
  const AlphaBeta model{Duration{50'000'000}, 0.8};  // 50 ms, 10 Gbit/s
  CollectiveSpec s;
  s.op = Op::kAllReduce;
  s.algorithm = Algorithm::kRing;
  s.bytes = 256ULL << 20;
  const Duration whole = predicted_time(s, 8, model);
  s.chunk_bytes = 32ULL << 20;  // = the block: one piece
  EXPECT_NEAR(static_cast<double>(predicted_time(s, 8, model).count()), static_cast<double>(whole.count()),
              1e-6 * static_cast<double>(whole.count()));
  s.chunk_bytes = 4ULL << 20;
  const double piece = 4.0 * (1 << 20) * 0.8;
  const double chain = 14 * (50e6 + piece) + 7 * piece;  // the last piece's chain
  EXPECT_NEAR(static_cast<double>(predicted_time(s, 8, model).count()), chain, 0.02 * chain);
}

TEST(PredictedTime, ImpossibleSpecsThrow) {
  EXPECT_THROW(predicted_time(spec_of(Op::kAllReduce, Algorithm::kHalvingDoubling, 10), 6, kModel),
               CollectiveError);
  EXPECT_THROW(predicted_time(spec_of(Op::kBroadcast, Algorithm::kRing, 10), 4, kModel), CollectiveError);
  EXPECT_EQ(predicted_time(spec_of(Op::kAllReduce, Algorithm::kRing, 10), 1, kModel), Duration{0});
}

}  // namespace
}  // namespace gw::coll
