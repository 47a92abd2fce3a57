#include "harness/run/workloads/workload_kind.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/errors.h"
#include "harness/run/scenario.h"

namespace gw {
namespace {

// Every kind the registry names is one a scenario can run: it has a reader, and a kind that
// runs iterations has plans and a list of timed operations in result.json.
TEST(WorkloadKind, EveryEntryCanBeReadAndRun) {
  std::set<std::string> seen;
  for (const std::string_view name : workload_kind_names()) {
    const WorkloadKind& k = workload_kind(name);
    EXPECT_TRUE(seen.insert(std::string(name)).second) << name << " twice";
    EXPECT_NE(k.read, nullptr) << name;
    EXPECT_EQ(k.iterations, k.plans != nullptr) << name;
    EXPECT_EQ(k.iterations, !k.ops_key.empty()) << name;
  }
  EXPECT_EQ(seen, (std::set<std::string>{"flows", "collective", "ddp", "diloco", "fsdp", "moe", "pipeline",
                                         "hybrid"}));
  EXPECT_EQ(workload_kind("pipeline").ops_key, "transfers");
  EXPECT_EQ(find_workload_kind("tensor_parallel"), nullptr);
  EXPECT_THROW((void)workload_kind("tensor_parallel"), std::logic_error);
}

nlohmann::json scenario_with(const nlohmann::json& workload) {
  return {{"gradwall", "scenario/v1"},
          {"name", "kinds"},
          {"topology",
           {{"regions",
             {{{"name", "a"}, {"hosts", 2}, {"nic_rate", "10Gbit"}},
              {{"name", "b"}, {"hosts", 2}, {"nic_rate", "10Gbit"}}}},
            {"wan", {{{"between", {"a", "b"}}, {"netem", "delay 5ms rate 1Gbit"}}}}}},
          {"workload", workload}};
}

// diloco: the warm-up is one outer step, and iterations that stop inside an outer step are
// refused with the key and the reason.
TEST(WorkloadKind, DilocoWarmsUpOneOuterStepAndRefusesPartialOnes) {
  nlohmann::json w = {{"kind", "diloco"},
                      {"iterations", 8},
                      {"inner_steps", 4},
                      {"compression", "int4"},
                      {"model", {{"parameters", 1e6}}},
                      {"compute", {{"forward", "1ms"}, {"backward", "2ms"}}}};
  const Scenario s = parse_scenario(scenario_with(w), "d.json");
  EXPECT_EQ(s.warmup_iterations, 4U);
  EXPECT_EQ(iteration_plans(s.workload).size(), 8U);
  w["iterations"] = 6;
  try {
    (void)parse_scenario(scenario_with(w), "d.json");
    FAIL() << "6 iterations of H = 4 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "$.workload.iterations");
    EXPECT_NE(e.reason().find("not a whole number of outer steps"), std::string::npos) << e.reason();
  }
}

// The plans the collective driver gets, per kind: a collective's iterations are compute then
// the op; a training job's items keep their order and only in-iteration dependencies.
TEST(WorkloadKind, PlansFollowTheKind) {
  const Scenario c = parse_scenario(scenario_with({{"kind", "collective"},
                                                   {"iterations", 3},
                                                   {"compute", "1ms"},
                                                   {"collective", {{"op", "all_reduce"}, {"size", "1MiB"}}}}),
                                    "c.json");
  const std::vector<IterationPlan> cp = iteration_plans(c.workload);
  ASSERT_EQ(cp.size(), 3U);
  ASSERT_EQ(cp[0].items.size(), 2U);
  EXPECT_EQ(cp[0].items[0].compute, Duration{1'000'000});
  EXPECT_TRUE(cp[0].items[1].is_collective);
  EXPECT_EQ(cp[0].items[1].after, std::vector<std::uint32_t>{0});

  const Scenario d = parse_scenario(scenario_with({{"kind", "ddp"},
                                                   {"iterations", 2},
                                                   {"model", {{"parameters", 1e6}}},
                                                   {"compute", {{"forward", "1ms"}, {"backward", "2ms"}}},
                                                   {"bucket", "1MiB"}}),
                                    "d.json");
  const std::vector<IterationPlan> dp = iteration_plans(d.workload);
  ASSERT_EQ(dp.size(), 2U);
  std::size_t items = 0;
  for (const IterationPlan& plan : dp) {
    for (std::uint32_t i = 0; i < plan.items.size(); ++i) {
      for (const std::uint32_t a : plan.items[i].after) {
        EXPECT_LT(a, i);  // local to the iteration, in order
      }
    }
    items += plan.items.size();
  }
  EXPECT_EQ(items, d.workload.training.items.size());

  const Scenario f = parse_scenario(
      scenario_with({{"kind", "flows"}, {"duration", "1s"}, {"flows", {{{"from", "a"}, {"to", "b"}}}}}),
      "f.json");
  EXPECT_TRUE(iteration_plans(f.workload).empty());
}

TEST(WorkloadKind, AnUnknownKindListsTheRegistry) {
  try {
    (void)parse_scenario(scenario_with({{"kind", "dddp"}}), "k.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "$.workload.kind");
    EXPECT_EQ(
        e.reason(),
        "must be one of flows, collective, ddp, diloco, fsdp, moe, pipeline, hybrid, got \"dddp\" (did you "
        "mean \"ddp\"?)");
  }
}

}  // namespace
}  // namespace gw
