// acc (the seed design's pacer) and acc2 (its fixes), fed queue-delay patterns directly.
#include <gtest/gtest.h>

#include <memory>

#include "generators/cc/acc.h"
#include "generators/cc/acc2.h"

namespace gw::cc {
namespace {

constexpr Duration kMinRtt{20'000};  // 20 us
constexpr double kStart = 50e9;

std::unique_ptr<CongestionControl> make(bool acc2, CcParams p = {}) {
  CcContext c;
  c.line_rate_bps = 100'000'000'000ULL;
  c.base_rtt_hint = kMinRtt;
  p["initial_rate_gbps"] = kStart / 1e9;
  return acc2 ? make_acc2(c, p) : make_acc(c, p);
}

double rate(const CongestionControl& cc) {
  return static_cast<double>(cc.pacing_rate().bps);
}

// One ACK per `step`, each with queue delay qd_us(i) on top of the minimum RTT.
template <typename F>
void feed(CongestionControl& cc, int acks, F qd_us, double ce_fraction = 0) {
  AckEvent first;
  first.rtt = kMinRtt;
  first.min_rtt = kMinRtt;
  first.acked_bytes = 1000;
  first.ce_bytes = static_cast<std::uint64_t>(1000 * ce_fraction);
  cc.on_ack(first);  // establishes the minimum
  for (int i = 1; i <= acks; ++i) {
    AckEvent a;
    a.now = kEpoch + i * Duration{25'000};
    a.acked_bytes = 1000;
    a.ce_bytes = static_cast<std::uint64_t>(1000 * ce_fraction);
    a.rtt = kMinRtt + Duration{static_cast<std::int64_t>(qd_us(i) * 1000)};
    a.min_rtt = kMinRtt;
    cc.on_ack(a);
  }
}

TEST(Acc, StandingQueueWithZeroGradientIsARestingPoint) {
  auto acc = make(false);
  feed(*acc, 200, [](int) { return 200.0; });  // 200 us standing queue, above the 50 us limit
  // Only the jump from 0 to 200 us had a gradient: one 5 % cut, then nothing, forever.
  EXPECT_DOUBLE_EQ(rate(*acc), kStart * 0.95);
}

// acc2 cuts while the queue stands above its target (at most once per SRTT, ~9 ACKs here),
// for as long as the queue is younger than its 64-decision floor window; a queue older than
// that is another sender's, which no backing off drains, and becomes the floor (as BBR's
// min_rtt window lets it): the rate climbs back.
TEST(Acc2, StandingQueueAboveTargetDecreasesRate) {
  auto acc2 = make(true);
  feed(*acc2, 60, [](int) { return 200.0; });
  EXPECT_LT(rate(*acc2), kStart * 0.2);
  auto later = make(true);
  feed(*later, 300, [](int) { return 200.0; });
  EXPECT_GT(rate(*later), kStart);
}

TEST(Acc, IncreasesByFixedStepBelowQueueLimit) {
  auto acc = make(false);
  feed(*acc, 4, [](int) { return 0.0; });
  EXPECT_DOUBLE_EQ(rate(*acc), kStart + 4 * 1.5e9);  // an update per ACK (ACKs 25 us > srtt apart)
}

TEST(Acc2, StepIsAFractionOfLineRate) {
  auto acc2 = make(true);
  feed(*acc2, 4, [](int) { return 0.0; });
  EXPECT_DOUBLE_EQ(rate(*acc2), kStart + 4 * 0.02 * 100e9);
}

TEST(Acc, FivePercentMarkedSlowsFivePercent) {
  auto acc = make(false, CcParams{{"step_gbps", 0.0}});
  feed(
      *acc, 1, [](int) { return 0.0; }, 0.05);
  EXPECT_NEAR(rate(*acc), kStart * 0.95, 1.0);
  EXPECT_EQ(acc->ecn_mode(), CongestionControl::EcnMode::kEct1);
}

TEST(Acc, FixedCutIgnoresHowFastTheQueueGrows) {
  auto slow = make(false);
  auto fast = make(false);
  feed(*slow, 1, [](int i) { return 1.0 * i; });   // gradient 0.04
  feed(*fast, 1, [](int i) { return 20.0 * i; });  // gradient 0.8: an incast
  EXPECT_DOUBLE_EQ(rate(*slow), rate(*fast));
}

// acc2 decides on each interval's least delay, so a ramp shows one decision late: the first
// decision sees the interval's minimum 0 (and increases by 2 % of 100 Gbit/s), the second the
// ramp's value at its ACK against that 0, over 25 us.
TEST(Acc2, CutGrowsWithGradientUpToMaxMdf) {
  CcParams p{{"target_delay_us", 1000.0}};  // isolate the gradient term
  auto slow = make(true, p);
  auto fast = make(true, p);
  feed(*slow, 2, [](int i) { return 1.0 * i; });   // gradient 2 us / 25 us = 0.08 -> 40 % cut
  feed(*fast, 2, [](int i) { return 20.0 * i; });  // gradient 1.6 -> bounded at 50 %
  EXPECT_NEAR(rate(*slow), (kStart + 2e9) * (1.0 - 5.0 * 0.08), 1.0);
  EXPECT_NEAR(rate(*fast), (kStart + 2e9) * 0.5, 1.0);
}

TEST(Acc, SafetyWindowIsTwiceRateTimesSrtt) {
  auto acc = make(false);
  // 2 x 50 Gbit/s x 20 us = 250 kB.
  EXPECT_EQ(acc->cwnd_bytes(), 250'000U);
}

}  // namespace
}  // namespace gw::cc
