#include "emulator/engine/profile.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "emulator/engine/profile_writer.h"

namespace gw {
namespace {

Profile parse(const std::string& text) {
  return parse_profile(nlohmann::json::parse(text), "wan.json");
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

struct BadProfile {
  const char* json;
  const char* message;
};

// The exact messages a user sees: file, JSON path, reason.
TEST(ProfileLoader, BadProfilesGiveFilePathAndReason) {
  const BadProfile cases[] = {
      {R"({})", R"(wan.json: $.gradwall: is required ("profile/v1"))"},
      {R"({"gradwall": "profile/v2"})", R"(wan.json: $.gradwall: must be "profile/v1", got "profile/v2")"},
      {R"({"gradwall": "profile/v1", "a_to_b": {"loss": {"p": 1.5}}})",
       "wan.json: $.a_to_b.loss.p: must be in [0, 1], got 1.5"},
      {R"({"gradwall": "profile/v1", "a_to_b": {"dealy": {}}})",
       R"(wan.json: $.a_to_b.dealy: unknown key (did you mean "delay"?))"},
      {R"({"gradwall": "profile/v1", "a_to_b": {"delay": {"delay_ms": 5, "delay_us": 5}}})",
       "wan.json: $.a_to_b.delay.delay_ms: gives delay twice (also as delay_us)"},
      {R"({"gradwall": "profile/v1", "a_to_b": {"delay": {"dealy_ms": 5}}})",
       R"(wan.json: $.a_to_b.delay.dealy_ms: unknown key (did you mean "delay_ms"?))"},
      {R"({"gradwall": "profile/v1", "a_to_b": {"delay": {"delay_ms": -1}}})",
       "wan.json: $.a_to_b.delay.delay_ms: must be in [0, 3600000], got -1"},
      {R"({"gradwall": "profile/v1", "a_to_b": {"loss": {"model": "gilbert", "p": 0.1}}})",
       R"(wan.json: $.a_to_b.loss.model: must be one of random, state, gemodel, got "gilbert")"},
      {R"({"gradwall": "profile/v1", "a_to_b": {"loss": {"model": "gemodl", "p": 0.1}}})",
       R"(wan.json: $.a_to_b.loss.model: must be one of random, state, gemodel, got "gemodl" (did you mean "gemodel"?))"},
      {R"({"gradwall": "profile/v1", "a_to_b": {"reorder": {"p": 0.1}}})",
       "wan.json: $.a_to_b.reorder: needs a delay (reordering is not possible without some delay)"},
      {R"({"gradwall": "profile/v1", "a_to_b": {"rate": {}}})",
       "wan.json: $.a_to_b.rate: give exactly one of rate_bps (or rate_kbps/_mbps/_gbps), trace_file, "
       "mahimahi_file"},
      {R"({"gradwall": "profile/v1", "a_to_b": {"queue": {"aqm": {"kind": "red"}}}})",
       "wan.json: $.a_to_b.queue.aqm.min_bytes: is required"},
      {R"({"gradwall": "profile/v1", "a_to_b": {"queue": {"aqm": {"kind": "red", "min_bytes": 10, "max_bytes": 5}}}})",
       "wan.json: $.a_to_b.queue.aqm.max_bytes: must be greater than min_bytes"},
      {R"({"gradwall": "profile/v1", "a_to_b": {"delay": {"delay_ms": 1, "distance_km": 10}}})",
       "wan.json: $.a_to_b.delay.distance_km: give either distance_km or delay, not both"},
      {R"({"gradwall": "profile/v1", "a_to_b": {"delay": {"delay_ms": 1, "jitter_ms": 1, "distribution": "gaussian"}}})",
       nullptr},
      {R"({"gradwall": "profile/v1", "a_to_b": {"incast": {"buffer_bytes": 1000, "ports": [{"match": "10.0.0.300"}]}}})",
       R"(wan.json: $.a_to_b.incast.ports[0].match: "10.0.0.300" is not an IPv4 or IPv6 address or prefix)"},
      {R"({"gradwall": "profile/v1", "a_to_b": {"microbursts": [{"period_ms": 1, "burst_bytes": 1000}]}})",
       "wan.json: $.a_to_b.microbursts: need a rate (cross traffic only builds a queue at a bottleneck)"},
      {R"({"gradwall": "profile/v1", "phases": [{"at_s": 2}, {"at_s": 1}]})",
       "wan.json: $.phases[1].at_s: phases must be in increasing time order"},
      {R"({"gradwall": "profile/v1", "phases": [{"at_s": 1, "a_to_b": {"loss": {"p": 2}}}]})",
       "wan.json: $.phases[0].a_to_b.loss.p: must be in [0, 1], got 2"},
      {R"({"gradwall": "profile/v1", "classes": [{"name": "x", "match": {"dscp": 64}}]})",
       "wan.json: $.classes[0].match.dscp: must be in [0, 63], got 64"},
      {R"({"gradwall": "profile/v1", "seed": "one"})",
       R"(wan.json: $.seed: must be an integer in [0, 2^64-1], got "one")"},
      {R"({"gradwall": "profile/v1", "classes": [{"name": "cnp", "match": {}}],
           "phases": [{"at_s": 1, "classes": {"cpn": {}}}]})",
       R"(wan.json: $.phases[0].classes.cpn: no class is named "cpn" (did you mean "cnp"?))"},
      {R"({"gradwall": "profile/v1", "classes": [{"name": "x", "match": {}}, {"name": "x", "match": {}}]})",
       R"(wan.json: $.classes[1].name: "x" names two classes)"},
  };
  for (const BadProfile& c : cases) {
    const std::string got = error_of(c.json);
    if (c.message == nullptr) {
      // Distribution lookups name where they searched; check the path and the start only.
      EXPECT_NE(got.find("wan.json: $.a_to_b.delay.distribution: "), std::string::npos) << got;
    } else {
      EXPECT_EQ(got, c.message) << c.json;
    }
  }
}

TEST(ProfileLoader, InvalidJsonNamesLineAndColumn) {
  const auto dir = std::filesystem::temp_directory_path() / "gw_profile_test";
  std::filesystem::create_directories(dir);
  const std::string f = (dir / "broken.json").string();
  { std::ofstream(f) << "{\n  \"gradwall\": \"profile/v1\",\n  \"a_to_b\": {,}\n}\n"; }
  try {
    load_profile(f);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), f + ": line 3, column 14: invalid JSON");
  }
  std::filesystem::remove_all(dir);
}

TEST(ProfileLoader, OneDirectionGivenMeansBoth) {
  const Profile p = parse(R"({"gradwall": "profile/v1", "a_to_b": {"delay": {"delay_ms": 25}}})");
  ASSERT_TRUE(p.b_to_a.delay);
  EXPECT_EQ(p.b_to_a.delay->delay, Duration{25'000'000});
  const Profile q = parse(R"({"gradwall": "profile/v1", "b_to_a": {"delay": {"delay_us": 7}}})");
  ASSERT_TRUE(q.a_to_b.delay);
  EXPECT_EQ(q.a_to_b.delay->delay, Duration{7'000});
}

TEST(ProfileLoader, DistanceBecomesFibreDelay) {
  const Profile p = parse(R"({"gradwall": "profile/v1", "a_to_b": {"delay": {"distance_km": 3000}}})");
  EXPECT_EQ(p.a_to_b.delay->delay, Duration{15'000'000});  // 3000 km / 200,000 km/s
}

TEST(ProfileLoader, PhasesAreCumulativeMergePatches) {
  const Profile p = parse(R"({"gradwall": "profile/v1",
      "a_to_b": {"delay": {"delay_ms": 30}, "rate": {"rate_gbps": 10}},
      "phases": [{"at_s": 30, "a_to_b": {"delay": {"delay_ms": 80}}},
                 {"at_s": 60, "a_to_b": {"rate": {"rate_gbps": 5}}},
                 {"at_s": 90, "a_to_b": {"rate": null}}]})");
  ASSERT_EQ(p.phases.size(), 3U);
  EXPECT_EQ(p.phases[0].at, Duration{30'000'000'000});
  EXPECT_EQ(p.phases[0].a_to_b.delay->delay, Duration{80'000'000});
  EXPECT_EQ(p.phases[0].a_to_b.rate->rate.bps, 10'000'000'000U);
  EXPECT_EQ(p.phases[1].a_to_b.delay->delay, Duration{80'000'000});
  EXPECT_EQ(p.phases[1].a_to_b.rate->rate.bps, 5'000'000'000U);
  EXPECT_FALSE(p.phases[2].a_to_b.rate.has_value());
  // One direction given: the patch applies to both.
  EXPECT_EQ(p.phases[0].b_to_a.delay->delay, Duration{80'000'000});
}

TEST(ProfileLoader, ClassesParseMatches) {
  const Profile p = parse(R"({"gradwall": "profile/v1",
      "classes": [{"name": "cnp", "match": {"roce": true, "roce_opcode": [129, 17], "dst": "198.18.0.0/24",
                   "protocol": "udp", "dst_port": 4791, "ecn": "ect1"}}]})");
  ASSERT_EQ(p.classes.size(), 1U);
  const ClassMatch& m = p.classes[0].match;
  EXPECT_EQ(m.roce_opcodes, (std::vector<std::uint8_t>{129, 17}));
  EXPECT_EQ(*m.protocol, 17);
  EXPECT_EQ(m.dst_ports, (std::vector<PortRange>{{4791, 4791}}));
  EXPECT_EQ(*m.ecn, Ecn::kEct1);
  EXPECT_EQ(m.dst[0].length, 96 + 24);
}

TEST(ProfileLoader, PortRangesParseAndRoundTrip) {
  const Profile p = parse(R"({"gradwall": "profile/v1",
      "classes": [{"name": "path1", "match": {"protocol": "udp", "src_port": ["50176-51199", 7]}}]})");
  const ClassMatch& m = p.classes[0].match;
  EXPECT_EQ(m.src_ports, (std::vector<PortRange>{{50176, 51199}, {7, 7}}));
  const Profile again = parse(profile_to_json(p).dump());
  EXPECT_EQ(again.classes[0].match.src_ports, m.src_ports);
  for (const char* bad : {R"("9-3")", R"("1-70000")", R"("1-2-3")", R"("x")", "-1"}) {
    const std::string text =
        std::string(R"({"gradwall": "profile/v1", "classes": [{"name": "c", "match": {"src_port": )") + bad +
        "}}]}";
    try {
      (void)parse(text);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("$.classes[0].match.src_port"), std::string::npos) << e.what();
    }
  }
}

TEST(ProfileLoader, PrefixContainment) {
  const Prefix p = parse_prefix("198.18.0.0/15", "f", "$");
  const Prefix q = parse_prefix("198.18.0.2", "f", "$");
  EXPECT_TRUE(prefix_contains(p, q.address));
  EXPECT_TRUE(prefix_contains(p, parse_prefix("198.19.255.255", "f", "$").address));
  EXPECT_FALSE(prefix_contains(p, parse_prefix("198.20.0.0", "f", "$").address));
  const Prefix v6 = parse_prefix("2001:db8::/32", "f", "$");
  EXPECT_TRUE(prefix_contains(v6, parse_prefix("2001:db8:1::1", "f", "$").address));
  EXPECT_FALSE(prefix_contains(v6, q.address));
}

TEST(ProfileLoader, EveryShippedProfileLoads) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(GW_SOURCE_DIR) + "/profiles/wan")) {
    if (e.path().extension() == ".json") {
      EXPECT_NO_THROW(load_profile(e.path().string())) << e.path();
      ++n;
    }
  }
  EXPECT_GE(n, 7);
}

}  // namespace
}  // namespace gw
