// Swift (Kumar et al. SIGCOMM 2020, Algorithm 1): AI below target, bounded MD at most once per RTT.
#include "generators/cc/swift.h"

#include <gtest/gtest.h>

namespace gw::cc {
namespace {

constexpr std::uint32_t kMss = 1000;

Swift make(double cwnd, SwiftSettings s = {}) {
  s.initial_cwnd = cwnd;
  s.fs_range = Duration{0};  // no flow-scaling term: target = 25 + 1 x hops us
  CcContext c;
  c.mss_bytes = kMss;
  c.base_rtt_hint = Duration{20'000};
  return Swift(c, s);
}

AckEvent ack(Instant now, double delay_us) {
  AckEvent a;
  a.now = now;
  a.acked_bytes = kMss;
  a.rtt = Duration{static_cast<std::int64_t>(delay_us * 1000)};
  return a;
}

TEST(Swift, AdditiveIncreaseBelowTarget) {
  Swift s = make(10);
  s.on_ack(ack(kEpoch, 20));
  EXPECT_DOUBLE_EQ(s.cwnd_packets(), 10.0 + 1.0 / 10.0);
}

TEST(Swift, DecreaseFollowsDelayOverTargetAtMostOncePerRtt) {
  Swift s = make(10);
  // target 26 us (25 + 1 hop); delay 40 us: factor 1 - 0.8 (40 - 26) / 40 = 0.72.
  s.on_ack(ack(kEpoch + Duration{1'000'000}, 40));
  EXPECT_NEAR(s.cwnd_packets(), 10.0 * 0.72, 1e-9);
  const double after = s.cwnd_packets();
  for (int i = 1; i <= 5; ++i) {  // within one RTT (srtt ~ 20-40 us): no further decrease
    s.on_ack(ack(kEpoch + Duration{1'000'000 + i * 1'000}, 40));
  }
  EXPECT_DOUBLE_EQ(s.cwnd_packets(), after);
  s.on_ack(ack(kEpoch + Duration{2'000'000}, 40));  // an RTT later: decreases again
  EXPECT_NEAR(s.cwnd_packets(), after * 0.72, 1e-9);
}

TEST(Swift, DecreaseIsBoundedByMaxMdf) {
  Swift s = make(10);
  s.on_ack(ack(kEpoch + Duration{1'000'000}, 10'000));  // 1 - 0.8 x ~1 < 1 - 0.5
  EXPECT_DOUBLE_EQ(s.cwnd_packets(), 5.0);
}

TEST(Swift, PacesWhenWindowBelowOnePacket) {
  Swift s = make(0.5);
  EXPECT_EQ(s.cwnd_bytes(), kMss);
  // 0.5 x 1000 B x 8 / 20 us = 200 Mbit/s
  EXPECT_NEAR(static_cast<double>(s.pacing_rate().bps), 200e6, 1.0);
  EXPECT_EQ(make(2).pacing_rate().bps, 0U);
}

TEST(Swift, TargetGrowsWithHopsAndShrinksWithWindow) {
  SwiftSettings st;
  CcContext c;
  c.mss_bytes = kMss;
  st.initial_cwnd = 1;
  const Swift small(c, st);
  st.initial_cwnd = 100;
  const Swift large(c, st);
  EXPECT_EQ(large.target_delay(3) - large.target_delay(1), Duration{2'000});
  EXPECT_EQ(large.target_delay(1), Duration{26'000});  // fs is 0 at fs_max_cwnd
  EXPECT_GT(small.target_delay(1), large.target_delay(1));
  EXPECT_LE(small.target_delay(1), Duration{126'000});  // bounded by fs_range
}

}  // namespace
}  // namespace gw::cc
