// DCQCN reaction point (Zhu et al. SIGCOMM 2015 §3.1): cut, alpha decay, increase stages.
#include "generators/cc/dcqcn.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gw::cc {
namespace {

constexpr double kLine = 100e9;
constexpr Duration kPeriod{55'000};

Dcqcn make(DcqcnSettings s = {}) {
  CcContext c;
  c.line_rate_bps = static_cast<std::uint64_t>(kLine);
  return Dcqcn(c, s);
}

TEST(Dcqcn, StartsAtLineRateWithUnlimitedWindow) {
  Dcqcn d = make();
  EXPECT_EQ(d.pacing_rate().bps, 100'000'000'000ULL);
  EXPECT_EQ(d.cwnd_bytes(), Dcqcn::kUnlimitedCwnd);
  EXPECT_EQ(d.next_timer(), kNever);
}

TEST(Dcqcn, CnpCutsRateByHalfAlphaAndRaisesAlpha) {
  DcqcnSettings s;
  s.initial_alpha = 0.5;
  Dcqcn d = make(s);
  d.on_cnp(kEpoch);
  EXPECT_DOUBLE_EQ(d.target_rate_bps(), kLine);
  EXPECT_DOUBLE_EQ(d.current_rate_bps(), kLine * 0.75);
  EXPECT_DOUBLE_EQ(d.alpha(), 0.5 * 255.0 / 256.0 + 1.0 / 256.0);
}

TEST(Dcqcn, AlphaDecaysEveryPeriodWithoutCnp) {
  DcqcnSettings s;
  s.initial_alpha = 0.5;
  Dcqcn d = make(s);
  d.on_cnp(kEpoch);
  const double a0 = d.alpha();
  EXPECT_EQ(d.next_timer(), kEpoch + kPeriod);
  d.on_timer(kEpoch + kPeriod);
  EXPECT_DOUBLE_EQ(d.alpha(), a0 * 255.0 / 256.0);
  d.on_timer(kEpoch + 3 * kPeriod);  // a late call catches up both periods
  EXPECT_NEAR(d.alpha(), a0 * std::pow(255.0 / 256.0, 3), 1e-15);
}

TEST(Dcqcn, FastRecoveryStagesThenAdditiveIncrease) {
  Dcqcn d = make();  // alpha 1: each CNP halves
  d.on_cnp(kEpoch);
  d.on_cnp(kEpoch);  // R_T = 50 G, R_C = 25 G
  ASSERT_DOUBLE_EQ(d.target_rate_bps(), 50e9);
  ASSERT_DOUBLE_EQ(d.current_rate_bps(), 25e9);
  double rc = 25e9;
  for (int stage = 1; stage <= 5; ++stage) {  // F = 5 fast-recovery events: R_T fixed
    d.on_timer(kEpoch + stage * kPeriod);
    rc = (50e9 + rc) / 2.0;
    EXPECT_DOUBLE_EQ(d.current_rate_bps(), rc) << "stage " << stage;
    EXPECT_DOUBLE_EQ(d.target_rate_bps(), 50e9);
    EXPECT_EQ(d.state().phase, "fast_recovery");
  }
  d.on_timer(kEpoch + 6 * kPeriod);  // then additive: R_T += R_AI (40 Mbit/s)
  EXPECT_DOUBLE_EQ(d.target_rate_bps(), 50e9 + 40e6);
  EXPECT_DOUBLE_EQ(d.current_rate_bps(), (50e9 + 40e6 + rc) / 2.0);
  EXPECT_EQ(d.state().phase, "additive_increase");
}

TEST(Dcqcn, ByteCounterAndTimerTogetherReachHyperIncrease) {
  DcqcnSettings s;
  s.byte_counter = 1000;
  Dcqcn d = make(s);
  d.on_cnp(kEpoch);
  d.on_cnp(kEpoch);
  for (int i = 1; i <= 7; ++i) {
    d.on_timer(kEpoch + i * kPeriod);
    d.on_packet_sent(SentEvent{kEpoch + i * kPeriod, 1000, 0, false});
  }
  // Both counts exceed F = 5: R_T grows by (min - F) x R_HAI per event.
  EXPECT_EQ(d.state().phase, "hyper_increase");
}

TEST(Dcqcn, ReturnsToLineRateAndParksTimers) {
  Dcqcn d = make();
  d.on_cnp(kEpoch);
  for (int i = 1; i < 200 && d.next_timer() != kNever; ++i) {
    d.on_timer(kEpoch + i * kPeriod);
  }
  EXPECT_DOUBLE_EQ(d.current_rate_bps(), kLine);
  EXPECT_EQ(d.next_timer(), kNever);
}

}  // namespace
}  // namespace gw::cc
