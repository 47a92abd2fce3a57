// DirectionEngine::passes_through / passed: when a direction does nothing to packets, the data
// plane forwards bursts without push() and counts them with passed(); the counters must then be
// exactly those push() leaves, and the engine must say "no" whenever push() could do anything
// (a stage, a class, a phase to come, a packet still held, a packet limit).
#include <gtest/gtest.h>

#include "emulator/engine/engine.h"
#include "emulator/engine/profile.h"
#include "tests/unit/engine/sink_for_tests.h"

namespace gw {
namespace {

using testing::CollectingSink;
using testing::udp_packet;

Profile profile(const char* json) {
  return parse_profile(nlohmann::json::parse(json), "pass.json");
}

TEST(PassThrough, EmptyDirectionCountsAsPush) {
  const Profile p = profile(R"({"gradwall": "profile/v1", "name": "e", "a_to_b": {}})");
  DirectionEngine pushed(p, Direction::kAToB);
  DirectionEngine passed(p, Direction::kAToB);
  ASSERT_TRUE(pushed.passes_through());
  CollectingSink sink;
  for (std::uint32_t i = 0; i < 5; ++i) {
    pushed.push(udp_packet(100 + i), at_ns(i), sink);
  }
  ASSERT_EQ(sink.delivered.size(), 5U);  // straight out, inside push()
  passed.passed(2, 201);
  passed.passed(3, 309);
  const PipelineCounters a = pushed.totals();
  const PipelineCounters b = passed.totals();
  EXPECT_EQ(a.packets_in, b.packets_in);
  EXPECT_EQ(a.bytes_in, b.bytes_in);
  EXPECT_EQ(a.delivered, b.delivered);
  EXPECT_EQ(a.bytes_delivered, b.bytes_delivered);
  EXPECT_EQ(a.reordered, b.reordered);
  EXPECT_EQ(b.packets_in, 5U);
  EXPECT_EQ(b.bytes_in, 510U);
  EXPECT_TRUE(pushed.passes_through());
  EXPECT_TRUE(passed.passes_through());
}

TEST(PassThrough, AnythingToDoSaysNo) {
  const char* cases[] = {
      R"({"gradwall": "profile/v1", "name": "d", "a_to_b": {"delay": {"delay_ms": 1}}})",
      R"({"gradwall": "profile/v1", "name": "l", "a_to_b": {"loss": {"p": 0.01}}})",
      R"({"gradwall": "profile/v1", "name": "r", "a_to_b": {"rate": {"rate_mbps": 100}}})",
      R"({"gradwall": "profile/v1", "name": "lim", "a_to_b": {"limit_packets": 10}})",
      R"({"gradwall": "profile/v1", "name": "c", "a_to_b": {},
          "classes": [{"name": "x", "match": {"roce": true}, "a_to_b": {"loss": {"p": 1}}}]})",
      R"({"gradwall": "profile/v1", "name": "ph", "a_to_b": {},
          "phases": [{"at_s": 1, "a_to_b": {"delay": {"delay_ms": 1}}}]})",
  };
  for (const char* c : cases) {
    const DirectionEngine e(profile(c), Direction::kAToB);
    EXPECT_FALSE(e.passes_through()) << c;
  }
}

TEST(PassThrough, NotWhileHeldPacketsRemain) {
  // A reload from a delay to nothing: the packets already delayed must leave first (order).
  DirectionEngine e(
      profile(R"({"gradwall": "profile/v1", "name": "d", "a_to_b": {"delay": {"delay_ms": 1}}})"),
      Direction::kAToB);
  CollectingSink sink;
  e.push(udp_packet(100), at_ns(0), sink);
  e.reconfigure(profile(R"({"gradwall": "profile/v1", "name": "e", "a_to_b": {}})"), at_ns(10));
  EXPECT_FALSE(e.passes_through());  // one packet still in the delay line
  e.advance(at_ns(1'000'000), sink);
  ASSERT_EQ(sink.delivered.size(), 1U);
  EXPECT_TRUE(e.passes_through());
}

}  // namespace
}  // namespace gw
