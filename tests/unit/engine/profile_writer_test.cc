// Specification of the profile writer (emulator/engine/profile_writer.h): what it writes is
// what the loader reads, and reading it back gives the same profile.
#include "emulator/engine/profile_writer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "core/json_reader.h"
#include "emulator/engine/profile.h"

namespace gw {
namespace {

using nlohmann::json;

// Loads `doc`, writes it, loads that, and checks that nothing changed on the way.
Profile round_trip(const json& doc, const std::string& file = "test.json") {
  const Profile p = parse_profile(doc, file);
  const json written = profile_to_json(p);
  const Profile back = parse_profile(json::parse(written.dump()), file);
  EXPECT_EQ(profile_to_json(back), written);
  EXPECT_EQ(back.name, p.name);
  EXPECT_EQ(back.description, p.description);
  EXPECT_EQ(back.seed, p.seed);
  EXPECT_EQ(direction_to_json(back.a_to_b), direction_to_json(p.a_to_b));
  EXPECT_EQ(direction_to_json(back.b_to_a), direction_to_json(p.b_to_a));
  EXPECT_EQ(back.classes.size(), p.classes.size());
  EXPECT_EQ(back.phases.size(), p.phases.size());
  for (std::size_t i = 0; i < std::min(back.phases.size(), p.phases.size()); ++i) {
    EXPECT_EQ(back.phases[i].at, p.phases[i].at);
    EXPECT_EQ(back.phases[i].name, p.phases[i].name);
    EXPECT_EQ(direction_to_json(back.phases[i].a_to_b), direction_to_json(p.phases[i].a_to_b))
        << "phase " << i;
    EXPECT_EQ(direction_to_json(back.phases[i].b_to_a), direction_to_json(p.phases[i].b_to_a))
        << "phase " << i;
    EXPECT_EQ(back.phases[i].classes.size(), p.phases[i].classes.size());
    for (std::size_t c = 0; c < std::min(back.phases[i].classes.size(), p.phases[i].classes.size()); ++c) {
      EXPECT_EQ(direction_to_json(back.phases[i].classes[c].a_to_b),
                direction_to_json(p.phases[i].classes[c].a_to_b))
          << "phase " << i << " class " << c;
      EXPECT_EQ(direction_to_json(back.phases[i].classes[c].b_to_a),
                direction_to_json(p.phases[i].classes[c].b_to_a))
          << "phase " << i << " class " << c;
    }
  }
  return back;
}

TEST(ProfileWriter, ShippedProfilesReadBackUnchanged) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string{GW_SOURCE_DIR} + "/profiles/wan")) {
    if (e.path().extension() == ".json") {
      SCOPED_TRACE(e.path().string());
      round_trip(read_json_file(e.path().string()), e.path().string());
      ++n;
    }
  }
  EXPECT_GT(n, 0);
}

TEST(ProfileWriter, EverySettingReadsBack) {
  const json doc = json::parse(R"({
    "gradwall": "profile/v1", "name": "rich", "description": "every stage", "seed": 7,
    "a_to_b": {
      "limit_packets": 5000,
      "delay": {"delay_ms": 40, "jitter_us": 1500, "correlation": 0.25, "distribution": "normal"},
      "reorder": {"p": 0.01, "correlation": 0.5, "gap": 5},
      "loss": {"model": "state", "p13": 0.01, "p31": 0.5, "p23": 0.9, "ecn": true},
      "duplicate": {"p": 0.001},
      "corrupt": {"p": 0.0001, "correlation": 0.1},
      "rate": {"rate_mbps": 250, "packet_overhead_bytes": -4, "cell_bytes": 48, "cell_overhead_bytes": 5},
      "queue": {"limit_packets": 300, "limit_bytes": 1000000, "limit_time_ms": 50,
                "aqm": {"kind": "red", "min_bytes": 30000, "max_p": 0.2, "gentle": false, "ecn": true},
                "int": {"node_id": 3}},
      "microbursts": [{"period_ms": 10, "start_us": 250, "burst_bytes": 64000, "packet_bytes": 9000,
                       "jitter_us": 500, "burst_rate_gbps": 10}],
      "slot": {"min_delay_us": 800, "max_delay_ms": 2, "max_packets": 20, "max_bytes": 64000}
    },
    "b_to_a": {
      "delay": {"distance_km": 1234.5, "reorder_policy": "preserve"},
      "queue": {"aqm": {"kind": "dualpi2", "target_ms": 5, "coupling_k": 3, "c_ecn": false}},
      "incast": {"buffer_bytes": 4000000, "alpha": 0.5,
                 "ports": [{"match": "198.18.0.2/32", "rate_gbps": 100}, {"match": "198.18.0.0/24", "rate_mbps": 400}],
                 "bursts": [{"to": "198.18.0.2", "senders": 32, "bytes_each": 131072, "start_ms": 1,
                             "period_ms": 10, "sender_rate_gbps": 25}]},
      "slot": {"distribution": "pareto", "delay_ms": 2, "jitter_us": 300}
    },
    "classes": [
      {"name": "roce",
       "match": {"dst": ["198.18.0.0/24", "2001:db8::/32"], "src": "10.0.0.1", "protocol": "udp", "dst_port": 4791,
                 "src_port": [1, 2], "roce": true, "roce_opcode": [129, 17], "roce_dest_qp": 77, "ecn": "ect0",
                 "dscp": 26},
       "a_to_b": {"queue": {"aqm": {"kind": "threshold", "kmin_bytes": 10000, "kmax_bytes": 40000, "pmax": 0.2}}}},
      {"name": "bulk", "match": {"protocol": 132},
       "a_to_b": {"queue": {"aqm": {"kind": "pie", "target_ms": 20, "alpha": 0.2, "max_burst_ms": 100}}},
       "b_to_a": {"queue": {"aqm": {"kind": "codel", "ecn": true}}}}
    ],
    "phases": [
      {"at_s": 10, "name": "congested",
       "a_to_b": {"loss": {"model": "gemodel", "p": 0.002, "r": 0.2, "p13": null, "p31": null, "p23": null,
                           "ecn": null},
                  "slot": null}},
      {"at_ms": 20500,
       "b_to_a": {"queue": {"aqm": {"kind": "codel", "interval_ms": 200, "target_ms": null, "coupling_k": null,
                                    "c_ecn": null}}}}
    ]
  })");
  const Profile back = round_trip(doc);
  ASSERT_EQ(back.classes.size(), 2U);
  EXPECT_EQ(back.classes[0].match.dst.size(), 2U);
  EXPECT_EQ(back.classes[0].match.roce_opcodes, (std::vector<std::uint8_t>{129, 17}));
  EXPECT_EQ(back.classes[1].match.protocol, 132);
  EXPECT_EQ(back.phases[0].a_to_b.loss->model, LossModel::kGemodel);
  EXPECT_FALSE(back.phases[0].a_to_b.slot);
  EXPECT_EQ(back.phases[1].b_to_a.queue->aqm.codel.interval, Duration{200'000'000});
  EXPECT_EQ(back.b_to_a.delay->distance_km, 1234.5);
}

TEST(ProfileWriter, PhasesOfAOneDirectionProfileKeepDivergingDirections) {
  // With one direction at the top, a phase's lone a_to_b patch applies to both directions;
  // a phase that changes only one of them must be written with both patches.
  const json doc = json::parse(R"({
    "gradwall": "profile/v1", "name": "one",
    "a_to_b": {"delay": {"delay_ms": 10}},
    "phases": [
      {"at_ms": 100, "a_to_b": {"delay": {"delay_ms": 20}}},
      {"at_ms": 200, "a_to_b": {"loss": {"p": 0.01}}, "b_to_a": {}},
      {"at_ms": 300, "a_to_b": {"delay": {"delay_ms": 30}}}
    ]
  })");
  const Profile back = round_trip(doc);
  ASSERT_EQ(back.phases.size(), 3U);
  EXPECT_TRUE(back.phases[1].a_to_b.loss);
  EXPECT_FALSE(back.phases[1].b_to_a.loss);
  EXPECT_EQ(back.phases[2].b_to_a.delay->delay, Duration{30'000'000});
  const json written = profile_to_json(back);
  EXPECT_FALSE(written.contains("b_to_a"));
  EXPECT_FALSE(written["phases"][0].contains("b_to_a"));
  EXPECT_TRUE(written["phases"][1].contains("b_to_a"));
}

TEST(ProfileWriter, WritesExactReadableUnitsAndLeavesDefaultsOut) {
  DirectionSpec d;
  d.delay = DelaySettings{};
  d.delay->delay = Duration{1'500'000};
  d.delay->jitter = Duration{1'234};
  d.rate = RateSettings{};
  d.rate->rate = BitRate{2'500'000'000};
  d.loss = LossSettings{};
  d.loss->model = LossModel::kGemodel;
  d.loss->ge_p = 0.01;
  d.loss->ge_r = 1 - 0.01;
  const json j = direction_to_json(d);
  EXPECT_EQ(j, json::parse(R"({
    "delay": {"delay_us": 1500, "jitter_ns": 1234},
    "rate": {"rate_mbps": 2500},
    "loss": {"model": "gemodel", "p": 0.01}
  })"));
  d.rate->rate = BitRate{1'000'000'001};
  EXPECT_EQ(direction_to_json(d)["rate"], json::parse(R"({"rate_bps": 1000000001})"));
}

}  // namespace
}  // namespace gw
