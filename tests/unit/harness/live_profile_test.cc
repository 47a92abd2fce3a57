// The live emulator's profile for a route with several paths (harness/live/live_profile.h):
// one class per path on its source ports, each direction its links in series, the links'
// phases merged; and what check_live_scenario refuses.
#include "harness/live/live_profile.h"

#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/rng.h"
#include "emulator/engine/profile.h"
#include "emulator/engine/profile_writer.h"
#include "emulator/fabric/path_ports.h"
#include "harness/live/live_runner.h"

namespace gw {
namespace {

nlohmann::json two_paths() {
  return nlohmann::json::parse(R"({
    "gradwall": "scenario/v1", "name": "p", "seed": 3,
    "topology": {
      "regions": [ {"name": "west", "hosts": 1, "nic_rate": "1Gbit"}, {"name": "east", "hosts": 1, "nic_rate": "1Gbit"} ],
      "relays": [ {"name": "pop"} ],
      "wan": [ {"between": ["west", "east"], "netem": "delay 20ms rate 100Mbit",
                "phases": [ {"at": "2s", "netem": "delay 20ms rate 20Mbit"} ]},
               {"between": ["pop", "west"], "netem": "delay 8ms rate 50Mbit loss 1%"},
               {"between": ["pop", "east"], "netem": "delay 12ms loss 2%"} ],
      "routes": [ {"from": "west", "to": "east", "paths": [ {"via": []}, {"via": ["pop"]} ]} ] },
    "workload": { "kind": "flows", "duration": "1s", "flows": [ {"from": "west", "to": "east"} ] },
    "transport": { "mtu": 1400 } })");
}

TEST(LiveProfile, OneClassPerPathOnItsPortsWithItsLinksInSeries) {
  const Scenario s = parse_scenario(two_paths(), "p.json");
  const Profile p = emu_profile(s);
  ASSERT_EQ(p.classes.size(), 2U);
  for (std::uint32_t k = 0; k < 2; ++k) {
    const ClassMatch& m = p.classes[k].match;
    EXPECT_EQ(p.classes[k].name, path_class_name(k));
    ASSERT_EQ(m.src_ports.size(), 1U);
    EXPECT_EQ(m.src_ports[0].first, fabric::path_port(k, 0));
    EXPECT_EQ(m.src_ports[0].last, fabric::path_port(k, fabric::kPathPortSpan - 1));
    EXPECT_EQ(*m.protocol, 17);
  }
  // The relay path: 8 + 12 ms, 50 Mbit/s (the pop link, written pop -> west: its b_to_a),
  // loss 1 - 0.99 x 0.98, both ways.
  for (const DirectionSpec* d : {&p.classes[1].a_to_b, &p.classes[1].b_to_a}) {
    EXPECT_EQ(d->delay->delay, Duration{20'000'000});
    EXPECT_EQ(d->rate->rate.bps, 50'000'000U);
    EXPECT_NEAR(d->loss->p, 1 - 0.99 * 0.98, 1e-9);
  }
  // Unmatched traffic (a ping) takes path 0's settings; the direct link's phase is the profile's.
  EXPECT_EQ(p.a_to_b.rate->rate.bps, 100'000'000U);
  ASSERT_EQ(p.phases.size(), 1U);
  EXPECT_EQ(p.phases[0].at, Duration{2'000'000'000});
  EXPECT_EQ(p.phases[0].classes[0].a_to_b.rate->rate.bps, 20'000'000U);
  EXPECT_EQ(p.phases[0].classes[1].a_to_b.rate->rate.bps, 50'000'000U);
  // What the emulator reads back is the same profile.
  const Profile back = parse_profile(profile_to_json(p), "emu-profile.json");
  ASSERT_EQ(back.classes.size(), 2U);
  EXPECT_EQ(back.classes[1].b_to_a.delay->delay, Duration{20'000'000});
  EXPECT_EQ(back.classes[1].match.src_ports, p.classes[1].match.src_ports);
  EXPECT_EQ(back.phases[0].classes[0].b_to_a.rate->rate.bps, 20'000'000U);
  EXPECT_NO_THROW(check_live_scenario(s));
}

// Common random numbers: each direction of the emulator draws from the seed the simulator gives
// that direction's WAN hop (emulator/fabric/network.cc: the scenario's seed ^ the hop's name).
TEST(LiveProfile, EachDirectionSeededAsTheSimulatorsHop) {
  nlohmann::json doc = two_paths();
  doc["topology"]["relays"] = nlohmann::json::array();
  doc["topology"]["wan"] = {{{"between", {"west", "east"}}, {"netem", "delay 20ms loss 1%"}}};
  doc["topology"].erase("routes");
  const Scenario s = parse_scenario(doc, "p.json");
  const Profile p = emu_profile(s);
  EXPECT_EQ(p.seed, 3 ^ hash_name("wan west->east"));
  ASSERT_TRUE(p.seed_b_to_a.has_value());
  EXPECT_EQ(*p.seed_b_to_a, 3 ^ hash_name("wan east->west"));
  EXPECT_EQ(parse_profile(profile_to_json(p), "emu-profile.json").seed_b_to_a, p.seed_b_to_a);
}

void expect_refused(const nlohmann::json& doc, const std::string& path, const std::string& words) {
  try {
    check_live_scenario(parse_scenario(doc, "p.json"));
    ADD_FAILURE() << "accepted; wanted " << path;
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find(words), std::string::npos) << what;
  }
}

TEST(LiveProfile, CheckLiveScenarioRefusesWhatTheBenchCannotCarry) {
  nlohmann::json jitter = two_paths();
  jitter["topology"]["wan"][1]["netem"] = "delay 8ms 1ms rate 50Mbit";
  jitter["topology"]["wan"][2]["netem"] = "delay 12ms 1ms";
  expect_refused(jitter, "$.routes", "jitter");
  nlohmann::json spare = two_paths();
  spare["topology"]["relays"].push_back({{"name", "spare"}});
  spare["topology"]["wan"].push_back({{"between", {"spare", "east"}}, {"netem", "delay 1ms"}});
  expect_refused(spare, "$.topology.wan[3]", "on none of them");
  nlohmann::json spray = two_paths();
  spray["controller"] = {{"policy", "te"}, {"spray", true}};
  expect_refused(spray, "$.controller.spray", "simulator only");
  nlohmann::json fast = two_paths();
  fast["controller"] = {{"policy", "te"}, {"interval", "10ms"}};
  expect_refused(fast, "$.controller.interval", "every 20 ms");
}

}  // namespace
}  // namespace gw
