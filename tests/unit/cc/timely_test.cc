// TIMELY's three regions (Mittal et al. SIGCOMM 2015, Algorithm 1).
#include "generators/cc/timely.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace gw::cc {
namespace {

constexpr double kStart = 5e9;

struct Feed {
  Timely& t;
  Instant now = kEpoch;
  // One RTT sample, one RTT after the previous (the minimum update interval).
  void rtt_us(double us) {
    const Duration r{static_cast<std::int64_t>(us * 1000)};
    now += std::max(r, Duration{1'000'000});
    AckEvent a;
    a.now = now;
    a.acked_bytes = 1000;
    a.rtt = r;
    t.on_ack(a);
  }
};

Timely make(TimelySettings s = {}) {
  s.initial_rate_bps = kStart;
  s.min_rtt = Duration{20'000};  // the paper's table value, for exact gradients
  CcContext c;
  c.line_rate_bps = 100'000'000'000ULL;
  return Timely(c, s);
}

TEST(Timely, BelowTLowAddsDelta) {
  Timely t = make();
  Feed f{t};
  f.rtt_us(30);  // the first sample only starts the gradient
  f.rtt_us(30);
  EXPECT_DOUBLE_EQ(t.rate_bps(), kStart + 10e6);
  EXPECT_EQ(t.last_region(), Timely::Region::kBelowTLow);
}

TEST(Timely, AboveTHighCutsByHighFormula) {
  Timely t = make();
  Feed f{t};
  f.rtt_us(1000);
  f.rtt_us(1000);
  EXPECT_DOUBLE_EQ(t.rate_bps(), kStart * (1.0 - 0.8 * (1.0 - 500.0 / 1000.0)));
  EXPECT_EQ(t.last_region(), Timely::Region::kAboveTHigh);
}

TEST(Timely, PositiveGradientCutsByBetaTimesNormalizedGradient) {
  Timely t = make();
  Feed f{t};
  f.rtt_us(100);
  f.rtt_us(110);  // new diff +10 us; rtt_diff = 0.875 x 10 us
  const double gradient = 0.875 * 10.0 / 20.0;
  EXPECT_NEAR(t.rate_bps(), kStart * (1.0 - 0.8 * gradient), 1.0);
  EXPECT_EQ(t.last_region(), Timely::Region::kGradientDecrease);
}

TEST(Timely, NegativeGradientAddsDeltaThenHyperAdditiveAfterFive) {
  Timely t = make();
  Feed f{t};
  f.rtt_us(300);
  double expected = kStart;
  for (int i = 1; i <= 7; ++i) {
    f.rtt_us(300 - i);  // falling RTT: gradient < 0
    expected += (i >= 5 ? 5.0 : 1.0) * 10e6;
    EXPECT_DOUBLE_EQ(t.rate_bps(), expected) << "update " << i;
  }
}

TEST(Timely, UpdatesAtMostOncePerRttSample) {
  Timely t = make();
  AckEvent a;
  a.rtt = Duration{30'000};
  a.now = kEpoch;
  t.on_ack(a);
  a.now += Duration{10'000};  // a third of an RTT later: ignored
  t.on_ack(a);
  EXPECT_DOUBLE_EQ(t.rate_bps(), kStart);
  a.now += Duration{20'000};
  t.on_ack(a);
  EXPECT_DOUBLE_EQ(t.rate_bps(), kStart + 10e6);
}

}  // namespace
}  // namespace gw::cc
