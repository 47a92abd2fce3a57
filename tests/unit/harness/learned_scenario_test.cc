// `transport.cc: "learned"` in a scenario: the policy file is found, loaded once and run; a bad
// one is an input error naming the file, the JSON path and the reason.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "generators/cc/learned.h"
#include "harness/run/scenario.h"
#include "harness/sim/sim_runner.h"

namespace gw {
namespace {

nlohmann::json scenario_with(const nlohmann::json& transport) {
  return {
      {"gradwall", "scenario/v1"},
      {"name", "learned"},
      {"seed", 1},
      {"topology",
       {{"regions",
         {{{"name", "a"}, {"hosts", 1}, {"nic_rate", "10Gbit"}},
          {{"name", "b"}, {"hosts", 1}, {"nic_rate", "10Gbit"}}}},
        {"wan", {{{"between", {"a", "b"}}, {"netem", "delay 10ms rate 1Gbit"}, {"limit_bytes", 2500000}}}}}},
      {"workload", {{"kind", "flows"}, {"duration", "2s"}, {"flows", {{{"from", "a"}, {"to", "b"}}}}}},
      {"transport", transport}};
}

std::string error_of(const nlohmann::json& doc, const std::string& file = "s.json") {
  try {
    (void)parse_scenario(doc, file);
  } catch (const InputError& e) {
    return e.file() + " " + e.path() + ": " + e.reason();
  }
  return "";
}

// Without cc_params.policy the shipped policy runs (profiles/policies/learned-default.json) and
// carries data: the flow delivers bytes.
TEST(LearnedScenario, RunsTheShippedPolicyByDefault) {
  const Scenario s = parse_scenario(scenario_with({{"cc", "learned"}, {"mtu", 9000}}), "s.json");
  ASSERT_TRUE(s.transport.cc_params.contains("policy"));
  SimOptions o;
  o.keep_series = false;
  const SimResult r = run_sim(s, o);
  ASSERT_EQ(r.flows.size(), 1U);
  EXPECT_EQ(r.flows[0].cc, "learned");
  EXPECT_GT(r.flows[0].bytes_delivered, 1'000'000U);
}

// A policy file beside the scenario is found by its name; the same file loads once.
TEST(LearnedScenario, FindsAPolicyBesideTheScenario) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("gw-learned-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  cc::LearnedPolicy p;
  p.weights.back() = 0.5F;
  std::ofstream(dir / "mine.json") << cc::policy_to_json(p).dump();
  const std::string file = (dir / "s.json").string();
  const Scenario a =
      parse_scenario(scenario_with({{"cc", "learned"}, {"cc_params", {{"policy", "mine.json"}}}}), file);
  const Scenario b =
      parse_scenario(scenario_with({{"cc", "learned"}, {"cc_params", {{"policy", "mine.json"}}}}), file);
  EXPECT_EQ(a.transport.cc_params.at("policy"), b.transport.cc_params.at("policy"));
  EXPECT_EQ(
      cc::registered_policy(static_cast<std::uint32_t>(a.transport.cc_params.at("policy")))->weights_hash(),
      p.weights_hash());
  std::ofstream(dir / "bad.json") << R"({"gradwall": "policy/v1", "architecture": {}})";
  EXPECT_EQ(error_of(scenario_with({{"cc", "learned"}, {"cc_params", {{"policy", "bad.json"}}}}), file),
            (dir / "bad.json").string() +
                " $.architecture.inputs: must be 28 (this gradwall's learned controller)");
  std::filesystem::remove_all(dir);
}

TEST(LearnedScenario, AMissingPolicyFileNamesThePath) {
  EXPECT_EQ(
      error_of(scenario_with({{"cc", "learned"}, {"cc_params", {{"policy", "nowhere.json"}}}})),
      "s.json $.transport.cc_params.policy: no policy file \"nowhere.json\" (as given, beside the scenario, "
      "or shipped in policies/)");
  EXPECT_EQ(
      error_of(scenario_with({{"cc", "cubic"}, {"cc_params", {{"policy", 3}}}})),
      "s.json $.transport.cc_params: unknown parameter 'policy' for congestion control 'cubic'; known: beta, "
      "c, fast_convergence, hystart, initial_cwnd_packets, min_cwnd_packets");
}

}  // namespace
}  // namespace gw
