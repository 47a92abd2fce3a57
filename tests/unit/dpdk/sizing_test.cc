// The mbuf pool's size from a profile (emulator/dpdk/sizing.h): rate x longest hold / full
// frame + queue limits, per direction, largest over classes and phases.
#include "emulator/dpdk/sizing.h"

#include <gtest/gtest.h>

#include "emulator/engine/profile.h"

namespace gw {
namespace {

Profile profile(const std::string& directions) {
  return parse_profile(
      nlohmann::json::parse(R"({"gradwall": "profile/v1", "name": "t", )" + directions + "}"), "test.json");
}

constexpr BitRate kHundredGig{100'000'000'000ULL};

TEST(MbufPoolSizing, AProfileHoldingNothingGetsTheMinimum) {
  const PoolSizing s = size_mbuf_pool(profile(R"("a_to_b": {})"), kHundredGig, 5000);
  EXPECT_EQ(s.in_flight_a_to_b, 1U);
  EXPECT_EQ(s.mbufs, kMinMbufs);
}

TEST(MbufPoolSizing, HundredGigabitTimesHundredMillisecondsOfFullFrames) {
  // 100e9 / 8 B/s x 0.1 s = 1.25e9 B = 812,743 frames of 1538 B (+1), each way.
  const PoolSizing s =
      size_mbuf_pool(profile(R"("a_to_b": {"delay": {"delay_ms": 100}})"), kHundredGig, 5000);
  EXPECT_EQ(s.in_flight_a_to_b, 812'744U);
  EXPECT_EQ(s.in_flight_b_to_a, 812'744U);  // b_to_a omitted = the same as a_to_b
  EXPECT_EQ(s.mbufs, 2U * 812'744U + 5000U);
}

TEST(MbufPoolSizing, TheStageRateWinsOverTheLinkAndQueueLimitsAdd) {
  const PoolSizing s = size_mbuf_pool(profile(R"("a_to_b": {"rate": {"rate_gbps": 1},
      "queue": {"limit_packets": 1000}, "delay": {"delay_ms": 100}}, "b_to_a": {})"),
                                      kHundredGig, 0);
  EXPECT_EQ(s.in_flight_a_to_b, 8127U + 1000U + 1U);  // 1e9 / 8 x 0.1 / 1538 = 8127.4
  EXPECT_EQ(s.in_flight_b_to_a, 1U);
}

TEST(MbufPoolSizing, JitterCountsFourTimesAndDuplicatesScale) {
  // 10 Gbit/s link: (10 ms + 4 x 5 ms) = 30 ms -> 24,382 frames; x 1.5 for duplicate p = 0.5.
  const PoolSizing s = size_mbuf_pool(
      profile(
          R"("a_to_b": {"delay": {"delay_ms": 10, "jitter_ms": 5}, "duplicate": {"p": 0.5}}, "b_to_a": {})"),
      BitRate{10'000'000'000ULL}, 0);
  EXPECT_EQ(s.in_flight_a_to_b, static_cast<std::uint64_t>(24'382 * 1.5) + 1);
}

TEST(MbufPoolSizing, TheLongestPhaseOrClassSetsTheSize) {
  const PoolSizing s = size_mbuf_pool(profile(R"("a_to_b": {"delay": {"delay_ms": 1}}, "b_to_a": {},
                 "phases": [{"at_s": 5, "name": "long", "a_to_b": {"delay": {"delay_ms": 100}}}])"),
                                      BitRate{10'000'000'000ULL}, 0);
  EXPECT_EQ(s.in_flight_a_to_b, 81'274U + 1);
}

TEST(MbufPoolSizing, AnUnknownLinkSpeedCountsAsTenGigabit) {
  const PoolSizing s = size_mbuf_pool(profile(R"("a_to_b": {"delay": {"delay_ms": 100}})"), BitRate{0}, 0);
  EXPECT_EQ(s.in_flight_a_to_b, 81'274U + 1);
}

TEST(MbufPoolSizing, MebibytesRoundUpAndKeepSixteenForHeaders) {
  EXPECT_EQ(pool_mib(0, 2432), 16U);
  EXPECT_EQ(pool_mib(1, 2432), 17U);
  EXPECT_EQ(pool_mib(1'630'488, 2432), 3782U + 16U);
}

}  // namespace
}  // namespace gw
