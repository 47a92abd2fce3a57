#include "harness/scenario.h"

#include <gtest/gtest.h>

#include "core/errors.h"

namespace gw {
namespace {

// The scenario of issue 4, exactly as written there.
const char* kIssueExample = R"({
  "gradwall": "scenario/v1",
  "name": "reno-under-loss",
  "seed": 1,
  "topology": {
    "regions": [ {"name": "a", "hosts": 1, "nic_rate": "10Gbit"},
                 {"name": "b", "hosts": 1, "nic_rate": "10Gbit"} ],
    "wan": [ {"between": ["a", "b"], "netem": "delay 25ms rate 1Gbit loss 0.1%", "limit_bytes": 67108864} ]
  },
  "workload": { "kind": "flows", "duration": "60s",
                "flows": [ {"from": "a", "to": "b", "count": 1} ] },
  "transport": { "cc": "reno", "mtu": 1500 }
})";

TEST(Scenario, TheIssueExampleLoadsAsWritten) {
  const Scenario s = parse_scenario(nlohmann::json::parse(kIssueExample), "example.json");
  EXPECT_EQ(s.name, "reno-under-loss");
  ASSERT_EQ(s.topology.regions.size(), 2U);
  EXPECT_EQ(s.topology.regions[0].nic_rate.bps, 10'000'000'000ULL);
  ASSERT_EQ(s.topology.wan.size(), 1U);
  const DirectionSpec& d = s.topology.wan[0].profile.a_to_b;
  ASSERT_TRUE(d.delay && d.rate && d.loss && d.queue);
  EXPECT_EQ(d.delay->delay, Duration{25'000'000});
  EXPECT_EQ(d.rate->rate.bps, 1'000'000'000ULL);
  EXPECT_DOUBLE_EQ(d.loss->p, 0.001);
  EXPECT_EQ(d.queue->limit_bytes, 67108864U);
  EXPECT_FALSE(d.limit_packets.has_value());  // the byte limit replaces netem's packet limit
  EXPECT_EQ(s.workload.duration, Duration{60'000'000'000});
  EXPECT_EQ(s.transport.cc, "reno");
  EXPECT_EQ(s.transport.config.mtu_bytes, 1500U);
}

struct BadCase {
  const char* patch;  // JSON merge patch on the example
  const char* path;
  const char* reason_start;
  friend void PrintTo(const BadCase& c, std::ostream* os) { *os << c.path; }
};

class ScenarioErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(ScenarioErrors, NameTheFilePathAndReason) {
  nlohmann::json doc = nlohmann::json::parse(kIssueExample);
  doc.merge_patch(nlohmann::json::parse(GetParam().patch));
  try {
    (void)parse_scenario(doc, "bad.json");
    FAIL() << "accepted " << GetParam().patch;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "bad.json");
    EXPECT_EQ(e.path(), GetParam().path);
    EXPECT_EQ(e.reason().rfind(GetParam().reason_start, 0), 0U) << e.reason();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, ScenarioErrors,
    ::testing::Values(
        BadCase{R"({"gradwall": "scenario/v2"})", "$.gradwall", "expected \"scenario/v1\""},
        BadCase{R"({"transport": {"cc": "renoo"}})", "$.transport.cc", "unknown congestion control"},
        BadCase{R"({"transport": {"mtu": 512}})", "$.transport.mtu", "must be in [1024, 9000]"},
        BadCase{R"({"workload": {"duration": "60"}})", "$.workload.duration", "\"60\" needs a unit"},
        BadCase{R"({"workload": {"duration": "soon"}})", "$.workload.duration", "expected a time"},
        BadCase{R"({"workload": {"flows": [{"from": "a", "to": "c"}]}})", "$.workload.flows[0].to",
                "no region named \"c\""},
        BadCase{R"({"topology": {"wan": [{"between": ["a", "b"], "netem": "reorder 5%"}]}})",
                "$.topology.wan[0].netem", ""},
        BadCase{R"({"topology": {"wan": [{"between": ["a", "x"], "netem": "delay 1ms"}]}})",
                "$.topology.wan[0].between", "names a region or relay"},
        BadCase{R"({"topology": {"wan": []}})", "$.topology.wan", "no route from region a to region b"},
        BadCase{R"({"workload": {"kind": "tensor_parallel"}})", "$.workload.kind", "must be one of"},
        BadCase{R"({"transport": {"cc_params": {"bogus": 1}}})", "$.transport.cc_params", ""},
        BadCase{R"({"transport": {"pto_min": "500ns"}})", "$.transport.pto_min", ""},
        BadCase{R"({"transport": {"rto_initial": "100ms"}})", "$.transport",
                "initial_rto: must be in [min_rto"},
        BadCase{R"({"topology": {"regions": [{"name": "a", "hosts": 1, "nic_rate": "10Gbit",
                   "latncy": "1us"}, {"name": "b", "hosts": 1, "nic_rate": "10Gbit"}]}})",
                "$.topology.regions[0].latncy", "unknown key (did you mean \"latency\"?)"}));

}  // namespace
}  // namespace gw
