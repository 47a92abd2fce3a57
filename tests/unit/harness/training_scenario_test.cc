// Scenario kinds `moe` and `pipeline` (docs/scenarios.md): they load, validate with file, JSON
// path and reason, and run in the simulator with the driver's all-to-all and point-to-point
// items.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "harness/run/scenario.h"
#include "harness/sim/sim_runner.h"

namespace gw {
namespace {

using nlohmann::json;

// Two regions of two hosts (4 ranks), 100 Gbit/s NICs and WAN, 10 µs one-way, deep buffers.
json base(const json& workload) {
  return {{"gradwall", "scenario/v1"},
          {"name", "training"},
          {"seed", 1},
          {"topology",
           {{"regions",
             {{{"name", "a"}, {"hosts", 2}, {"nic_rate", "100Gbit"}, {"buffer_bytes", 1 << 30}},
              {{"name", "b"}, {"hosts", 2}, {"nic_rate", "100Gbit"}, {"buffer_bytes", 1 << 30}}}},
            {"wan",
             {{{"between", {"a", "b"}}, {"netem", "delay 10us rate 100Gbit"}, {"limit_bytes", 1 << 30}}}}}},
          {"workload", workload},
          {"transport", {{"cc", "fixed"}, {"mtu", 9000}}},
          {"results", {{"interval", "10ms"}}}};
}

json moe(double skew) {
  return {{"kind", "moe"},
          {"iterations", 2},
          {"model", {{"parameters", 1e9}, {"layers", 2}, {"hidden", 1024}, {"tokens_per_iteration", 4096}}},
          {"compute", {{"forward", "4ms"}, {"backward", "8ms"}}},
          {"top_k", 2},
          {"skew", skew},
          {"algorithm", "direct"}};
}

json pipeline(const std::string& schedule) {
  return {{"kind", "pipeline"},
          {"iterations", 2},
          {"model", {{"parameters", 1e9}, {"layers", 8}, {"hidden", 1024}, {"tokens_per_iteration", 1024}}},
          {"compute", {{"forward", "16ms"}, {"backward", "32ms"}}},
          {"micro_batches", 4},
          {"schedule", schedule}};
}

SimResult run(const json& doc) {
  SimOptions o;
  o.keep_series = false;
  return run_sim(parse_scenario(doc, "training.json"), o);
}

// 4 ranks: a TP pair inside each region (ranks 0-1 in a, 2-3 in b), the two replicas across.
json hybrid(const json& extra = json::object()) {
  json w = {{"kind", "hybrid"},
            {"iterations", 2},
            {"parallel", {{"tp", 2}, {"dp", 2}}},
            {"micro_batches", 2},
            {"model", {{"parameters", 4e6}, {"layers", 2}, {"hidden", 512}, {"tokens_per_iteration", 512}}},
            {"compute", {{"forward", "4ms"}, {"backward", "8ms"}}}};
  w.merge_patch(extra);
  return w;
}

TEST(MoeScenario, RunsDispatchAndCombineAllToAllsPerLayer) {
  const SimResult r = run(base(moe(0)));
  ASSERT_TRUE(r.completed);
  // 2 layers x (dispatch, combine, combine_bwd, dispatch_bwd) x 2 iterations
  ASSERT_EQ(r.collectives.size(), 16U);
  for (const CollectiveOpResult& c : r.collectives) {
    EXPECT_EQ(c.op, "all_to_all");
    EXPECT_EQ(c.algorithm, "direct");
    EXPECT_GT(c.end_ns, c.start_ns);
    EXPECT_GT(c.predicted_ns, 0);
  }
  EXPECT_EQ(r.collectives[0].name, "dispatch[0]");
  // 4096 tokens x top 2 x 1024 x 2 B = 16 MiB sent per rank per all-to-all.
  EXPECT_EQ(r.collectives[0].bytes, 4096ULL * 2 * 1024 * 2);
  ASSERT_EQ(r.iterations.size(), 2U);
  EXPECT_EQ(r.iterations[0].compute_ns, 12'000'000);  // forward + backward, all ranks in lockstep
  EXPECT_GT(r.iterations[0].exposed_comm_ns, 0);      // nothing overlaps the all-to-alls
}

// Hot experts make an incast at their ranks: with Zipf popularity (skew 1) the busiest rank
// receives far more than the even share, so the dispatch takes longer than with even splits,
// and the α-β prediction (the busiest port's bytes) moves with it. The measured CCT ratio is
// compared with the predicted one within 25 %: the model serialises the busiest port's bytes
// exactly, but leaves out that the incast's senders share it by round robin, not in turn.
TEST(MoeScenario, SkewedRoutingIsAnIncast) {
  const SimResult even = run(base(moe(0)));
  const SimResult skewed = run(base(moe(1)));
  ASSERT_TRUE(even.completed);
  ASSERT_TRUE(skewed.completed);
  const auto cct = [](const CollectiveOpResult& c) { return static_cast<double>(c.end_ns - c.start_ns); };
  const double measured = cct(skewed.collectives[0]) / cct(even.collectives[0]);
  const double predicted = static_cast<double>(skewed.collectives[0].predicted_ns) /
                           static_cast<double>(even.collectives[0].predicted_ns);
  EXPECT_GT(predicted, 1.2);
  EXPECT_GT(measured, 1.2);
  EXPECT_NEAR(measured / predicted, 1.0, 0.25) << "measured " << measured << ", predicted " << predicted;
}

// 4 stages, 4 micro-batches: with free transfers an iteration takes (M+S-1)(f+b) = 7 x 3 ms
// (f = 16 ms / 16, b = 32 ms / 16) for both schedules; each stage computes M(f+b) = 12 ms. The
// transfers (16 KiB of activations per micro-batch: ~1.3 µs at 100 Gbit/s plus 10-14 µs of
// path) add at most 50 µs each, and an iteration's critical path holds at most 2(M+S-1)
// transfers.
TEST(PipelineScenario, BothSchedulesRunWithTheBubbleTheModelPredicts) {
  for (const std::string schedule : {"1f1b", "gpipe"}) {
    const SimResult r = run(base(pipeline(schedule)));
    ASSERT_TRUE(r.completed) << schedule;
    EXPECT_TRUE(r.collectives.empty());
    // activations and gradients across each of the 3 stage boundaries, per micro-batch
    ASSERT_EQ(r.transfers.size(), 2U * 2 * 3 * 4) << schedule;
    for (const TransferResult& t : r.transfers) {
      EXPECT_EQ(t.bytes, 1024ULL / 4 * 1024 * 2);
      EXPECT_EQ(t.dst + 1 == t.src || t.src + 1 == t.dst, true) << t.name;
      EXPECT_GE(t.end_ns - t.start_ns, 10'000) << t.name;
    }
    ASSERT_EQ(r.iterations.size(), 2U);
    for (const IterationResult& it : r.iterations) {
      EXPECT_EQ(it.compute_ns, 12'000'000) << schedule;
      const std::int64_t t_iter = it.end_ns - it.start_ns;
      EXPECT_GE(t_iter, 21'000'000) << schedule;
      EXPECT_LE(t_iter, 21'000'000 + 2 * 7 * 50'000) << schedule;
    }
  }
}

// TP all-reduces stay inside a region on 2 ranks, the DP all-reduce crosses it; each rank
// computes its half of forward + backward (6 ms), and the iteration is at least that plus the
// DP all-reduce, which cannot overlap (it waits for the pipeline to drain).
TEST(HybridScenario, TensorGroupsInsideRegionsDataParallelAcross) {
  const SimResult r = run(base(hybrid()));
  ASSERT_TRUE(r.completed);
  std::size_t tp = 0;
  std::size_t dp = 0;
  for (const CollectiveOpResult& c : r.collectives) {
    EXPECT_EQ(c.ranks, 2U) << c.name;
    EXPECT_GT(c.end_ns, c.start_ns);
    EXPECT_GT(c.predicted_ns, 0);
    if (c.name.rfind("tp_ar", 0) == 0) {
      ++tp;
      EXPECT_EQ(c.bytes, 256U * 512 * 2) << c.name;  // a micro-batch's activations
    } else {
      ++dp;
      EXPECT_EQ(c.name.rfind("dp_ar", 0), 0U) << c.name;
    }
  }
  // 2 iterations x 2 replicas x 2 micro-batches x 2 layers x 4; 2 iterations x 2 groups x 1 bucket
  EXPECT_EQ(tp, 64U);
  EXPECT_EQ(dp, 4U);
  ASSERT_EQ(r.iterations.size(), 2U);
  for (const IterationResult& it : r.iterations) {
    EXPECT_EQ(it.compute_ns, 6'000'000);
    EXPECT_GT(it.end_ns - it.start_ns, 6'000'000);
  }
}

// One rank of four runs twice as slow (slow_fraction 0.25, factor 2, no jitter): its TP
// partner waits for it every layer, so that replica's compute takes 12 ms instead of 6; the
// other replica then waits for it at the DP all-reduce. The busiest rank's compute is 12 ms
// and the iteration grows by the 6 ms the straggler adds (communication is the same: the
// tolerance, 0.5 ms, covers the TP all-reduces shifting against the other replica's).
TEST(HybridScenario, AStragglerHoldsUpItsTensorGroupAndTheDataParallelAllReduce) {
  const SimResult even = run(base(hybrid()));
  const SimResult slow =
      run(base(hybrid({{"stragglers", {{"slow_fraction", 0.25}, {"slow_factor", 2}, {"seed", 5}}}})));
  ASSERT_TRUE(even.completed);
  ASSERT_TRUE(slow.completed);
  ASSERT_EQ(slow.iterations.size(), 2U);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(slow.iterations[i].compute_ns, 12'000'000);
    const std::int64_t t_even = even.iterations[i].end_ns - even.iterations[i].start_ns;
    const std::int64_t t_slow = slow.iterations[i].end_ns - slow.iterations[i].start_ns;
    EXPECT_NEAR(static_cast<double>(t_slow - t_even), 6e6, 0.5e6) << i;
  }
}

// EP = DP = 2 on one rank per replica (tp 1): the same two ranks talk on the EP communicator
// (all-to-alls) and on the DP one (the dense gradients), each with its own connections, as
// NCCL opens them per communicator.
TEST(HybridScenario, EachCommunicatorHasItsOwnConnections) {
  json doc = base(hybrid({{"parallel", {{"tp", 1}, {"dp", 2}, {"ep", 2}}}}));
  doc["topology"]["regions"][0]["hosts"] = 1;
  doc["topology"]["regions"][1]["hosts"] = 1;
  doc["workload"]["nccl"] = false;
  const SimResult r = run(doc);
  ASSERT_TRUE(r.completed);
  std::size_t a2a = 0;
  for (const CollectiveOpResult& c : r.collectives) {
    a2a += c.op == "all_to_all" ? 1 : 0;
  }
  EXPECT_EQ(a2a, 2U * 2 * 2 * 4);  // iterations x micro-batches x layers x 4
  // 0 -> 1 and 1 -> 0, once per communicator.
  std::size_t connections = 0;
  for (const FlowResult& f : r.flows) {
    connections += f.traffic_class == "collective" ? 1 : 0;
  }
  EXPECT_EQ(connections, 4U);
}

struct BadTraining {
  json workload;
  std::string path;
  std::string reason_start;
};

class TrainingScenarioErrors : public ::testing::TestWithParam<BadTraining> {};

TEST_P(TrainingScenarioErrors, NameTheFilePathAndReason) {
  try {
    (void)parse_scenario(base(GetParam().workload), "bad.json");
    FAIL() << "accepted " << GetParam().workload.dump();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "bad.json");
    EXPECT_EQ(e.path(), GetParam().path);
    EXPECT_EQ(e.reason().rfind(GetParam().reason_start, 0), 0U) << e.reason();
  }
}

json patched(json w, const json& patch) {
  w.merge_patch(patch);
  return w;
}

INSTANTIATE_TEST_SUITE_P(
    Table, TrainingScenarioErrors,
    ::testing::Values(
        BadTraining{patched(moe(0), {{"algorithm", "ring"}}), "$.workload.algorithm", "moe sends all-to-all"},
        BadTraining{patched(moe(0), {{"model", {{"hidden", nullptr}}}}), "$.workload.model.hidden",
                    "missing"},
        BadTraining{patched(moe(0), {{"top_k", 0}}), "$.workload.top_k", "must be in [1, 64]"},
        BadTraining{patched(moe(0), {{"micro_batches", 4}}), "$.workload.micro_batches", "unknown key"},
        BadTraining{patched(pipeline("1f1b"), {{"schedule", "zero_bubble"}}), "$.workload.schedule",
                    "must be one of"},
        BadTraining{patched(pipeline("1f1b"), {{"channels", 2}}), "$.workload.channels", "a pipeline sends"},
        BadTraining{patched(pipeline("1f1b"), {{"model", {{"tokens_per_iteration", nullptr}}}}),
                    "$.workload.model.tokens_per_iteration", "missing"},
        BadTraining{hybrid({{"parallel", {{"tp", 4}}}}), "$.workload.parallel",
                    "tp x pp x dp = 4 x 1 x 2 = 8"},
        BadTraining{hybrid({{"parallel", {{"tp", 1}, {"dp", 4}, {"ep", 3}}}}), "$.workload.parallel.ep",
                    "3 does not divide dp = 4"},
        BadTraining{hybrid({{"parallel", {{"order", {"tp", "tp", "dp"}}}}}), "$.workload.parallel.order",
                    "must name each"},
        BadTraining{hybrid({{"top_k", 2}}), "$.workload.top_k", "an expert setting without experts"},
        BadTraining{hybrid({{"stragglers", {{"slow_factor", 0.5}}}}), "$.workload.stragglers.slow_factor",
                    "must be in [1, 100]"},
        BadTraining{hybrid({{"model", {{"hidden", nullptr}}}}), "$.workload.model.hidden", "missing"}));

}  // namespace
}  // namespace gw

namespace gw {
namespace {

// Background traffic beside a collective workload: a storage bulk flow, a tenant's finite
// transfer and a microburst, each on the same WAN as the all-reduce.
TEST(BackgroundTraffic, RunsBesideTheWorkloadAndIsReportedPerClass) {
  json doc = base({{"kind", "collective"},
                   {"iterations", 4},
                   {"compute", "5ms"},
                   {"collective", {{"op", "all_reduce"}, {"size_bytes", 8 << 20}}}});
  doc["background"] = {{{"class", "storage"}, {"from", "a"}, {"to", "b"}, {"cc", "cubic"}},
                       {{"class", "tenant"}, {"from", "b"}, {"to", "a"}, {"size_bytes", 1 << 20}},
                       {{"class", "microburst"},
                        {"from", "a"},
                        {"to", "b"},
                        {"count", 2},
                        {"size_bytes", 256 << 10},
                        {"period", "2ms"},
                        {"start", "1ms"}}};
  const SimResult quiet = run(base(doc["workload"]));
  const SimResult r = run(doc);
  ASSERT_TRUE(r.completed);
  // 4 background flows, then the workload's queue pairs between the regions (class "collective").
  ASSERT_GE(r.flows.size(), 5U);
  for (std::size_t i = 0; i < r.flows.size(); ++i) {
    EXPECT_EQ(r.flows[i].traffic_class == "collective", i >= 4) << i;
  }
  ASSERT_EQ(r.background.size(), 3U);
  const double run_s = static_cast<double>(r.duration.count()) * 1e-9;
  for (const BackgroundResult& b : r.background) {
    EXPECT_GT(b.bytes_delivered, 0U) << b.traffic_class;
    EXPECT_GT(b.goodput_bps, 0U) << b.traffic_class;
  }
  EXPECT_EQ(r.background[0].traffic_class, "storage");
  EXPECT_EQ(r.background[1].traffic_class, "tenant");
  EXPECT_EQ(r.background[1].bytes_delivered, 1U << 20);  // the finite transfer, whole
  EXPECT_EQ(r.background[2].flows, 2U);
  // Each microburst posts 256 KiB at 1 ms, 3 ms, 5 ms, ...: what arrived is at most the bursts
  // posted before the end and at least all but the last two (each takes ~21 µs at 100 Gbit/s
  // when alone, so only the newest can still be in flight).
  const double bursts = std::floor((run_s - 1e-3) / 2e-3) + 1;
  EXPECT_LE(static_cast<double>(r.background[2].bytes_delivered), 2 * bursts * (256 << 10));
  EXPECT_GE(static_cast<double>(r.background[2].bytes_delivered), 2 * (bursts - 2) * (256 << 10));
  // The storage flow takes part of the WAN: the all-reduces take longer than without it.
  ASSERT_EQ(quiet.collectives.size(), r.collectives.size());
  EXPECT_GT(r.collectives.back().end_ns - r.collectives.back().start_ns,
            quiet.collectives.back().end_ns - quiet.collectives.back().start_ns);
}

TEST(BackgroundTraffic, BadEntriesNameThePath) {
  const json workload = {{"kind", "collective"},
                         {"collective", {{"op", "all_reduce"}, {"size_bytes", 1024}}}};
  for (const auto& [entry, path, reason] :
       {std::tuple{json{{"from", "a"}, {"to", "b"}}, "$.background[0].class", "missing"},
        std::tuple{json{{"class", "microburst"}, {"from", "a"}, {"to", "b"}, {"size_bytes", 1000}},
                   "$.background[0].period", "missing"},
        std::tuple{json{{"class", "microburst"}, {"from", "a"}, {"to", "b"}, {"period", "1ms"}},
                   "$.background[0].size_bytes", "missing"},
        std::tuple{json{{"class", "tenant"}, {"from", "a"}, {"to", "c"}}, "$.background[0].to", "no region"},
        std::tuple{json{{"class", "tenant"}, {"from", "a"}, {"to", "b"}, {"cc", "vegas"}},
                   "$.background[0].cc", "unknown congestion control"}}) {
    json doc = base(workload);
    doc["background"] = json::array({entry});
    try {
      (void)parse_scenario(doc, "bad.json");
      ADD_FAILURE() << "accepted " << entry.dump();
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "bad.json");
      EXPECT_EQ(e.path(), path) << entry.dump();
      EXPECT_EQ(e.reason().rfind(reason, 0), 0U) << e.reason();
    }
  }
}

}  // namespace
}  // namespace gw

namespace gw {
namespace {

// Compute from FLOPs in a training scenario: 6 x 1e9 parameters x 1024 tokens = 6.144e12 FLOPs
// at 100 TFLOP/s x MFU 0.5 = 122.88 ms per iteration, split over 4 stages: each stage's
// forwards and backwards add up to 30.72 ms (within 8 ns: each of the 8 phases is rounded to
// the nanosecond).
TEST(PipelineScenario, ComputeFromFlops) {
  json w = pipeline("1f1b");
  w["compute"] = {{"peak_tflops", 100}, {"mfu", 0.5}};
  const Scenario s = parse_scenario(base(w), "flops.json");
  std::int64_t stage0 = 0;
  for (const wl::WorkItem& item : s.workload.training.items) {
    if (item.kind == wl::WorkKind::kCompute && item.rank == 0 && item.iteration == 0) {
      stage0 += item.duration.count();
    }
  }
  EXPECT_NEAR(static_cast<double>(stage0), 30.72e6, 8);
}

}  // namespace
}  // namespace gw
