// MoE all-to-all splits and pipeline-parallel schedules.
#include <gtest/gtest.h>

#include <numeric>

#include "generators/workloads/moe.h"
#include "generators/workloads/pipeline.h"
#include "tests/unit/workloads/executor.h"

namespace gw::wl {
namespace {

std::uint64_t row_sum(const std::vector<std::uint64_t>& row) {
  return std::accumulate(row.begin(), row.end(), std::uint64_t{0});
}

TEST(MoeDispatch, EveryRowSumsToTokensTimesTopKTimesTokenBytes) {
  for (double skew : {0.0, 0.5, 1.2}) {
    const auto m = moe_dispatch_matrix(8, 4097, 2, 4096 * 2, skew, 42, 3);
    ASSERT_EQ(m.size(), 8u);
    for (const auto& row : m) {
      EXPECT_EQ(row_sum(row), 4097u * 2 * 4096 * 2);
    }
  }
}

TEST(MoeDispatch, NoSkewIsEvenAndSkewMakesHotExperts) {
  const auto even = moe_dispatch_matrix(8, 4096, 1, 10, 0.0, 1, 0);
  for (std::uint64_t cell : even[0]) {
    EXPECT_EQ(cell, 512u * 10);
  }
  const auto hot = moe_dispatch_matrix(8, 4096, 1, 10, 1.0, 1, 0);
  const auto [lo, hi] = std::minmax_element(hot[0].begin(), hot[0].end());
  // Zipf(1): the hottest of 8 gets 8x the coldest; counts (~1504 and ~188) round by <= 1 token,
  // so the ratio is within 8 x (1/188 + 1/1504) < 0.05.
  EXPECT_NEAR(static_cast<double>(*hi) / static_cast<double>(*lo), 8.0, 0.05);
}

TEST(MoeDispatch, SameSeedSameSplitsAndLayersDiffer) {
  EXPECT_EQ(moe_dispatch_matrix(16, 1000, 1, 1, 1.0, 7, 2), moe_dispatch_matrix(16, 1000, 1, 1, 1.0, 7, 2));
  EXPECT_NE(moe_dispatch_matrix(16, 1000, 1, 1, 1.0, 7, 2), moe_dispatch_matrix(16, 1000, 1, 1, 1.0, 7, 3));
  EXPECT_NE(moe_dispatch_matrix(16, 1000, 1, 1, 1.0, 7, 2), moe_dispatch_matrix(16, 1000, 1, 1, 1.0, 8, 2));
}

TEST(MoeWorkload, DispatchAndCombineAreTransposesPerLayer) {
  MoeConfig c;
  c.model.layers = 3;
  c.model.hidden = 64;
  c.model.tokens_per_iteration = 100;
  c.compute.forward = Duration{300};
  c.compute.backward = Duration{600};
  c.skew = 1.0;
  c.iterations = 2;
  const Workload w = moe_workload(c, 4);
  ASSERT_EQ(testing::order_error(w), "");
  EXPECT_EQ(w.items.size(), 2u * 3 * 8);
  for (std::uint32_t l = 0; l < 3; ++l) {
    const std::string n = "[" + std::to_string(l) + "]";
    const auto& d = w.items[testing::find(w, "dispatch" + n)].collective;
    const auto& back = w.items[testing::find(w, "combine" + n)].collective;
    EXPECT_EQ(d.op, coll::Op::kAllToAll);
    for (std::uint32_t i = 0; i < 4; ++i) {
      EXPECT_EQ(row_sum(d.send_matrix[i]), 100u * 64 * 2);
      for (std::uint32_t j = 0; j < 4; ++j) {
        EXPECT_EQ(d.send_matrix[i][j], back.send_matrix[j][i]);
      }
    }
  }
  // Compute: half the layer's share in the experts; sequential, so with free all-to-alls an
  // iteration is exactly forward + backward.
  auto cost = [](const WorkItem& item) {
    return item.kind == WorkKind::kCompute ? item.duration : Duration{0};
  };
  EXPECT_EQ(testing::makespan(w, cost), Duration{2 * 900});
}

PipelineConfig pipeline(PipelineSchedule schedule, std::uint32_t micro) {
  PipelineConfig c;
  c.model.hidden = 1024;
  c.model.tokens_per_iteration = 4 * 2048 + 1;
  c.compute.forward = Duration{4 * micro * 10};   // f = 10 per stage per micro-batch (4 stages)
  c.compute.backward = Duration{4 * micro * 20};  // b = 20
  c.micro_batches = micro;
  c.schedule = schedule;
  return c;
}

TEST(PipelineWorkload, SendsActivationsAndGradientsAcrossEveryBoundary) {
  const PipelineConfig c = pipeline(PipelineSchedule::kOneFOneB, 4);
  const Workload w = pipeline_workload(c, 4);
  ASSERT_EQ(testing::order_error(w), "");
  std::uint32_t p2p = 0;
  std::uint64_t bytes = 0;
  for (const WorkItem& item : w.items) {
    if (item.kind == WorkKind::kP2p) {
      ++p2p;
      bytes += item.bytes;
      EXPECT_EQ(item.src > item.dst ? item.src - item.dst : item.dst - item.src, 1u);
    }
  }
  EXPECT_EQ(p2p, 2u * 3 * 4);                            // 2 (S-1) M
  EXPECT_EQ(bytes, 2u * 3 * (4 * 2048 + 1) * 1024 * 2);  // every token's activations, both ways
  EXPECT_EQ(pipeline_activation_bytes(c.model, 4, 0), 2049u * 1024 * 2);
}

TEST(PipelineWorkload, BothSchedulesTakeMPlusSMinusOneSlotsWithFreeTransfers) {
  for (PipelineSchedule s : {PipelineSchedule::kGpipe, PipelineSchedule::kOneFOneB}) {
    for (std::uint32_t micro : {1u, 4u, 8u}) {
      const Workload w = pipeline_workload(pipeline(s, micro), 4);
      auto cost = [](const WorkItem& item) {
        return item.kind == WorkKind::kCompute ? item.duration : Duration{0};
      };
      EXPECT_EQ(testing::makespan(w, cost), Duration{(micro + 4 - 1) * (10 + 20)}) << micro;
    }
  }
}

TEST(PipelineWorkload, OneFOneBKeepsAtMostSMinusSMicroBatchesInFlightOnStageS) {
  const Workload w = pipeline_workload(pipeline(PipelineSchedule::kOneFOneB, 8), 4);
  for (std::uint32_t stage = 0; stage < 4; ++stage) {
    int in_flight = 0;
    int most = 0;
    for (const WorkItem& item : w.items) {
      if (item.kind == WorkKind::kCompute && item.rank == stage) {
        in_flight += item.label[0] == 'F' ? 1 : -1;
        most = std::max(most, in_flight);
      }
    }
    EXPECT_EQ(in_flight, 0);
    EXPECT_EQ(most, static_cast<int>(4 - stage));
  }
}

}  // namespace
}  // namespace gw::wl
