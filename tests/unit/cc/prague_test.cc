// Prague: ECT(1), DCTCP estimator, RTT-independent additive increase, pacing at gain x cwnd/srtt.
#include "generators/cc/prague.h"

#include <gtest/gtest.h>

#include "tests/unit/cc/cc_driver.h"

namespace gw::cc {
namespace {

constexpr std::uint32_t kMss = 1000;

Prague make(std::uint64_t cwnd_packets, Duration rtt) {
  CcContext c;
  c.mss_bytes = kMss;
  c.base_rtt_hint = rtt;
  PragueSettings s;
  s.initial_cwnd_packets = cwnd_packets;
  return Prague(c, s);
}

TEST(Prague, SendsEct1) {
  EXPECT_EQ(make(10, Duration{1'000'000}).ecn_mode(), CongestionControl::EcnMode::kEct1);
}

TEST(Prague, AdditiveIncreaseScalesWithSquaredRttBelowReference) {
  EXPECT_NEAR(make(10, Duration{5'000'000}).additive_increase(), 0.04, 1e-12);  // (5/25)^2
  EXPECT_NEAR(make(10, Duration{12'500'000}).additive_increase(), 0.25, 1e-12);
  EXPECT_DOUBLE_EQ(make(10, Duration{50'000'000}).additive_increase(), 1.0);
}

TEST(Prague, CeCutsByHalfAlphaAndLeavesSlowStart) {
  Prague p = make(100, Duration{25'000'000});
  AckEvent a;
  a.acked_bytes = kMss;
  a.ce_bytes = kMss;
  a.bytes_in_flight = 99 * kMss;
  a.rtt = Duration{25'000'000};
  p.on_ack(a);
  EXPECT_EQ(p.cwnd_bytes(), 50 * kMss);  // alpha starts at 1: 100 (1 - 1/2)
  EXPECT_EQ(p.state().phase, "congestion_avoidance");
}

TEST(Prague, PacedAtGainTimesWindowOverSrtt) {
  Prague p = make(100, Duration{10'000'000});
  // Slow start: 2 x 100 kB / 10 ms = 160 Mbit/s.
  EXPECT_NEAR(static_cast<double>(p.pacing_rate().bps), 160e6, 1.0);
  p.on_loss(LossEvent{kEpoch, kMss, 99 * kMss, false});
  // Congestion avoidance at 50 kB: 1.2 x 50 kB / 10 ms = 48 Mbit/s.
  EXPECT_NEAR(static_cast<double>(p.pacing_rate().bps), 48e6, 1.0);
}

TEST(Prague, LossFallsBackToRenoHalving) {
  Prague p = make(40, Duration{10'000'000});
  p.on_loss(LossEvent{kEpoch, kMss, 39 * kMss, false});
  p.on_loss(LossEvent{kEpoch, kMss, 38 * kMss, false});
  EXPECT_EQ(p.cwnd_bytes(), 20 * kMss);
}

}  // namespace
}  // namespace gw::cc
