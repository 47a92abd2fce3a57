// gradwall advise's parts: the analytic model it prunes with, the space it searches and how it
// prices a point (docs/guide/advise.md). The search itself runs `gradwall run` processes and is
// tested end to end in tests/integration/advise*.sh.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/errors.h"
#include "harness/advise/predict.h"
#include "harness/advise/score.h"
#include "harness/advise/space.h"
#include "harness/run/scenario.h"
#include "harness/run/sim_result.h"
#include "harness/sim/sim_runner.h"

namespace gw::advise {
namespace {

using nlohmann::json;

json job(const json& workload, const std::string& netem = "delay 10ms rate 1Gbit") {
  return {{"gradwall", "scenario/v1"},
          {"name", "advise"},
          {"seed", 1},
          {"topology",
           {{"regions",
             {{{"name", "a"}, {"hosts", 2}, {"nic_rate", "25Gbit"}},
              {{"name", "b"}, {"hosts", 2}, {"nic_rate", "25Gbit"}}}},
            {"wan", {{{"between", {"a", "b"}}, {"netem", netem}, {"limit_bytes", 20000000}}}}}},
          {"workload", workload},
          {"transport", {{"cc", "cubic"}, {"mtu", 4096}}}};
}

json collective(const std::string& algorithm) {
  return job({{"kind", "collective"},
              {"iterations", 2},
              {"collective", {{"op", "all_reduce"}, {"algorithm", algorithm}, {"size_bytes", 4 << 20}}}});
}

json diloco(int h) {
  return job({{"kind", "diloco"},
              {"iterations", 2 * h},
              {"inner_steps", h},
              {"model", {{"parameters", 5e6}}},
              {"compute", {{"forward", "20ms"}, {"backward", "40ms"}}}});
}

// For a collective workload, advise's prediction of an iteration is the op's α-β prediction
// that the run itself reports (the same link model, placement and NCCL bounds), to the ns.
TEST(AdvisePredict, CollectiveIterationIsTheRunsOwnPrediction) {
  for (const std::string alg : {"ring", "double_binary_tree"}) {
    const Scenario s = parse_scenario(collective(alg), "c.json");
    const json r = to_json(run_sim(s));
    EXPECT_EQ(predict(s).iteration.count(), r["collectives"][1]["predicted_ns"].get<std::int64_t>()) << alg;
    EXPECT_EQ(predict(s).compute.count(), 0);
  }
}

// DiLoCo: one outer all-reduce per H steps, so over an outer step the predicted idle time per
// step is 1/H of H = 1's (the same buckets, the same all-reduce); compute is per step.
TEST(AdvisePredict, DilocoIdlePerStepFallsAsOneOverH) {
  const Prediction one = predict(parse_scenario(diloco(1), "d.json"));
  const Prediction eight = predict(parse_scenario(diloco(8), "d.json"));
  EXPECT_EQ(one.compute, Duration{60'000'000});
  EXPECT_EQ(eight.compute, Duration{60'000'000});
  ASSERT_GT(one.idle().count(), 0);
  EXPECT_NEAR(static_cast<double>(eight.idle().count()) * 8, static_cast<double>(one.idle().count()), 8.0);
}

std::vector<std::string> names(const std::vector<Axis>& axes) {
  std::vector<std::string> out;
  for (const Axis& a : axes) {
    out.push_back(a.name);
  }
  return out;
}

TEST(AdviseSpace, AxesFollowTheWorkloadAndTheScenario) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "gw-advise-space";
  EXPECT_EQ(names(remedy_space(collective("ring"), "c.json", dir)),
            (std::vector<std::string>{"cc", "algorithm", "nccl"}));
  json ddp = diloco(1);
  ddp["workload"] = {{"kind", "ddp"},
                     {"iterations", 2},
                     {"model", {{"parameters", 5e6}}},
                     {"compute", {{"forward", "20ms"}, {"backward", "40ms"}}}};
  EXPECT_EQ(names(remedy_space(ddp, "d.json", dir)),
            (std::vector<std::string>{"cc", "algorithm", "nccl", "bucket", "sync"}));
  ddp["cost"] = {{"usd_per_gpu_hour", 2}, {"usd_per_gbps_month", 100}};
  const std::vector<Axis> priced = remedy_space(ddp, "d.json", dir);
  ASSERT_EQ(priced.back().name, "capacity");
  // x2 of a 1 Gbit/s link: the netem rate and the byte limit double, 1 Gbit/s is added.
  const Value& x2 = priced.back().values[1];
  EXPECT_DOUBLE_EQ(x2.added_gbps, 1);
  const json scaled = apply(ddp, priced, {0, 0, 0, 0, 0, 1});
  EXPECT_EQ(scaled["topology"]["wan"][0]["netem"], "delay 10ms rate 2000000000bit");
  EXPECT_EQ(scaled["topology"]["wan"][0]["limit_bytes"], 40000000);
  // The cc axis never lists the scenario's own controller again.
  for (const Value& v : priced[0].values) {
    EXPECT_NE(v.label, "cc=cubic");
  }
}

// Every point of a space is a scenario the checks either accept or refuse with an InputError
// (what advise lists as refused): a patch never produces anything else.
TEST(AdviseSpace, EveryPointParsesOrIsRefusedWithItsReason) {
  json ddp = diloco(1);
  ddp["workload"] = {{"kind", "ddp"},
                     {"iterations", 2},
                     {"first_bucket", "1MiB"},
                     {"model", {{"parameters", 5e6}}},
                     {"compute", {{"forward", "20ms"}, {"backward", "40ms"}}}};
  const std::vector<Axis> axes = remedy_space(ddp, "d.json", std::filesystem::temp_directory_path());
  std::size_t accepted = 0;
  std::vector<std::size_t> choice(axes.size(), 0);
  for (std::size_t k = 0; k < axes.size(); ++k) {
    for (std::size_t v = 0; v < axes[k].values.size(); ++v) {
      choice.assign(axes.size(), 0);
      choice[k] = v;
      try {
        (void)parse_scenario(apply(ddp, axes, choice), "d.json");
        ++accepted;
      } catch (const InputError& e) {
        ADD_FAILURE() << label_of(axes, choice) << ": " << e.what();
      }
    }
  }
  EXPECT_GT(accepted, 10u);
  EXPECT_EQ(label_of(axes, std::vector<std::size_t>(axes.size(), 0)), "as the scenario says");
}

TEST(AdviseScore, PassingFirstThenMonthlyCostOrIdleTime) {
  CostSpec cost;
  Point p;
  p.ranks = 8;
  Measured pass{true, 0, "pass", 0.5, 1e8, 1.2, 0, 0, {}, ""};
  Measured fail{true, 1, "fail", 0.1, 1e7, 1.1, 0, 0, {}, ""};
  EXPECT_LT(measured_rank(p, pass, cost), measured_rank(p, fail, cost));  // passing beats a lower idle
  EXPECT_EQ(measured_rank(p, pass, cost).second, 1e8);                    // unpriced: idle ns
  cost.usd_per_gpu_hour = 2;
  cost.usd_per_gbps_month = 100;
  p.added_gbps = 10;
  const MonthlyCost m = monthly_cost(0.5, p.added_gbps, cost, p.ranks);
  EXPECT_DOUBLE_EQ(m.idle_gpus, 0.5 * 8 * 2 * kHoursPerMonth);  // no cost.gpus: one per rank
  EXPECT_DOUBLE_EQ(m.wan, 1000);
  EXPECT_DOUBLE_EQ(measured_rank(p, pass, cost).second, m.total());
  cost.gpus = 1024;
  EXPECT_DOUBLE_EQ(monthly_cost(0.5, 0, cost, 8).idle_gpus, 0.5 * 1024 * 2 * kHoursPerMonth);
}

}  // namespace
}  // namespace gw::advise
