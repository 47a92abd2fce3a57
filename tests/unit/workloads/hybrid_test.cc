// Hybrid parallelism (TP x PP x DP, EP): rank layout, each group's traffic on its own
// communicator with the bytes Megatron moves, the pipeline it reduces to, and stragglers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "generators/workloads/hybrid.h"
#include "tests/unit/workloads/executor.h"

namespace gw::wl {
namespace {

HybridConfig config(std::uint32_t tp, std::uint32_t pp, std::uint32_t dp, std::uint32_t ep = 1) {
  HybridConfig c;
  c.tp = tp;
  c.pp = pp;
  c.dp = dp;
  c.ep = ep;
  c.model.parameters = 1'200'000;
  c.model.bytes_per_param = 2;
  c.model.layers = 4;
  c.model.hidden = 64;
  c.model.tokens_per_iteration = 1000;
  c.micro_batches = 2;
  // per layer per micro-batch per tensor rank: 10 forward, 20 backward
  c.compute.forward = Duration{10LL * tp * 4 * 2};
  c.compute.backward = Duration{20LL * tp * 4 * 2};
  c.bucket_bytes = 100'000;
  return c;
}

TEST(HybridRank, TensorInnermostThenStagesThenReplicasUnlessOrderedOtherwise) {
  HybridConfig c = config(2, 2, 2);
  EXPECT_EQ(hybrid_rank(c, 0, 0, 1), 1U);
  EXPECT_EQ(hybrid_rank(c, 0, 1, 0), 2U);
  EXPECT_EQ(hybrid_rank(c, 1, 0, 0), 4U);
  EXPECT_EQ(hybrid_rank(c, 1, 1, 1), 7U);
  c.order = {ParallelDim::kDp, ParallelDim::kTp, ParallelDim::kPp};
  EXPECT_EQ(hybrid_rank(c, 1, 0, 0), 1U);
  EXPECT_EQ(hybrid_rank(c, 0, 0, 1), 2U);
  EXPECT_EQ(hybrid_rank(c, 0, 1, 0), 4U);
}

// With tp = dp = 1 the job is a plain pipeline: the same items, durations, transfers and
// dependencies as the pipeline workload (compute on a one-rank group instead of `rank`).
TEST(HybridWorkload, PipelineOnlyIsThePipelineWorkload) {
  for (const PipelineSchedule schedule : {PipelineSchedule::kGpipe, PipelineSchedule::kOneFOneB}) {
    HybridConfig h = config(1, 4, 1);
    h.schedule = schedule;
    h.micro_batches = 4;
    h.iterations = 2;
    PipelineConfig p;
    p.model = h.model;
    p.compute = h.compute;
    p.micro_batches = 4;
    p.schedule = schedule;
    p.iterations = 2;
    const Workload a = hybrid_workload(h, 4);
    const Workload b = pipeline_workload(p, 4);
    ASSERT_EQ(a.items.size(), b.items.size());
    for (std::size_t i = 0; i < a.items.size(); ++i) {
      const WorkItem& x = a.items[i];
      const WorkItem& y = b.items[i];
      ASSERT_EQ(x.kind, y.kind) << i;
      std::vector<std::uint32_t> ya = y.after;
      std::sort(ya.begin(), ya.end());
      EXPECT_EQ(x.after, ya) << x.label << " vs " << y.label;
      EXPECT_EQ(x.iteration, y.iteration);
      if (x.kind == WorkKind::kCompute) {
        EXPECT_EQ(x.duration, y.duration);
        EXPECT_EQ(x.group, std::vector<std::uint32_t>{y.rank});
      } else {
        EXPECT_EQ(std::tie(x.src, x.dst, x.bytes), std::tie(y.src, y.dst, y.bytes)) << x.label;
      }
    }
  }
}

TEST(HybridWorkload, TensorPipelineAndDataGroupsEachOnTheirOwnCommunicator) {
  const HybridConfig c = config(2, 2, 2);
  const Workload w = hybrid_workload(c, 8);
  ASSERT_EQ(testing::order_error(w), "");
  std::map<std::uint32_t, std::vector<std::uint32_t>> group_of;
  std::uint32_t tp_ar = 0;
  std::map<std::vector<std::uint32_t>, std::uint64_t> dp_bytes;
  std::uint64_t p2p_bytes = 0;
  std::vector<Duration> busy(8, Duration{0});
  for (const WorkItem& item : w.items) {
    if (item.kind == WorkKind::kCollective) {
      ASSERT_EQ(item.group.size(), 2U) << item.label;
      ASSERT_NE(item.comm, 0U);
      const auto [it, fresh] = group_of.emplace(item.comm, item.group);
      EXPECT_EQ(it->second, item.group) << "communicator " << item.comm << " with two groups";
      if (item.label.rfind("tp_ar", 0) == 0) {
        ++tp_ar;
        // a TP group is one replica's stage: consecutive ranks
        EXPECT_EQ(item.group[1], item.group[0] + 1);
        EXPECT_EQ(item.collective.op, coll::Op::kAllReduce);
        EXPECT_EQ(item.collective.bytes, 500U * 64 * 2);  // a micro-batch's activations
      } else {
        ASSERT_EQ(item.label.rfind("dp_ar", 0), 0U) << item.label;
        // a DP group: the same stage and tensor rank in both replicas (4 ranks apart)
        EXPECT_EQ(item.group[1], item.group[0] + 4);
        dp_bytes[item.group] += item.collective.bytes;
        EXPECT_LE(item.collective.bytes, c.bucket_bytes);
      }
    } else if (item.kind == WorkKind::kP2p) {
      p2p_bytes += item.bytes;
      EXPECT_EQ(item.dst % 2, item.src % 2);  // tensor rank t to tensor rank t
    } else {
      for (const std::uint32_t r : item.group) {
        busy[r] += item.duration;
      }
    }
  }
  // Distinct groups, distinct communicators: 4 TP + 4 DP groups.
  EXPECT_EQ(group_of.size(), 8U);
  std::set<std::vector<std::uint32_t>> groups;
  for (const auto& [comm, g] : group_of) {
    groups.insert(g);
  }
  EXPECT_EQ(groups.size(), 8U);
  // 2 replicas x 2 stages x 2 micro-batches x 2 layers x (2 forward + 2 backward)
  EXPECT_EQ(tp_ar, 64U);
  // Each DP group all-reduces its stage's shard: 1.2 M params / 2 stages / 2 tensor ranks x 2 B.
  ASSERT_EQ(dp_bytes.size(), 4U);
  for (const auto& [g, bytes] : dp_bytes) {
    EXPECT_EQ(bytes, 600'000U);
  }
  // Activations forward and their gradients back across the one stage boundary, per replica.
  EXPECT_EQ(p2p_bytes, 2U * 2 * 1000 * 64 * 2);
  // Each rank computes its 2 layers x 2 micro-batches x (10 + 20).
  for (const Duration b : busy) {
    EXPECT_EQ(b, Duration{2 * 2 * 30});
  }
  // With free communication an iteration is the pipeline's (M + S - 1) slots of 2 layers.
  const auto cost = [](const WorkItem& item) {
    return item.kind == WorkKind::kCompute ? item.duration : Duration{0};
  };
  EXPECT_EQ(testing::makespan(w, cost), Duration{(2 + 2 - 1) * 2 * 30});
}

// EP = DP = 2: the two replicas all-to-all their tokens per layer; dense gradients go over the
// DP group, and with one EP block no expert weights are replicated.
TEST(HybridWorkload, ExpertParallelAllToAllsCarveOutOfDataParallel) {
  HybridConfig c = config(1, 1, 2, 2);
  c.top_k = 2;
  c.skew = 1.0;
  const Workload w = hybrid_workload(c, 2);
  ASSERT_EQ(testing::order_error(w), "");
  std::uint32_t a2a = 0;
  std::uint64_t dense = 0;
  std::set<std::uint32_t> comms;
  for (const WorkItem& item : w.items) {
    if (item.kind != WorkKind::kCollective) {
      continue;
    }
    comms.insert(item.comm);
    EXPECT_EQ(item.group, (std::vector<std::uint32_t>{0, 1}));
    if (item.collective.op == coll::Op::kAllToAll) {
      ++a2a;
      if (item.label.rfind("dispatch[", 0) == 0) {
        for (const auto& row : item.collective.send_matrix) {
          // 500 tokens per micro-batch x top 2 x 64 x 2 B
          EXPECT_EQ(std::accumulate(row.begin(), row.end(), std::uint64_t{0}), 500U * 2 * 64 * 2);
        }
      }
    } else {
      EXPECT_EQ(item.label.rfind("dp_ar", 0), 0U) << item.label;
      dense += item.collective.bytes;
    }
  }
  EXPECT_EQ(a2a, 2U * 4 * 4);    // micro-batches x layers x (dispatch, combine, both backward)
  EXPECT_EQ(dense, 1'200'000U);  // half the 2.4 MB of weights are dense (expert_share 0.5)
  EXPECT_EQ(comms.size(), 2U);   // the same two ranks, on the EP and on the DP communicator
}

TEST(HybridWorkload, RefusesLayoutsThatDoNotFit) {
  EXPECT_THROW(hybrid_workload(config(2, 2, 2), 6), WorkloadError);
  EXPECT_THROW(hybrid_workload(config(1, 1, 4, 3), 4), WorkloadError);
  HybridConfig c = config(1, 8, 1);
  EXPECT_THROW(hybrid_workload(c, 8), WorkloadError);  // 4 layers, 8 stages
  c = config(2, 1, 1);
  c.order = {ParallelDim::kTp, ParallelDim::kTp, ParallelDim::kDp};
  EXPECT_THROW(hybrid_workload(c, 2), WorkloadError);
}

TEST(Stragglers, SameSeedSameFactorsAndExactlyTheSlowFraction) {
  StragglerSpec s;
  s.slow_fraction = 0.1;
  s.slow_factor = 1.5;
  s.seed = 3;
  const auto a = straggler_slowdown(s, 1000, 2);
  ASSERT_EQ(a.size(), 2U);
  EXPECT_EQ(std::count(a[0].begin(), a[0].end(), 1.5), 100);
  EXPECT_EQ(std::count(a[0].begin(), a[0].end(), 1.0), 900);
  EXPECT_EQ(a[0], a[1]);  // the same ranks every iteration
  EXPECT_EQ(a, straggler_slowdown(s, 1000, 2));
  s.seed = 4;
  EXPECT_NE(a, straggler_slowdown(s, 1000, 2));
  EXPECT_TRUE(straggler_slowdown(StragglerSpec{}, 1000, 2).empty());
}

// Log-normal jitter of mean 1 and CV 0.1 over 4096 ranks x 10 iterations: the sample mean's
// standard error is 0.1 / sqrt(40960) = 0.0005 and the sample CV's about 0.0004, so 0.002 and
// 0.005 are 4 and 12 standard errors: a correct generator never fails them, a wrong sigma
// (e.g. using cv as sigma without the -sigma^2/2 shift: mean 1.005) does.
TEST(Stragglers, JitterHasMeanOneAndTheGivenCoefficientOfVariation) {
  StragglerSpec s;
  s.jitter = 0.1;
  const auto f = straggler_slowdown(s, 4096, 10);
  double sum = 0;
  double sq = 0;
  double n = 0;
  for (const auto& it : f) {
    for (const double x : it) {
      EXPECT_GT(x, 0);
      sum += x;
      sq += x * x;
      ++n;
    }
  }
  const double mean = sum / n;
  const double cv = std::sqrt(sq / n - mean * mean) / mean;
  EXPECT_NEAR(mean, 1.0, 0.002);
  EXPECT_NEAR(cv, 0.1, 0.005);
}

}  // namespace
}  // namespace gw::wl
