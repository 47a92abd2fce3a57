// Where a sender's time went (qp_types.h SendChrono): every instant in exactly one state, and
// each state where it belongs on benches whose answer is known in closed form.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "generators/cc/congestion_control.h"
#include "unit/transport/test_channel.h"

namespace gw::transport {
namespace {

using testing::Bench;
using testing::ChannelConfig;
using testing::kMs;
using testing::kMtu;
using testing::kUs;
using testing::kWire;
using testing::small_mtu;

Duration total(const SendChrono& c) {
  Duration t{0};
  for (const Duration d : c.time) {
    t += d;
  }
  return t;
}

// A window of 10 packets over a 40 us RTT: 200 packets in 20 rounds (800 us, as in
// WindowLimitsBytesInFlight). The window is full from the first round until the last packet
// leaves at the start of round 20; only that last round is spent draining.
TEST(SendChrono, WindowLimitedTransferIsCwndLimitedUntilItsLastRound) {
  Bench bench(small_mtu(), ChannelConfig{.delay = Duration{20 * kUs}},
              ChannelConfig{.delay = Duration{20 * kUs}}, 1, 10 * kWire);
  bench.a().post_message(kEpoch, 1, 200 * kMtu);
  bench.run(at_ns(100 * kMs));
  const Instant done = bench.a().completions().back().completed;
  ASSERT_EQ(done, at_ns(800 * kUs));
  const SendChrono c = bench.a().send_chrono(done);
  EXPECT_EQ(total(c), done - kEpoch);
  EXPECT_EQ(c[SendState::kCwndLimited], Duration{19 * 40 * kUs});
  EXPECT_EQ(c[SendState::kBusy], Duration{40 * kUs});
  EXPECT_EQ(c[SendState::kRecovery], Duration{0});
  EXPECT_EQ(c[SendState::kCcLimited], Duration{0});
  // Later time is idle: nothing left to send or acknowledge.
  const SendChrono later = bench.a().send_chrono(done + Duration{kMs});
  EXPECT_EQ(later[SendState::kIdle] - c[SendState::kIdle], Duration{kMs});
  // A fixed delay line: every RTT sample is the minimum (19 rounds flushed, 10 samples each).
  EXPECT_EQ(c.rtt_queueing, Duration{0});
  EXPECT_GT(c.rtt_base, Duration{0});
}

// An open window, paced at the line: the sender is busy throughout, never limited.
TEST(SendChrono, OpenWindowTransferIsBusy) {
  Bench bench(small_mtu(), ChannelConfig{}, ChannelConfig{}, 1, std::uint64_t{1} << 30,
              BitRate{8'000'000'000ULL});
  bench.a().post_message(kEpoch, 1, 200 * kMtu);
  bench.run(at_ns(100 * kMs));
  const Instant done = bench.a().completions().back().completed;
  const SendChrono c = bench.a().send_chrono(done);
  EXPECT_EQ(c[SendState::kBusy], done - kEpoch);
  EXPECT_EQ(total(c), done - kEpoch);
}

// The last packet of a go-back-N transfer is lost and nothing follows it: only the RTO finds
// it. The wait from the last acknowledgement to the timer, and the resend's round trip, are
// recovery; the timer is at least min_rto, so recovery is at least min_rto.
TEST(SendChrono, TimeWaitingForTheRtoIsRecovery) {
  TransportConfig cfg = small_mtu();
  cfg.recovery = Recovery::kGoBackN;
  ChannelConfig ab{.delay = Duration{20 * kUs}};
  int seen_last = 0;
  ab.drop_if = [&](const Segment& s) { return s.kind == SegmentKind::kData && s.last && seen_last++ == 0; };
  Bench bench(cfg, ab, ChannelConfig{.delay = Duration{20 * kUs}}, 1);
  bench.a().post_message(kEpoch, 1, 20 * kMtu);
  bench.run(at_ns(10'000 * kMs));
  ASSERT_EQ(bench.a().stats().timeouts, 1U);
  const Instant done = bench.a().completions().back().completed;
  const SendChrono c = bench.a().send_chrono(done);
  EXPECT_EQ(total(c), done - kEpoch);
  EXPECT_GE(c[SendState::kRecovery], cfg.min_rto);
  EXPECT_LT(c[SendState::kBusy], Duration{80 * kUs});  // the first round, before the loss
}

// DCTCP with every packet CE-marked cuts its window; the window-limited time that follows,
// below the window it had before the cut, is the controller's, not the window's.
TEST(SendChrono, WindowHeldBelowItsLevelBeforeAnEcnCutIsCcLimited) {
  cc::CcContext ctx;
  ctx.mss_bytes = kMtu;
  ChannelConfig marked{.delay = Duration{100 * kUs}};
  marked.ce = 1.0;
  Bench bench(small_mtu(), marked, ChannelConfig{.delay = Duration{100 * kUs}}, 1,
              cc::make_congestion_control("dctcp", ctx, {}));
  bench.a().post_message(kEpoch, 1, 4000 * kMtu);
  bench.run(at_ns(10'000 * kMs));
  const Instant done = bench.a().completions().back().completed;
  const SendChrono c = bench.a().send_chrono(done);
  EXPECT_EQ(total(c), done - kEpoch);
  EXPECT_GT(c.cc_cuts, 0U);
  EXPECT_EQ(c.ce_bytes, 4000U * kWire);
  EXPECT_GT(c[SendState::kCcLimited], c[SendState::kCwndLimited]);
  EXPECT_GT(c[SendState::kCcLimited], (done - kEpoch) / 2);
}

}  // namespace
}  // namespace gw::transport
