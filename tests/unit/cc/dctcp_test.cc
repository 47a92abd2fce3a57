// DCTCP's estimator and reaction (RFC 8257 §3.3), checked against the exact recursion.
#include "generators/cc/dctcp.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/unit/cc/cc_driver.h"

namespace gw::cc {
namespace {

constexpr std::uint32_t kMss = 1000;

CcContext ctx() {
  CcContext c;
  c.mss_bytes = kMss;
  return c;
}

TEST(Dctcp, AlphaFollowsEwmaOfMarkedFractionPerWindow) {
  DctcpSettings s;
  s.initial_cwnd_packets = 100;
  Dctcp dctcp(ctx(), s);
  test::Driver d(dctcp, kMss);
  const double g = 1.0 / 16.0;
  const double f = 0.25;  // every 4th packet of every 20-packet window
  double expected = 1.0;  // RFC 8257: alpha starts at 1
  for (int n = 1; n <= 40; ++n) {
    d.round(test::RoundSpec{.packets = 20, .ce = [](std::uint64_t i) { return i % 4 == 3; }});
    expected = (1.0 - g) * expected + g * f;
    ASSERT_NEAR(dctcp.alpha(), expected, 1e-12) << "window " << n;
  }
  // Closed form of the recursion: alpha_n = F + (1 - g)^n (alpha_0 - F).
  EXPECT_NEAR(dctcp.alpha(), f + std::pow(1.0 - g, 40) * (1.0 - f), 1e-12);
}

TEST(Dctcp, CutIsOneMinusHalfAlphaAtMostOncePerWindow) {
  DctcpSettings s;
  s.initial_cwnd_packets = 100;
  s.initial_alpha = 0.5;
  Dctcp dctcp(ctx(), s);
  test::Driver d(dctcp, kMss);
  // Every packet of the window is marked: only the first CE ACK cuts.
  d.round(test::RoundSpec{.packets = 100, .ce = [](std::uint64_t) { return true; }});
  EXPECT_EQ(dctcp.cwnd_bytes(), 75 * kMss);  // 100 (1 - 0.5 / 2)
  // Next window, alpha = 15/16 0.5 + 1/16 1 after the all-marked window.
  const double alpha = dctcp.alpha();
  EXPECT_NEAR(alpha, 0.5 * 15.0 / 16.0 + 1.0 / 16.0, 1e-12);
  d.round(test::RoundSpec{.packets = 75, .ce = [](std::uint64_t i) { return i == 0; }});
  EXPECT_EQ(dctcp.cwnd_bytes(), static_cast<std::uint64_t>(75 * kMss * (1.0 - alpha / 2.0)));
}

TEST(Dctcp, GrowsLikeRenoWithoutMarks) {
  DctcpSettings s;
  s.initial_cwnd_packets = 10;
  Dctcp dctcp(ctx(), s);
  test::Driver d(dctcp, kMss);
  d.round();
  EXPECT_EQ(dctcp.cwnd_bytes(), 20 * kMss);
}

TEST(Dctcp, LossHalvesWindowOncePerEpisode) {
  DctcpSettings s;
  s.initial_cwnd_packets = 40;
  Dctcp dctcp(ctx(), s);
  dctcp.on_loss(LossEvent{kEpoch, kMss, 39 * kMss, false});
  dctcp.on_loss(LossEvent{kEpoch, kMss, 38 * kMss, false});
  EXPECT_EQ(dctcp.cwnd_bytes(), 20 * kMss);
}

}  // namespace
}  // namespace gw::cc
