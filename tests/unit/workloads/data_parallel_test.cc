// DDP and FSDP workloads: bytes per iteration, the overlap recurrence, compute from FLOPs.
#include <gtest/gtest.h>

#include "generators/workloads/data_parallel.h"
#include "tests/unit/workloads/executor.h"

namespace gw::wl {
namespace {

using std::chrono::nanoseconds;

TEST(TrainingCompute, SixFlopsPerParameterPerTokenOverPeakTimesMfu) {
  EXPECT_DOUBLE_EQ(training_flops(1e9, 1000), 6e12);
  // 6e12 / (1e15 × 0.5) = 12 ms
  EXPECT_EQ(compute_time(6e12, 1e15, 0.5), Duration{12'000'000});
  ModelSpec model;
  model.parameters = 1'000'000'000;
  model.tokens_per_iteration = 1000;
  ComputeSpec compute;
  compute.peak_flops_per_s = 1e15;
  compute.mfu = 0.5;
  const PhaseTimes t = phase_times(model, compute);
  EXPECT_EQ(t.forward, Duration{4'000'000});   // 2PT
  EXPECT_EQ(t.backward, Duration{8'000'000});  // 4PT
  EXPECT_THROW(compute_time(1, 1e15, 0), WorkloadError);
  EXPECT_THROW(compute_time(1, 0, 0.5), WorkloadError);
}

TEST(DdpOverlap, RecurrenceOnHandComputedCases) {
  // F = max(F_prev, r) + c: 10+15 = 25; max(25, 20)+5 = 30; max(30, 30)+5 = 35; exposed 35-30.
  const Overlap a = ddp_overlap({nanoseconds{10}, nanoseconds{20}, nanoseconds{30}},
                                {nanoseconds{15}, nanoseconds{5}, nanoseconds{5}}, nanoseconds{30});
  EXPECT_EQ(a.finish, (std::vector<Duration>{nanoseconds{25}, nanoseconds{30}, nanoseconds{35}}));
  EXPECT_EQ(a.exposed, nanoseconds{5});
  // Communication keeps up: only the last bucket's all-reduce is exposed.
  const Overlap b =
      ddp_overlap({nanoseconds{10}, nanoseconds{20}}, {nanoseconds{3}, nanoseconds{4}}, nanoseconds{20});
  EXPECT_EQ(b.finish, (std::vector<Duration>{nanoseconds{13}, nanoseconds{24}}));
  EXPECT_EQ(b.exposed, nanoseconds{4});
  // Finishing before backward ends (a later backward tail) exposes nothing.
  EXPECT_EQ(ddp_overlap({nanoseconds{1}}, {nanoseconds{2}}, nanoseconds{10}).exposed, nanoseconds{0});
}

TEST(DdpBuckets, FirstBucketThenCapSizedBucketsSumToTheGradients) {
  const std::uint64_t mib = 1 << 20;
  EXPECT_EQ(ddp_buckets(100 * mib, 25 * mib, mib),
            (std::vector<std::uint64_t>{mib, 25 * mib, 25 * mib, 25 * mib, 24 * mib}));
  EXPECT_EQ(ddp_buckets(100 * mib, 25 * mib, 0), (std::vector<std::uint64_t>(4, 25 * mib)));
  EXPECT_EQ(ddp_buckets(1000, 25 * mib, mib), (std::vector<std::uint64_t>{1000}));
  EXPECT_EQ(ddp_ready_times({1, 1, 2}, Duration{100}),
            (std::vector<Duration>{Duration{25}, Duration{50}, Duration{100}}));
}

DdpConfig small_ddp() {
  DdpConfig c;
  c.model.parameters = 30'000'000;  // 60 MB of bf16 gradients
  c.compute.forward = Duration{10'000'000};
  c.compute.backward = Duration{20'000'000};
  c.iterations = 3;
  return c;
}

TEST(DdpWorkload, AllReducesCarryExactlyTheGradientBytesEachIteration) {
  const DdpConfig c = small_ddp();
  const Workload w = ddp_workload(c, 8);
  ASSERT_EQ(testing::order_error(w), "");
  EXPECT_EQ(w.iterations, 3u);
  for (std::uint32_t k = 0; k < 3; ++k) {
    std::uint64_t bytes = 0;
    Duration compute{0};
    for (const WorkItem& item : w.items) {
      if (item.iteration != k) {
        continue;
      }
      if (item.kind == WorkKind::kCollective) {
        EXPECT_EQ(item.collective.op, coll::Op::kAllReduce);
        bytes += item.collective.bytes;
      } else {
        compute += item.duration;
      }
    }
    EXPECT_EQ(bytes, 60'000'000u);
    EXPECT_EQ(compute, Duration{30'000'000});
  }
}

// DiLoCo with H inner steps: compute only on H-1 of every H steps, then the outer all-reduce
// of all the parameters; over a whole number of outer steps, exactly 1/H of DDP's bytes.
TEST(DilocoWorkload, SendsOneHthOfDdpBytesPerStep) {
  const DdpConfig ddp = small_ddp();
  for (const std::uint32_t h : {1u, 2u, 4u}) {
    DilocoConfig c;
    c.model = ddp.model;
    c.compute = ddp.compute;
    c.inner_steps = h;
    c.iterations = 4;
    const Workload w = diloco_workload(c, 8);
    ASSERT_EQ(testing::order_error(w), "");
    std::uint64_t bytes = 0;
    Duration compute{0};
    for (const WorkItem& item : w.items) {
      if (item.kind == WorkKind::kCollective) {
        EXPECT_EQ((item.iteration + 1) % h, 0u) << "an outer all-reduce only at the end of an outer step";
        bytes += item.collective.bytes;
      } else {
        compute += item.duration;
      }
    }
    DdpConfig four = ddp;
    four.iterations = 4;
    std::uint64_t ddp_bytes = 0;
    for (const WorkItem& item : ddp_workload(four, 8).items) {
      ddp_bytes += item.kind == WorkKind::kCollective ? item.collective.bytes : 0;
    }
    EXPECT_EQ(bytes * h, ddp_bytes) << "H = " << h;
    EXPECT_EQ(compute, Duration{4 * 30'000'000});
  }
}

TEST(DilocoWorkload, CompressionSetsBitsPerParameterOnTheWire) {
  DilocoConfig c;
  c.model.parameters = 1'000'001;
  EXPECT_EQ(diloco_outer_bytes(c), 2'000'002u);  // bf16, uncompressed
  c.outer_bits = 8;
  EXPECT_EQ(diloco_outer_bytes(c), 1'000'001u);
  c.outer_bits = 4;
  EXPECT_EQ(diloco_outer_bytes(c), 500'001u);  // rounded up to whole bytes
}

TEST(DilocoWorkload, NextStepWaitsForTheOuterAllReduce) {
  DilocoConfig c;
  c.model.parameters = 1'000'000;
  c.compute.forward = Duration{10};
  c.compute.backward = Duration{20};
  c.inner_steps = 2;
  c.iterations = 4;
  const Workload w = diloco_workload(c, 4);
  // Collectives take 100 each: 2 steps (60), the outer all-reduce (100), 2 steps, again.
  EXPECT_EQ(
      testing::makespan(
          w, [](const WorkItem& i) { return i.kind == WorkKind::kCollective ? Duration{100} : i.duration; }),
      Duration{2 * (60 + 100)});
}

TEST(DdpWorkload, ExecutedIterationMatchesTheRecurrence) {
  const DdpConfig c = small_ddp();
  const Workload w = ddp_workload(c, 8);
  // α = 1 ms, β = 1 ns/B: the 1 MiB bucket takes ~2.8 ms, the 25 MiB ones ~47 ms (exposed).
  const coll::AlphaBeta model{Duration{1'000'000}, 1.0};
  auto cost = [&](const WorkItem& item) {
    return item.kind == WorkKind::kCompute ? item.duration : coll::predicted_time(item.collective, 8, model);
  };
  const auto buckets = ddp_buckets(60'000'000, c.bucket_bytes, c.first_bucket_bytes);
  std::vector<Duration> ready = ddp_ready_times(buckets, c.compute.backward);
  std::vector<Duration> comm;
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    ready[i] += c.compute.forward;
    coll::CollectiveSpec s;
    s.bytes = buckets[i];
    comm.push_back(coll::predicted_time(s, 8, model));
  }
  const Duration backward_end = c.compute.forward + c.compute.backward;
  const Overlap o = ddp_overlap(ready, comm, backward_end);
  EXPECT_GT(o.exposed, Duration{0});
  EXPECT_EQ(testing::makespan(w, cost), 3 * (backward_end + o.exposed));
}

TEST(FsdpWorkload, GathersEachLayerTwiceAndReduceScattersItOnce) {
  FsdpConfig c;
  c.model.parameters = 1001;
  c.model.bytes_per_param = 2;
  c.model.layers = 4;
  const Workload w = fsdp_workload(c, 4);
  ASSERT_EQ(testing::order_error(w), "");
  const auto layer = fsdp_layer_bytes(c.model);
  EXPECT_EQ(layer, (std::vector<std::uint64_t>{501, 501, 500, 500}));
  for (std::uint32_t l = 0; l < 4; ++l) {
    const std::string n = "[" + std::to_string(l) + "]";
    for (const std::string& name : {"ag_fwd" + n, "ag_bwd" + n, "rs" + n}) {
      const std::size_t i = testing::find(w, name);
      ASSERT_LT(i, w.items.size()) << name;
      EXPECT_EQ(w.items[i].collective.bytes, layer[l]) << name;
    }
    EXPECT_EQ(w.items[testing::find(w, "rs" + n)].collective.op, coll::Op::kReduceScatter);
  }
  // Prefetch: the next layer's gather does not wait for this layer's compute, but for the one
  // before it.
  EXPECT_FALSE(testing::reaches(w, testing::find(w, "fwd[1]"), testing::find(w, "ag_fwd[2]")));
  EXPECT_TRUE(testing::reaches(w, testing::find(w, "fwd[0]"), testing::find(w, "ag_fwd[2]")));
  EXPECT_FALSE(testing::reaches(w, testing::find(w, "bwd[2]"), testing::find(w, "ag_bwd[1]")));
}

TEST(FsdpWorkload, HandComputedTimelineOfTwoLayers) {
  FsdpConfig c;
  c.model.parameters = 100;
  c.model.layers = 2;
  c.compute.forward = Duration{20};   // 10 per layer
  c.compute.backward = Duration{40};  // 20 per layer
  const Workload w = fsdp_workload(c, 2);
  auto cost = [](const WorkItem& item) {
    return item.kind == WorkKind::kCompute ? item.duration : Duration{5};
  };
  // ag_fwd0 0-5, fwd0 5-15 | ag_fwd1 5-10, fwd1 15-25 | ag_bwd1 25-30, bwd1 30-50, rs1 50-55 |
  // ag_bwd0 30-35, bwd0 50-70, rs0 70-75.
  EXPECT_EQ(testing::makespan(w, cost), Duration{75});
}

}  // namespace
}  // namespace gw::wl
