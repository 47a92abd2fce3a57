// All-to-all schedules: every piece arrives whole at its receiver, once.
#include <gtest/gtest.h>

#include "core/rng.h"
#include "tests/unit/collectives/schedule_check.h"

namespace gw::coll {
namespace {

std::vector<std::vector<std::uint64_t>> skewed_matrix(std::uint32_t p, std::uint64_t seed) {
  Rng rng(seed, "all_to_all_test");
  std::vector<std::vector<std::uint64_t>> m(p, std::vector<std::uint64_t>(p));
  for (auto& row : m) {
    for (auto& cell : row) {
      cell = rng.below(200);  // zeros included
    }
  }
  return m;
}

std::uint64_t split_piece(std::uint64_t bytes, std::uint32_t p, std::uint32_t j) {
  return block_range(bytes, 1, p, 0, j).bytes;
}

// Rank j got exactly column j: for every i != j, the bytes i sent j cover i's piece for j once.
void expect_columns_delivered(const CollectiveSpec& s, std::uint32_t p) {
  const Schedule sched = build_schedule(s, testing::one_region(p));
  ASSERT_EQ(testing::structure_error(sched, s.channels), "");
  std::vector<std::vector<std::uint64_t>> got(p, std::vector<std::uint64_t>(p, 0));
  std::vector<std::vector<std::uint64_t>> next_offset(p, std::vector<std::uint64_t>(p, 0));
  for (std::uint32_t i = 0; i < p; ++i) {
    std::uint64_t offset = 0;
    for (std::uint32_t j = 0; j < p; ++j) {
      next_offset[i][j] = offset;
      offset += s.send_matrix.empty() ? split_piece(s.bytes, p, j) : s.send_matrix[i][j];
    }
  }
  // Channels of one piece appear in channel order, each continuing where the last ended.
  for (const Step& st : sched.steps) {
    EXPECT_EQ(st.offset, next_offset[st.src][st.dst]);
    next_offset[st.src][st.dst] += st.bytes;
    got[st.src][st.dst] += st.bytes;
  }
  for (std::uint32_t i = 0; i < p; ++i) {
    for (std::uint32_t j = 0; j < p; ++j) {
      const std::uint64_t want =
          i == j ? 0 : (s.send_matrix.empty() ? split_piece(s.bytes, p, j) : s.send_matrix[i][j]);
      EXPECT_EQ(got[i][j], want) << i << " -> " << j;
    }
  }
}

TEST(PairwiseAllToAll, EvenSplitsDeliverEveryColumnInPMinus1Rounds) {
  for (std::uint32_t p : {2u, 3u, 8u}) {
    CollectiveSpec s;
    s.op = Op::kAllToAll;
    s.algorithm = Algorithm::kPairwise;
    s.bytes = 24000;
    s.channels = 2;
    expect_columns_delivered(s, p);
    const Schedule sched = build_schedule(s, testing::one_region(p));
    EXPECT_EQ(testing::depth(sched), p - 1);
    for (std::uint64_t sent : testing::bytes_sent_per_rank(sched)) {
      EXPECT_EQ(sent, (p - 1) * 24000 / p);
    }
  }
}

TEST(PairwiseAllToAll, UnevenSendMatrixRowsAreSentExactly) {
  CollectiveSpec s;
  s.op = Op::kAllToAll;
  s.algorithm = Algorithm::kPairwise;
  s.send_matrix = skewed_matrix(6, 7);
  s.channels = 3;
  expect_columns_delivered(s, 6);
  const Schedule sched = build_schedule(s, testing::one_region(6));
  const auto sent = testing::bytes_sent_per_rank(sched);
  for (std::uint32_t i = 0; i < 6; ++i) {
    std::uint64_t row = 0;
    for (std::uint32_t j = 0; j < 6; ++j) {
      row += i == j ? 0 : s.send_matrix[i][j];
    }
    EXPECT_EQ(sent[i], row);
  }
}

TEST(DirectAllToAll, EverySendStartsAtOnce) {
  CollectiveSpec s;
  s.op = Op::kAllToAll;
  s.algorithm = Algorithm::kDirect;
  s.send_matrix = skewed_matrix(5, 11);
  expect_columns_delivered(s, 5);
  const Schedule sched = build_schedule(s, testing::one_region(5));
  EXPECT_EQ(testing::depth(sched), 1u);
  EXPECT_EQ(sched.steps.size(), 5u * 4);
}

}  // namespace
}  // namespace gw::coll
