#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/live/live_runner.h"

namespace gw {
namespace {

// A result.json with one collective of `cct_ms` per op (4 ops, 1 MB each).
nlohmann::json result_with(double cct_ms) {
  nlohmann::json r = {{"scenario_json", {{"workload", {{"kind", "collective"}}}}},
                      {"collectives", nlohmann::json::array()},
                      {"packets", {{"timeouts", 0}}},
                      {"accounting", {{"packets_sent", 10000}, {"dropped", nlohmann::json::object()}}}};
  for (int i = 0; i < 4; ++i) {
    r["collectives"].push_back(
        {{"start_ns", 0}, {"end_ns", static_cast<std::int64_t>(cct_ms * 1e6)}, {"bytes", 1'000'000}});
  }
  return r;
}

const nlohmann::json* row(const nlohmann::json& causes, const std::string& cause) {
  for (const nlohmann::json& m : causes.at("measured")) {
    if (m.at("cause") == cause) {
      return &m;
    }
  }
  return nullptr;
}

TEST(TwinCauses, WithinFifteenPercentAgrees) {
  const nlohmann::json c = twin_causes(result_with(100), result_with(110), {});
  EXPECT_EQ(c.at("verdict").get<std::string>().rfind("agree", 0), 0U) << c.dump();
  ASSERT_NE(row(c, "host drops"), nullptr);
  EXPECT_FALSE(row(c, "host drops")->at("disturbed").get<bool>());
}

// Live outside the band of this seed but at the median over seeds: the draws, not the model.
TEST(TwinCauses, AtTheSeedsMedianItIsTheDraws) {
  const nlohmann::json c =
      twin_causes(result_with(100), result_with(150), {result_with(140), result_with(150), result_with(160)});
  EXPECT_EQ(c.at("verdict").get<std::string>().rfind("the draws", 0), 0U) << c.dump();
  const nlohmann::json* spread = row(c, "simulator spread over seeds");
  ASSERT_NE(spread, nullptr);
  EXPECT_EQ(spread->at("seeds"), 4);
  EXPECT_TRUE(spread->at("live_within").get<bool>());
}

// What the bench measured is named before a model gap is called: host drops above 0.1 % of
// the packets sent, a load above the CPUs, the CPUs over 90 % busy (steal included),
// retransmission timeouts live only.
TEST(TwinCauses, ADisturbedBenchIsNamed) {
  nlohmann::json live = result_with(200);
  live["accounting"]["dropped"] = {{"host/socket_overflow", 50}, {"host a/after_endpoint_closed", 900}};
  live["live"] = {{"load_average", {{"start", 3.5}, {"end", 1.0}, {"cpus", 2}}},
                  {"cpu", {{"busy_fraction", 0.88}, {"steal_fraction", 0.04}, {"cpus", 2}}},
                  {"faults", nlohmann::json::array()}};
  live["packets"]["timeouts"] = 5;
  const nlohmann::json c = twin_causes(result_with(100), live, {});
  const std::string verdict = c.at("verdict");
  EXPECT_EQ(verdict.rfind("a disturbed bench: host load, host CPU, host drops, retransmission timeouts", 0),
            0U)
      << verdict;
  EXPECT_EQ(row(c, "host drops")->at("packets"), 50);  // drops after an endpoint closed are not the run's
}

TEST(TwinCauses, OutsideOnAQuietBenchIsAModelGap) {
  nlohmann::json live = result_with(200);
  live["live"] = {{"load_average", {{"start", 0.5}, {"end", 0.4}, {"cpus", 2}}},
                  {"cpu", {{"busy_fraction", 0.6}, {"steal_fraction", 0.0}, {"cpus", 2}}},
                  {"faults", nlohmann::json::array()}};
  const nlohmann::json c = twin_causes(result_with(100), live, {result_with(100), result_with(105)});
  EXPECT_EQ(c.at("verdict").get<std::string>().rfind("a model gap", 0), 0U) << c.dump();
}

}  // namespace
}  // namespace gw
