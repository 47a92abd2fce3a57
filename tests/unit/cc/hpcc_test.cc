// HPCC (Li et al. SIGCOMM 2019, Algorithm 1) fed a synthetic INT stream of one hop.
#include "generators/cc/hpcc.h"

#include <gtest/gtest.h>

#include <array>

namespace gw::cc {
namespace {

constexpr std::uint64_t kB = 100'000'000'000ULL;  // 100 Gbit/s
constexpr Duration kT{10'000};                    // 10 us base RTT: W_init = 125 000 B

// One hop whose egress runs at `util` x B while its queue grows by `queue_growth_bps`; an ACK
// every microsecond, each acknowledging one 1000 B packet out of a 125-packet window.
struct IntStream {
  Hpcc& h;
  double util = 1.0;
  double queue_growth_bps = 0;
  std::uint64_t ns = 0;
  double tx = 0;
  double queue = 0;
  std::uint64_t acked = 0;

  void ack() {
    ns += 1000;
    tx += util * kB / 8.0 * 1e-6;
    queue += queue_growth_bps / 8.0 * 1e-6;
    std::array<IntHopEcho, 1> hop{IntHopEcho{1, static_cast<std::uint32_t>(queue),
                                             static_cast<std::uint32_t>(static_cast<std::uint64_t>(tx)), ns,
                                             kB}};
    AckEvent a;
    a.now = at_ns(static_cast<std::int64_t>(ns));
    a.acked_bytes = 1000;
    a.bytes_in_flight = 124'000;
    a.rtt = kT;
    a.int_hops = hop;
    h.on_ack(a);
  }
};

Hpcc make() {
  CcContext c;
  c.line_rate_bps = kB;
  c.base_rtt_hint = kT;
  return Hpcc(c, HpccSettings{});
}

TEST(Hpcc, StartsAtLineRateWindowAndPacesAtWOverT) {
  Hpcc h = make();
  EXPECT_EQ(h.cwnd_bytes(), 125'000U);
  EXPECT_EQ(h.pacing_rate().bps, kB);
  EXPECT_DOUBLE_EQ(h.w_ai_bytes(), 40e6 / 8.0 * 10e-6);  // 10 Mbit/s per 25 Gbit/s, x T
}

TEST(Hpcc, FullyUtilizedLinkScalesReferenceWindowByEtaOverU) {
  Hpcc h = make();
  IntStream s{h};
  for (int i = 0; i < 1000; ++i) {  // U -> 1 (EWMA with tau/T = 0.1 per ACK)
    s.ack();
  }
  EXPECT_NEAR(h.utilization(), 1.0, 1e-6);
  // Every reference-window update is W = Wc / (U / eta) + W_AI: the window settles where
  // Wc = 0.95 Wc + W_AI would, i.e. it has been cut toward eta of the pipe.
  const double wc = h.reference_window_bytes();
  for (int i = 0; i < 125; ++i) {  // one window: exactly one Wc update
    s.ack();
  }
  EXPECT_NEAR(h.reference_window_bytes(), wc * 0.95 / h.utilization() + h.w_ai_bytes(), 1.0);
  EXPECT_LT(h.reference_window_bytes(), 125'000 * 0.96);
}

TEST(Hpcc, GrowingQueueRaisesUtilizationAboveOne) {
  Hpcc h = make();
  IntStream s{h};
  s.queue_growth_bps = 10e9;  // a queue building at 10 % of the link rate
  for (int i = 0; i < 200; ++i) {
    s.ack();
  }
  // u = qlen / (B T) + 1, qlen = min of the last two samples (199 us of growth). The EWMA
  // (weight tau/T = 0.1 per ACK) of a linear ramp lags it by T/tau - 1 = 9 samples.
  const double qlen = 10e9 / 8.0 * (199 - 9) * 1e-6;
  EXPECT_NEAR(h.utilization(), 1.0 + qlen * 8.0 / (1e11 * 10e-6), 0.01);
  EXPECT_LT(h.window_bytes(), 125'000 * 0.95 / 1.5);
}

TEST(Hpcc, UnderutilizedLinkIncreasesAdditivelyThenMultiplicatively) {
  Hpcc h = make();
  IntStream s{h};
  s.util = 1.0;
  for (int i = 0; i < 1000; ++i) {
    s.ack();
  }
  s.util = 0.5;  // half the pipe: U falls below eta
  for (int i = 0; i < 100; ++i) {
    s.ack();
  }
  ASSERT_LT(h.utilization(), 0.95);
  const double wc = h.reference_window_bytes();
  const std::uint64_t stage = h.inc_stage();
  for (int i = 0; i < 125; ++i) {
    s.ack();
  }
  if (stage < 5) {
    EXPECT_NEAR(h.reference_window_bytes(), wc + h.w_ai_bytes(), 1e-6);
    EXPECT_EQ(h.inc_stage(), stage + 1);
  }
}

TEST(Hpcc, WithoutIntKeepsTheWindow) {
  Hpcc h = make();
  AckEvent a;
  a.acked_bytes = 1000;
  a.rtt = kT;
  for (int i = 0; i < 100; ++i) {
    a.now += Duration{1000};
    h.on_ack(a);
  }
  EXPECT_EQ(h.cwnd_bytes(), 125'000U);
}

}  // namespace
}  // namespace gw::cc
