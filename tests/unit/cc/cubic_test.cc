// CUBIC mechanics against RFC 9438's formulas (§4.2 eq. 1-2, §4.6, §4.7).
#include "generators/cc/cubic.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/unit/cc/cc_driver.h"

namespace gw::cc {
namespace {

constexpr std::uint32_t kMss = 1000;
constexpr Duration kRtt{100'000'000};

Cubic cubic_at(std::uint64_t cwnd_packets, CubicSettings s = {}) {
  s.initial_cwnd_packets = cwnd_packets;
  CcContext c;
  c.mss_bytes = kMss;
  return Cubic(c, s);
}

TEST(Cubic, LossSetsWmaxBetaAndK) {
  Cubic cubic = cubic_at(100);
  test::Driver d(cubic, kMss);
  cubic.on_loss(LossEvent{d.now(), kMss, 99 * kMss, false});
  EXPECT_DOUBLE_EQ(cubic.w_max(), 100.0);
  EXPECT_DOUBLE_EQ(cubic.cwnd_segments(), 70.0);
  EXPECT_DOUBLE_EQ(cubic.ssthresh_segments(), 70.0);
  d.round();  // the first congestion-avoidance ACK opens the epoch
  EXPECT_NEAR(cubic.k_seconds(), std::cbrt(100.0 * (1.0 - 0.7) / 0.4), 1e-12);
}

TEST(Cubic, WindowFollowsCubicFunctionAfterLoss) {
  // W_max = 1000 segments at RTT 100 ms: K = cbrt(1000 x 0.3 / 0.4) = 9.1 s, and the
  // Reno-friendly estimate (0.53 segment per RTT) stays far below W_cubic throughout.
  Cubic cubic = cubic_at(1000);
  test::Driver d(cubic, kMss);
  cubic.on_loss(LossEvent{d.now(), kMss, 999 * kMss, false});
  // The episode ends at the last ACK of the window in flight, which opens the epoch.
  d.round(test::RoundSpec{.rtt = kRtt, .packets = 999});
  const Instant epoch = d.now() - Duration{1};
  for (int r = 0; r < 120; ++r) {
    d.round(test::RoundSpec{.rtt = kRtt});
    const double t = std::chrono::duration<double>(d.now() - epoch).count();
    // After the ACKs at time t the window has caught up with W(t) and not overshot the target
    // it chases, W(t + RTT) (§4.4); tolerance: one ACK's growth (one segment).
    const double w = cubic.cwnd_segments();
    ASSERT_GE(w, std::max(cubic.w_cubic(t), 700.0) - 1.0) << "round " << r;
    ASSERT_LE(w, cubic.w_cubic(t + 0.1) + 1.0) << "round " << r;
  }
  EXPECT_GT(cubic.cwnd_segments(), 1000.0);  // past K: the convex region
}

TEST(Cubic, FastConvergenceReleasesBandwidthWhenWindowShrinks) {
  Cubic cubic = cubic_at(100);
  test::Driver d(cubic, kMss);
  cubic.on_loss(LossEvent{d.now(), kMss, 99 * kMss, false});
  d.round(test::RoundSpec{.rtt = kRtt, .packets = 99});
  d.round();
  const double w = cubic.cwnd_segments();
  ASSERT_LT(w, 100.0);
  cubic.on_loss(LossEvent{d.now(), kMss, 0, false});
  EXPECT_DOUBLE_EQ(cubic.w_max(), w * (1.0 + 0.7) / 2.0);  // RFC 9438 §4.7
  EXPECT_DOUBLE_EQ(cubic.cwnd_segments(), w * 0.7);
}

TEST(Cubic, WithoutFastConvergenceWmaxIsTheWindowAtLoss) {
  CubicSettings s;
  s.fast_convergence = false;
  Cubic cubic = cubic_at(100, s);
  test::Driver d(cubic, kMss);
  cubic.on_loss(LossEvent{d.now(), kMss, 99 * kMss, false});
  d.round(test::RoundSpec{.rtt = kRtt, .packets = 99});
  d.round();
  const double w = cubic.cwnd_segments();
  cubic.on_loss(LossEvent{d.now(), kMss, 0, false});
  EXPECT_DOUBLE_EQ(cubic.w_max(), w);
}

TEST(Cubic, RenoFriendlyRegionGrowsAtAlphaCubicPerRoundTrip) {
  // A tiny C makes W_cubic flat, so the Reno-friendly estimate drives the window:
  // alpha_cubic = 3 (1 - 0.7) / 1.7 segments per RTT (§4.3).
  CubicSettings s;
  s.c = 1e-6;
  Cubic cubic = cubic_at(100, s);
  test::Driver d(cubic, kMss);
  cubic.on_loss(LossEvent{d.now(), kMss, 99 * kMss, false});
  d.round(test::RoundSpec{.rtt = kRtt, .packets = 99});
  const double w0 = cubic.cwnd_segments();
  for (int r = 0; r < 10; ++r) {
    d.round(test::RoundSpec{.rtt = kRtt, .packets = 70});
  }
  const double alpha = 3.0 * 0.3 / 1.7;
  EXPECT_NEAR(cubic.cwnd_segments() - w0, 10 * alpha, 0.5);  // 70 ACKs of 1/cwnd each per RTT
}

}  // namespace
}  // namespace gw::cc
