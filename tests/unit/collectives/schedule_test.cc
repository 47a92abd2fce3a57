// Collective schedules as specifications: right bytes, right dependencies, right result.
#include <gtest/gtest.h>

#include <bit>

#include "generators/collectives/schedule_builder.h"
#include "tests/unit/collectives/schedule_check.h"

namespace gw::coll {
namespace {

using testing::all_ranks;
using testing::Masks;
using testing::one_region;

CollectiveSpec spec_of(Op op, Algorithm a, std::uint64_t bytes, std::uint32_t channels = 1) {
  CollectiveSpec s;
  s.op = op;
  s.algorithm = a;
  s.bytes = bytes;
  s.channels = channels;
  return s;
}

// Every rank's own input in every byte (all-reduce, reduce-scatter, reduce).
Masks own_everywhere(std::uint32_t r, std::uint64_t bytes) {
  return Masks(bytes, std::uint64_t{1} << r);
}

// Rank r's own input only in its blocks (all-gather).
Masks own_blocks(const CollectiveSpec& s, std::uint32_t p, std::uint32_t r) {
  Masks m(s.bytes, 0);
  for (std::uint32_t c = 0; c < s.channels; ++c) {
    const ByteRange b = block_range(s.bytes, s.channels, p, c, r);
    for (std::uint64_t i = 0; i < b.bytes; ++i) {
      m[b.offset + i] = std::uint64_t{1} << r;
    }
  }
  return m;
}

// Structure holds and every rank ends with every byte reduced over all ranks.
void expect_all_reduce(const CollectiveSpec& s, const Placement& pl) {
  const auto p = static_cast<std::uint32_t>(pl.region.size());
  const Schedule sched = build_schedule(s, pl);
  ASSERT_EQ(testing::structure_error(sched, s.channels), "");
  const auto out =
      testing::replay(sched, s.bytes, [&](std::uint32_t r) { return own_everywhere(r, s.bytes); });
  ASSERT_EQ(out.error, "");
  for (std::uint32_t r = 0; r < p; ++r) {
    EXPECT_EQ(out.final_state[r], Masks(s.bytes, all_ranks(p))) << "rank " << r;
  }
}

TEST(RingAllReduce, EveryRankHoldsTheFullReduction) {
  for (std::uint32_t p : {2u, 3u, 5u, 8u}) {
    for (std::uint32_t c : {1u, 2u, 3u}) {
      for (std::uint64_t bytes : {96u, 97u, 7u}) {
        SCOPED_TRACE(std::to_string(p) + " ranks, " + std::to_string(c) + " channels, " +
                     std::to_string(bytes));
        expect_all_reduce(spec_of(Op::kAllReduce, Algorithm::kRing, bytes, c), one_region(p));
      }
    }
  }
}

TEST(RingAllReduce, SendsTwicePMinusOneOverPOfTheArrayPerRankIn2PMinus1Steps) {
  const std::uint32_t p = 4;
  const std::uint32_t c = 2;
  const std::uint64_t bytes = 4 * 2 * 1000;  // divisible by p * channels
  const Schedule s = build_schedule(spec_of(Op::kAllReduce, Algorithm::kRing, bytes, c), one_region(p));
  EXPECT_EQ(s.steps.size(), 2u * (p - 1) * p * c);
  for (std::uint64_t sent : testing::bytes_sent_per_rank(s)) {
    EXPECT_EQ(sent, 2 * (p - 1) * bytes / p);
  }
  EXPECT_EQ(testing::depth(s), 2 * (p - 1));
}

// Chunked (chunk_bytes): the same result and the same bytes per rank, in pieces of at most
// chunk_bytes: ceil(block / chunk) times the steps, and each piece's chain is 2(p-1) deep.
TEST(RingAllReduce, ChunkedRingIsCorrectInPiecesOfAtMostChunkBytes) {
  for (std::uint32_t p : {2u, 3u, 5u}) {
    for (std::uint64_t chunk : {1u, 4u, 7u, 1000u}) {
      SCOPED_TRACE(std::to_string(p) + " ranks, chunk " + std::to_string(chunk));
      CollectiveSpec s = spec_of(Op::kAllReduce, Algorithm::kRing, 61, 2);
      s.chunk_bytes = chunk;
      expect_all_reduce(s, one_region(p));
      const Schedule sched = build_schedule(s, one_region(p));
      for (const Step& step : sched.steps) {
        EXPECT_LE(step.bytes, chunk);
      }
      EXPECT_EQ(testing::depth(sched), 2 * (p - 1));
    }
  }
  const std::uint32_t p = 4;
  CollectiveSpec s = spec_of(Op::kAllReduce, Algorithm::kRing, 4 * 1000, 1);
  s.chunk_bytes = 300;  // blocks of 1000 B -> 4 pieces of 250 B
  const Schedule sched = build_schedule(s, one_region(p));
  EXPECT_EQ(sched.steps.size(), 4u * 2u * (p - 1) * p);
  for (std::uint64_t sent : testing::bytes_sent_per_rank(sched)) {
    EXPECT_EQ(sent, 2 * (p - 1) * 4000 / p);
  }
  s.algorithm = Algorithm::kHalvingDoubling;
  EXPECT_THROW(build_schedule(s, one_region(p)), CollectiveError) << "only the ring is chunked";
}

TEST(RingAllReduce, UnevenBytesStillMoveExactly2PMinus1ArraysInTotal) {
  const std::uint32_t p = 5;
  const std::uint64_t bytes = 1003;
  const Schedule s = build_schedule(spec_of(Op::kAllReduce, Algorithm::kRing, bytes, 3), one_region(p));
  std::uint64_t total = 0;
  for (std::uint64_t sent : testing::bytes_sent_per_rank(s)) {
    total += sent;
  }
  EXPECT_EQ(total, 2 * (p - 1) * bytes);
}

TEST(RingAllReduce, RingIsOrderedByRegionSoItCrossesEachBoundaryOnce) {
  const Placement pl{{0, 1, 0, 1, 0, 1}};
  const Schedule s = build_schedule(spec_of(Op::kAllReduce, Algorithm::kRing, 60), pl);
  std::uint32_t crossing = 0;
  for (const Step& st : s.steps) {
    crossing += pl.region[st.src] != pl.region[st.dst] ? 1 : 0;
  }
  EXPECT_EQ(crossing, 2u * 2 * (6 - 1));  // 2 boundary edges x 2(p-1) steps
  expect_all_reduce(spec_of(Op::kAllReduce, Algorithm::kRing, 60), pl);
}

void expect_all_gather(const CollectiveSpec& s, std::uint32_t p) {
  const Schedule sched = build_schedule(s, one_region(p));
  ASSERT_EQ(testing::structure_error(sched, s.channels), "");
  const auto out = testing::replay(sched, s.bytes, [&](std::uint32_t r) { return own_blocks(s, p, r); });
  ASSERT_EQ(out.error, "");
  Masks want(s.bytes, 0);
  for (std::uint32_t r = 0; r < p; ++r) {
    const Masks mine = own_blocks(s, p, r);
    for (std::size_t b = 0; b < want.size(); ++b) {
      want[b] |= mine[b];
    }
  }
  for (std::uint32_t r = 0; r < p; ++r) {
    EXPECT_EQ(out.final_state[r], want) << "rank " << r;
  }
}

void expect_reduce_scatter(const CollectiveSpec& s, std::uint32_t p) {
  const Schedule sched = build_schedule(s, one_region(p));
  ASSERT_EQ(testing::structure_error(sched, s.channels), "");
  const auto out =
      testing::replay(sched, s.bytes, [&](std::uint32_t r) { return own_everywhere(r, s.bytes); });
  ASSERT_EQ(out.error, "");
  for (std::uint32_t r = 0; r < p; ++r) {
    const Masks mine = own_blocks(s, p, r);
    for (std::size_t b = 0; b < mine.size(); ++b) {
      if (mine[b] != 0) {
        ASSERT_EQ(out.final_state[r][b], all_ranks(p)) << "rank " << r << " byte " << b;
      }
    }
  }
}

TEST(RingAllGather, EveryRankHoldsEveryBlockInPMinus1Steps) {
  for (std::uint32_t p : {2u, 3u, 6u}) {
    for (std::uint32_t c : {1u, 2u}) {
      expect_all_gather(spec_of(Op::kAllGather, Algorithm::kRing, 121, c), p);
    }
  }
  const Schedule s = build_schedule(spec_of(Op::kAllGather, Algorithm::kRing, 600), one_region(6));
  EXPECT_EQ(testing::depth(s), 5u);
  for (std::uint64_t sent : testing::bytes_sent_per_rank(s)) {
    EXPECT_EQ(sent, 5u * 600 / 6);
  }
}

TEST(RingReduceScatter, RankIHoldsBlockIReducedInPMinus1Steps) {
  for (std::uint32_t p : {2u, 3u, 6u}) {
    for (std::uint32_t c : {1u, 2u}) {
      expect_reduce_scatter(spec_of(Op::kReduceScatter, Algorithm::kRing, 121, c), p);
    }
  }
  const Schedule s = build_schedule(spec_of(Op::kReduceScatter, Algorithm::kRing, 600), one_region(6));
  EXPECT_EQ(testing::depth(s), 5u);
  for (std::uint64_t sent : testing::bytes_sent_per_rank(s)) {
    EXPECT_EQ(sent, 5u * 600 / 6);
  }
}

TEST(HalvingDoubling, AllReduceIsCorrectIn2LgPStepsMovingTwicePMinus1OverP) {
  for (std::uint32_t p : {2u, 4u, 8u}) {
    for (std::uint32_t c : {1u, 3u}) {
      expect_all_reduce(spec_of(Op::kAllReduce, Algorithm::kHalvingDoubling, 101, c), one_region(p));
    }
  }
  const Schedule s = build_schedule(spec_of(Op::kAllReduce, Algorithm::kHalvingDoubling, 800), one_region(8));
  EXPECT_EQ(testing::depth(s), 6u);
  for (std::uint64_t sent : testing::bytes_sent_per_rank(s)) {
    EXPECT_EQ(sent, 2u * 7 * 800 / 8);
  }
}

TEST(HalvingDoubling, ReduceScatterAndAllGatherTakeLgPSteps) {
  for (std::uint32_t p : {2u, 4u, 8u}) {
    expect_reduce_scatter(spec_of(Op::kReduceScatter, Algorithm::kHalvingDoubling, 77, 2), p);
    expect_all_gather(spec_of(Op::kAllGather, Algorithm::kHalvingDoubling, 77, 2), p);
  }
  EXPECT_EQ(testing::depth(
                build_schedule(spec_of(Op::kReduceScatter, Algorithm::kHalvingDoubling, 80), one_region(16))),
            4u);
}

TEST(HalvingDoubling, RejectsANonPowerOfTwoWithTheReason) {
  try {
    build_schedule(spec_of(Op::kAllReduce, Algorithm::kHalvingDoubling, 100), one_region(6));
    FAIL() << "expected CollectiveError";
  } catch (const CollectiveError& e) {
    EXPECT_NE(e.reason.find("power-of-two"), std::string::npos) << e.reason;
    EXPECT_NE(e.reason.find("6"), std::string::npos) << e.reason;
  }
}

TEST(RecursiveDoubling, AllGatherInLgPStepsAndAllReduceExchangingWholeArrays) {
  for (std::uint32_t p : {2u, 4u, 8u}) {
    expect_all_gather(spec_of(Op::kAllGather, Algorithm::kRecursiveDoubling, 64, 1), p);
    expect_all_reduce(spec_of(Op::kAllReduce, Algorithm::kRecursiveDoubling, 33, 2), one_region(p));
  }
  const Schedule ag =
      build_schedule(spec_of(Op::kAllGather, Algorithm::kRecursiveDoubling, 800), one_region(8));
  EXPECT_EQ(testing::depth(ag), 3u);
  for (std::uint64_t sent : testing::bytes_sent_per_rank(ag)) {
    EXPECT_EQ(sent, 7u * 800 / 8);
  }
  const Schedule ar =
      build_schedule(spec_of(Op::kAllReduce, Algorithm::kRecursiveDoubling, 800), one_region(8));
  EXPECT_EQ(testing::depth(ar), 3u);
  for (std::uint64_t sent : testing::bytes_sent_per_rank(ar)) {
    EXPECT_EQ(sent, 3u * 800);
  }
}

TEST(DoubleBinaryTree, AllReduceIsCorrectForAnyRankCount) {
  for (std::uint32_t p : {2u, 3u, 5u, 6u, 8u, 13u}) {
    for (std::uint32_t c : {1u, 2u}) {
      SCOPED_TRACE(std::to_string(p) + " ranks");
      expect_all_reduce(spec_of(Op::kAllReduce, Algorithm::kDoubleBinaryTree, 51, c), one_region(p));
    }
  }
}

TEST(DoubleBinaryTree, TreesMatchNcclAndDepthIsTwiceTheHeight) {
  // ncclGetBtree on 8 ranks: 0 -> 4 -> {2, 6}, 2 -> {1, 3}, 6 -> {5, 7}; the second tree mirrors it.
  EXPECT_EQ(detail::btree_parents(8, 0), (std::vector<std::int32_t>{-1, 2, 4, 2, 0, 6, 4, 6}));
  EXPECT_EQ(detail::btree_parents(8, 1), (std::vector<std::int32_t>{1, 3, 1, 7, 5, 3, 5, -1}));
  const Schedule s =
      build_schedule(spec_of(Op::kAllReduce, Algorithm::kDoubleBinaryTree, 800), one_region(8));
  EXPECT_EQ(testing::depth(s), 6u);  // 3 levels up, 3 down
  // Each tree carries half the array up and down every edge: 2 trees x 7 edges x 2 x 400 bytes.
  std::uint64_t total = 0;
  for (std::uint64_t sent : testing::bytes_sent_per_rank(s)) {
    total += sent;
  }
  EXPECT_EQ(total, 2u * 7 * 2 * 400);
}

TEST(DoubleBinaryTree, WithAnEvenCountNoRankIsInteriorInBothTrees) {
  for (std::uint32_t p : {4u, 6u, 8u, 16u}) {
    std::vector<int> interior(p, 0);
    for (int t = 0; t < 2; ++t) {
      const auto parent = detail::btree_parents(p, t);
      std::vector<bool> has_child(p, false);
      for (std::int32_t u : parent) {
        if (u >= 0) {
          has_child[static_cast<std::uint32_t>(u)] = true;
        }
      }
      for (std::uint32_t r = 0; r < p; ++r) {
        interior[r] += has_child[r] ? 1 : 0;
      }
    }
    for (std::uint32_t r = 0; r < p; ++r) {
      EXPECT_LE(interior[r], 1) << p << " ranks, rank " << r;
    }
  }
}

TEST(BinomialTree, BroadcastReachesEveryRankInCeilLgPLevels) {
  for (std::uint32_t p : {2u, 3u, 5u, 8u}) {
    for (std::uint32_t root : {0u, p - 1}) {
      CollectiveSpec s = spec_of(Op::kBroadcast, Algorithm::kBinomialTree, 40, 2);
      s.root = root;
      const Schedule sched = build_schedule(s, one_region(p));
      ASSERT_EQ(testing::structure_error(sched, 2), "");
      const auto out = testing::replay(
          sched, 40, [&](std::uint32_t r) { return Masks(40, r == root ? std::uint64_t{1} << root : 0); });
      ASSERT_EQ(out.error, "");
      for (std::uint32_t r = 0; r < p; ++r) {
        EXPECT_EQ(out.final_state[r], Masks(40, std::uint64_t{1} << root));
      }
      EXPECT_EQ(testing::depth(sched), detail::log2_ceil(p));
      EXPECT_EQ(sched.steps.size(), 2u * (p - 1));  // one arrival per rank per channel
    }
  }
}

TEST(BinomialTree, ReduceLeavesTheFullSumAtTheRoot) {
  for (std::uint32_t p : {2u, 3u, 5u, 8u}) {
    CollectiveSpec s = spec_of(Op::kReduce, Algorithm::kBinomialTree, 40);
    s.root = 1;
    const Schedule sched = build_schedule(s, one_region(p));
    ASSERT_EQ(testing::structure_error(sched, 1), "");
    const auto out = testing::replay(sched, 40, [&](std::uint32_t r) { return own_everywhere(r, 40); });
    ASSERT_EQ(out.error, "");
    EXPECT_EQ(out.final_state[1], Masks(40, all_ranks(p)));
    std::uint32_t hops = 0;  // longest path to the root: the most set bits of a relative rank
    for (std::uint32_t v = 0; v < p; ++v) {
      hops = std::max(hops, static_cast<std::uint32_t>(std::popcount(v)));
    }
    EXPECT_EQ(testing::depth(sched), hops);
  }
}

TEST(Hierarchical, AllReduceIsCorrectAndCrossesRegionsWith1OverMOfTheBytes) {
  // 3 regions of 4 ranks, interleaved rank numbering.
  Placement pl;
  for (std::uint32_t r = 0; r < 12; ++r) {
    pl.region.push_back(r % 3);
  }
  for (std::uint32_t c : {1u, 2u}) {
    expect_all_reduce(spec_of(Op::kAllReduce, Algorithm::kHierarchical, 120, c), pl);
  }
  const Schedule s = build_schedule(spec_of(Op::kAllReduce, Algorithm::kHierarchical, 1200), pl);
  EXPECT_EQ(testing::depth(s), 2u * 3 + 2u * 2);  // 2(m-1) inside + 2(R-1) across
  std::uint64_t across = 0;
  for (const Step& st : s.steps) {
    across += pl.region[st.src] != pl.region[st.dst] ? st.bytes : 0;
  }
  EXPECT_EQ(across, 2u * (3 - 1) * 1200);  // m shards x ring all-reduce of S/m over R regions
  for (Placement edge : {Placement{{0, 0, 0, 0}}, Placement{{0, 1, 2, 3}}}) {
    expect_all_reduce(spec_of(Op::kAllReduce, Algorithm::kHierarchical, 50), edge);
  }
}

TEST(Hierarchical, RejectsRegionsOfDifferentSizes) {
  EXPECT_THROW(build_schedule(spec_of(Op::kAllReduce, Algorithm::kHierarchical, 100), Placement{{0, 0, 1}}),
               CollectiveError);
}

TEST(Barrier, EveryRankHearsFromEveryRankBeforeItEnds) {
  for (Algorithm a : {Algorithm::kRing, Algorithm::kRecursiveDoubling, Algorithm::kHalvingDoubling,
                      Algorithm::kDoubleBinaryTree, Algorithm::kHierarchical}) {
    for (std::uint32_t p : {2u, 4u, 5u, 8u}) {
      if (a == Algorithm::kHalvingDoubling && p == 5) {
        continue;
      }
      SCOPED_TRACE(std::string(algorithm_name(a)) + " " + std::to_string(p));
      const Schedule s = build_schedule(spec_of(Op::kBarrier, a, 1 << 20, 4), one_region(p));
      ASSERT_EQ(testing::structure_error(s, 1), "");
      for (std::uint64_t heard : testing::heard_from(s)) {
        EXPECT_EQ(heard, all_ranks(p));
      }
      for (const Step& st : s.steps) {
        EXPECT_EQ(st.bytes, 0u);
      }
    }
  }
  // Dissemination: ceil(lg p) rounds for any p.
  EXPECT_EQ(
      testing::depth(build_schedule(spec_of(Op::kBarrier, Algorithm::kRecursiveDoubling, 0), one_region(5))),
      3u);
}

TEST(CollectiveSpecErrors, ImpossibleSpecsThrowWithAReason) {
  auto reason = [](const CollectiveSpec& s, const Placement& pl) -> std::string {
    try {
      build_schedule(s, pl);
    } catch (const CollectiveError& e) {
      return e.reason;
    }
    return "";
  };
  CollectiveSpec bcast = spec_of(Op::kBroadcast, Algorithm::kBinomialTree, 10);
  bcast.root = 4;
  EXPECT_NE(reason(bcast, one_region(4)).find("root 4"), std::string::npos);
  EXPECT_NE(reason(spec_of(Op::kAllReduce, Algorithm::kRing, 10, 0), one_region(4)), "");
  EXPECT_NE(reason(spec_of(Op::kAllReduce, Algorithm::kRing, 10), Placement{}), "");
  EXPECT_NE(reason(spec_of(Op::kBroadcast, Algorithm::kRing, 10), one_region(4)).find("ring supports"),
            std::string::npos);
  EXPECT_NE(reason(spec_of(Op::kAllReduce, Algorithm::kPairwise, 10), one_region(4)), "");
  EXPECT_NE(reason(spec_of(Op::kAllGather, Algorithm::kHierarchical, 10), one_region(4)), "");
  CollectiveSpec a2a = spec_of(Op::kAllToAll, Algorithm::kDirect, 10);
  a2a.send_matrix = {{1, 2}, {3, 4}};
  EXPECT_NE(reason(a2a, one_region(3)).find("3 x 3"), std::string::npos);
}

TEST(CollectiveSpec, OneRankNeedsNoSteps) {
  EXPECT_TRUE(build_schedule(spec_of(Op::kAllReduce, Algorithm::kRing, 100), one_region(1)).steps.empty());
}

TEST(CollectiveNames, ParseRoundTrips) {
  for (Op op : {Op::kAllReduce, Op::kAllGather, Op::kReduceScatter, Op::kBroadcast, Op::kReduce,
                Op::kAllToAll, Op::kBarrier}) {
    Op back{};
    ASSERT_TRUE(parse_op(op_name(op), back));
    EXPECT_EQ(back, op);
  }
  for (Algorithm a : {Algorithm::kRing, Algorithm::kHalvingDoubling, Algorithm::kRecursiveDoubling,
                      Algorithm::kDoubleBinaryTree, Algorithm::kBinomialTree, Algorithm::kPairwise,
                      Algorithm::kDirect, Algorithm::kHierarchical}) {
    Algorithm back{};
    ASSERT_TRUE(parse_algorithm(algorithm_name(a), back));
    EXPECT_EQ(back, a);
  }
  Op op{};
  EXPECT_FALSE(parse_op("allreduce", op));
}

}  // namespace
}  // namespace gw::coll
