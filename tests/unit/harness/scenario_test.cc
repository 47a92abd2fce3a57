#include "harness/run/scenario.h"

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

// Sizes as text, and NCCL's settings with their defaults.
TEST(Scenario, SizesWithUnitsAndNcclSettings) {
  nlohmann::json doc = nlohmann::json::parse(kIssueExample);
  doc["workload"] = nlohmann::json::parse(R"({"kind": "collective",
      "collective": {"op": "all_reduce", "size": "4MiB", "chunk": "512 KiB"},
      "nccl": {"protocol": "ll128", "channels": 4, "nsocks_perthread": 2, "socket_nthreads": 4}})");
  const Scenario s = parse_scenario(doc, "nccl.json");
  EXPECT_EQ(s.workload.collective.bytes, 4U << 20);
  EXPECT_EQ(s.workload.collective.chunk_bytes, 512U << 10);
  EXPECT_EQ(s.workload.collective.channels, 4U);  // nccl.channels when the op gives none
  const coll::NcclConfig& n = s.workload.nccl;
  EXPECT_TRUE(n.enabled);
  EXPECT_EQ(n.buffer_wire_bytes(), 4'915'200U);  // LL128's default buffer
  EXPECT_EQ(n.slot_data_bytes(), 4'915'200U / 8 * 120 / 128);
  EXPECT_EQ(n.qps_per_connection, 8U);  // 2 sockets x 4 threads, data split across them
  EXPECT_TRUE(n.split_data_on_qps);
  doc["workload"]["nccl"] = false;
  EXPECT_FALSE(parse_scenario(doc, "nccl.json").workload.nccl.enabled);
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
        BadCase{
            R"({"workload": {"kind": "collective", "duration": null, "flows": null, "collective": {"op": "all_reduce", "size": "4MiB"}, "nccl": {"protocol": "ll64"}}})",
            "$.workload.nccl.protocol", "must be one of"},
        BadCase{
            R"({"workload": {"kind": "collective", "duration": null, "flows": null, "collective": {"op": "all_reduce", "size": "4MiB"}, "nccl": {"buffsize": "1KiB"}}})",
            "$.workload.nccl.buffsize", "must be in [4096, "},
        BadCase{
            R"({"workload": {"kind": "collective", "duration": null, "flows": null, "collective": {"op": "all_reduce", "size": "4MiB"}, "nccl": {"buffsize": "4 furlongs"}}})",
            "$.workload.nccl.buffsize", "expected a size with its unit"},
        BadCase{
            R"({"workload": {"kind": "collective", "duration": null, "flows": null, "collective": {"op": "all_reduce", "size": "4MiB"}, "nccl": {"buffsize": "16KiB", "steps": 64}}})",
            "$.workload.nccl.steps", "a slot of 256 bytes"},
        BadCase{
            R"({"workload": {"kind": "collective", "duration": null, "flows": null, "collective": {"op": "all_reduce", "size": "4MiB"}, "nccl": {"qps_per_connection": 2, "nsocks_perthread": 4}}})",
            "$.workload.nccl.qps_per_connection", "is for the IB transport"},
        BadCase{
            R"({"workload": {"kind": "collective", "duration": null, "flows": null, "collective": {"op": "all_reduce", "size": "4MiB"}, "nccl": {"nsocks_perthread": 16, "socket_nthreads": 8}}})",
            "$.workload.nccl.nsocks_perthread", "nsocks_perthread x socket_nthreads is at most 64"},
        BadCase{
            R"({"workload": {"kind": "collective", "duration": null, "flows": null, "collective": {"op": "all_reduce", "size": "4MiB"}, "nccl": {"bufsize": "4MiB"}}})",
            "$.workload.nccl.bufsize", "unknown key (did you mean \"buffsize\"?)"},
        BadCase{
            R"({"topology": {"regions": [{"name": "a", "hosts": 1, "nic_rate": "10Gbit",
                   "latncy": "1us"}, {"name": "b", "hosts": 1, "nic_rate": "10Gbit"}]}})",
            "$.topology.regions[0].latncy", "unknown key (did you mean \"latency\"?)"},
        BadCase{R"({"controller": {"policy": "magic"}})", "$.controller.policy", "must be one of"},
        BadCase{R"({"controller": {"interval": "10us"}})", "$.controller.interval", ""},
        BadCase{R"({"controller": {"policy": "ecmp", "spray": true}})", "$.controller.spray",
                "sprays by the controller's weights"},
        BadCase{R"({"topology": {"routes": [{"from": "a", "to": "b", "via": [], "paths": [{"via": []}]}]}})",
                "$.topology.routes[0].paths", "give either `via` (one path) or `paths`, not both"},
        BadCase{R"({"topology": {"routes": [{"from": "a", "to": "b", "paths": []}]}})",
                "$.topology.routes[0].paths", "needs at least one path"},
        BadCase{R"({"topology": {"routes": [{"from": "a", "to": "b", "paths": [{"via": ["x"]}]}]}})",
                "$.topology.routes[0].paths[0].via", "names no region x"},
        BadCase{R"({"topology": {"wan": [{"between": ["a", "b"], "netem": "delay 1ms",
                   "phases": [{"at": "2s", "netem": "delay 2ms"}, {"at": "1s", "netem": "delay 3ms"}]}]}})",
                "$.topology.wan[0].phases[1].at_s", "phases must be in increasing time order"},
        BadCase{
            R"({"topology": {"relays": [{"name": "pop"}], "wan": [{"between": ["a", "b"], "netem": "delay 1ms"},
                   {"between": ["a", "pop"], "netem": "delay 1ms"}, {"between": ["pop", "b"], "netem": "delay 1ms"}],
                   "routes": [{"from": "a", "to": "b", "paths": [{"via": []}, {"via": ["pop"], "provision": "1s"}]}]}})",
            "$.topology.routes[0].paths[1].provision", "only a standby path is provisioned"},
        BadCase{
            R"({"topology": {"relays": [{"name": "pop"}], "wan": [{"between": ["a", "b"], "netem": "delay 1ms"},
                   {"between": ["a", "pop"], "netem": "delay 1ms"}, {"between": ["pop", "b"], "netem": "delay 1ms"}],
                   "routes": [{"from": "a", "to": "b", "paths": [{"via": []}, {"via": ["pop"], "standby": true}]}]}})",
            "$.topology.routes[0].paths[1].standby",
            "a standby path needs a controller that asks for capacity"}));

// A route with several paths, a netem link's phases and a controller, as docs/steering.md
// writes them.
TEST(Scenario, PathsPhasesAndController) {
  nlohmann::json doc = nlohmann::json::parse(kIssueExample);
  doc.merge_patch(nlohmann::json::parse(R"({
    "topology": {"relays": [{"name": "pop"}],
                 "wan": [{"between": ["a", "b"], "netem": "delay 30ms rate 10Gbit", "limit_bytes": 1000000,
                          "phases": [{"at": "2s", "name": "cut", "netem": "delay 30ms rate 2Gbit"}]},
                         {"between": ["a", "pop"], "netem": "delay 12ms"},
                         {"between": ["pop", "b"], "netem": "delay 14ms"}],
                 "routes": [{"from": "a", "to": "b", "paths": [{"via": []}, {"via": ["pop"]}]}]},
    "controller": {"policy": "te", "interval": "20ms", "headroom": 0.2}})"));
  const Scenario s = parse_scenario(doc, "paths.json");
  ASSERT_EQ(s.topology.routes.size(), 1U);
  ASSERT_EQ(s.topology.routes[0].paths.size(), 2U);
  EXPECT_TRUE(s.topology.routes[0].paths[0].empty());
  EXPECT_EQ(s.topology.routes[0].paths[1], std::vector<std::string>{"pop"});
  ASSERT_EQ(s.topology.wan[0].profile.phases.size(), 1U);
  const PhaseSpec& cut = s.topology.wan[0].profile.phases[0];
  EXPECT_EQ(cut.at, Duration{2'000'000'000});
  ASSERT_TRUE(cut.a_to_b.rate && cut.a_to_b.queue);
  EXPECT_EQ(cut.a_to_b.rate->rate.bps, 2'000'000'000ULL);
  EXPECT_EQ(cut.a_to_b.queue->limit_bytes, 1'000'000U) << "the link's limit_bytes holds in its phases";
  EXPECT_EQ(s.controller.policy, "te");
  EXPECT_EQ(s.controller.interval, Duration{20'000'000});
  EXPECT_DOUBLE_EQ(s.controller.headroom, 0.2);
}

}  // namespace
}  // namespace gw
