// BBR state machine (draft-ietf-ccwg-bbr; v1 per tcp_bbr.c) driven by rounds of ACKs whose
// delivery-rate samples report a fixed bottleneck.
#include "generators/cc/bbr.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "tests/unit/cc/cc_driver.h"

namespace gw::cc {
namespace {

constexpr std::uint32_t kMss = 1000;
constexpr Duration kRtt{10'000'000};  // 10 ms
constexpr double kBw = 80e6;          // 80 Mbit/s: BDP = 100 kB = 100 packets

Bbr make(CcParams p = {}) {
  CcContext c;
  c.mss_bytes = kMss;
  c.line_rate_bps = 10'000'000'000ULL;
  return Bbr(c, BbrSettings::from(p));
}

test::RoundSpec at_bottleneck(std::uint64_t packets = 0, Duration rtt = kRtt) {
  return test::RoundSpec{.rtt = rtt, .packets = packets, .bw_bps = kBw};
}

// Runs rounds until BBR leaves Startup and Drain.
void to_probe_bw(Bbr& bbr, test::Driver& d) {
  for (int i = 0; i < 20 && bbr.mode() != Bbr::State::kProbeBw; ++i) {
    d.round(at_bottleneck(std::min<std::uint64_t>(bbr.cwnd_bytes() / kMss, 200)));
  }
  ASSERT_EQ(bbr.mode(), Bbr::State::kProbeBw);
}

TEST(Bbr, StartupExitsAfterThreeRoundsWithoutBandwidthGrowth) {
  Bbr bbr = make();
  test::Driver d(bbr, kMss);
  // The bandwidth is flat from the first round: round 1 sets full_bw, rounds 2-4 fail to grow
  // it by 25 %, and the third of those ends Startup.
  for (int round = 1; round <= 3; ++round) {
    d.round(at_bottleneck(10));
    EXPECT_EQ(bbr.mode(), Bbr::State::kStartup) << "round " << round;
  }
  d.round(at_bottleneck(10));
  EXPECT_TRUE(bbr.full_bw_reached());
  EXPECT_NE(bbr.mode(), Bbr::State::kStartup);
}

TEST(Bbr, StartupContinuesWhileBandwidthGrows) {
  Bbr bbr = make();
  test::Driver d(bbr, kMss);
  double bw = 1e6;
  for (int round = 1; round <= 8; ++round) {
    d.round(test::RoundSpec{.rtt = kRtt, .packets = 10, .bw_bps = bw});
    bw *= 1.3;
  }
  EXPECT_EQ(bbr.mode(), Bbr::State::kStartup);
  EXPECT_NEAR(bbr.pacing_gain(), 2.77, 1e-12);
}

TEST(Bbr, ProbeRttAfterFiveSecondsWithoutNewMinRttAtHalfBdp) {
  Bbr bbr = make();
  test::Driver d(bbr, kMss);
  to_probe_bw(bbr, d);
  const double bdp = bbr.bdp_bytes();
  ASSERT_NEAR(bdp, 100'000.0, 1.0);
  // RTT samples 1 ms above the minimum for 5 s: no new min_rtt.
  const Instant start = d.now();
  while (d.now() - start < Duration{4'900'000'000}) {
    d.round(at_bottleneck(100, kRtt + Duration{1'000'000}));
    ASSERT_NE(bbr.mode(), Bbr::State::kProbeRtt);
  }
  for (int i = 0; i < 20 && bbr.mode() != Bbr::State::kProbeRtt; ++i) {
    d.round(at_bottleneck(100, kRtt + Duration{1'000'000}));
  }
  EXPECT_EQ(bbr.mode(), Bbr::State::kProbeRtt);
  EXPECT_EQ(bbr.cwnd_bytes(), 50'000U);  // 0.5 BDP
  EXPECT_EQ(bbr.state().phase, "probe_rtt");
}

TEST(Bbr, V3ExitsStartupOnRoundWithMoreThanTwoPercentLoss) {
  Bbr bbr = make();
  test::Driver d(bbr, kMss);
  double bw = 1e6;
  d.round(test::RoundSpec{.rtt = kRtt, .packets = 100, .bw_bps = bw});
  d.round(test::RoundSpec{.rtt = kRtt, .packets = 100, .lost = 1, .bw_bps = bw *= 1.5});  // 1 %
  EXPECT_EQ(bbr.mode(), Bbr::State::kStartup);
  d.round(test::RoundSpec{.rtt = kRtt, .packets = 100, .lost = 5, .bw_bps = bw *= 1.5});  // 5 %
  d.round(test::RoundSpec{.rtt = kRtt, .packets = 100, .bw_bps = bw *= 1.5});
  EXPECT_TRUE(bbr.full_bw_reached());
  EXPECT_GT(bbr.inflight_hi(), 0.0);
}

TEST(Bbr, V1IgnoresLoss) {
  Bbr bbr = make(CcParams{{"version", 1}});
  test::Driver d(bbr, kMss);
  double bw = 1e6;
  for (int i = 0; i < 4; ++i) {
    d.round(test::RoundSpec{.rtt = kRtt, .packets = 100, .lost = 10, .bw_bps = bw *= 1.5});
  }
  EXPECT_EQ(bbr.mode(), Bbr::State::kStartup);
  EXPECT_EQ(bbr.inflight_hi(), 0.0);
}

TEST(Bbr, V3LossInCruiseCutsWindowByBeta) {
  Bbr bbr = make();
  test::Driver d(bbr, kMss);
  to_probe_bw(bbr, d);
  for (int i = 0; i < 10 && bbr.probe_bw_phase() != Bbr::Phase::kCruise; ++i) {
    d.round(at_bottleneck(90));
  }
  ASSERT_EQ(bbr.probe_bw_phase(), Bbr::Phase::kCruise);
  // One lost packet in a non-probing round: inflight_lo = max(delivered, beta x cwnd), and
  // cwnd had reached its target 2 BDP + 3 MSS (the quantization budget) = 203 kB.
  d.round(test::RoundSpec{.rtt = kRtt, .packets = 100, .lost = 1, .bw_bps = kBw});
  d.round(at_bottleneck(10));
  EXPECT_NEAR(bbr.inflight_lo(), 0.7 * 203'000, 1.0);
  EXPECT_LE(static_cast<double>(bbr.cwnd_bytes()), bbr.inflight_lo());
}

TEST(Bbr, V1CyclesEightPacingGains) {
  Bbr bbr = make(CcParams{{"version", 1}});
  test::Driver d(bbr, kMss);
  to_probe_bw(bbr, d);
  // Record every change of pacing gain, ACK by ACK, with 1.3 BDP in flight per round: the
  // 1.25 phase ends after one min_rtt with inflight >= 1.25 BDP, the 0.75 phase once inflight
  // <= BDP, and the six 1.0 phases (merged in this record) one min_rtt each.
  std::vector<double> gains;
  test::RoundSpec r = at_bottleneck(130);
  r.after_ack = [&] {
    if (gains.empty() || bbr.pacing_gain() != gains.back()) {
      gains.push_back(bbr.pacing_gain());
    }
  };
  for (int i = 0; i < 100; ++i) {
    d.round(r);
  }
  std::size_t cycles = 0;
  for (std::size_t i = 0; i + 2 < gains.size(); ++i) {
    if (gains[i] == 1.25) {
      EXPECT_EQ(gains[i + 1], 0.75);
      EXPECT_EQ(gains[i + 2], 1.0);
      ++cycles;
    }
  }
  EXPECT_GE(cycles, 5U);  // 100 rounds of 10 ms, one 8-phase cycle per ~8 min_rtt
}

TEST(Bbr, V1DrainGainIsInverseOfStartupGain) {
  Bbr bbr = make(CcParams{{"version", 1}});
  // A continuous sender keeping 300 packets (3 BDP) in flight: Drain has a queue to drain.
  AckEvent a;
  a.acked_bytes = kMss;
  a.bytes_in_flight = 300 * kMss;
  a.rtt = kRtt;
  a.sample_delivered = kMss;
  a.sample_interval = Duration{100'000};  // 80 Mbit/s
  for (int i = 0; i < 5 * 300; ++i) {
    a.now += Duration{100'000};
    bbr.on_ack(a);
  }
  ASSERT_EQ(bbr.mode(), Bbr::State::kDrain);
  EXPECT_NEAR(bbr.pacing_gain(), 1.0 / 2.885, 1e-12);
}

}  // namespace
}  // namespace gw::cc
