// DualPI2 driven through the Aqm interface. The golden p' sequence is RFC 9332 Appendix A
// dualpi2_update() run independently (double precision, outside this code base); marking and
// dropping rates are checked statistically with binomial 5-sigma tolerances.
#include "emulator/engine/aqm/dualpi2.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "emulator/engine/aqm/make_aqm.h"

namespace gw {
namespace {

constexpr std::int64_t kMs = 1'000'000;

Packet packet(Ecn ecn) {
  Packet p;
  p.size_bytes = 1500;
  p.headers.ecn = ecn;
  return p;
}

QueueView classic_head(Duration sojourn, std::uint64_t packets = 10) {
  QueueView q;
  q.packets[DualPi2Aqm::kClassic] = packets;
  q.bytes[DualPi2Aqm::kClassic] = packets * 1500;
  q.head_sojourn[DualPi2Aqm::kClassic] = sojourn;
  return q;
}

// One update with the C head sojourn `qdelay`, from a fresh AQM: p' = alpha (q - target) + beta q.
DualPi2Aqm with_base_probability_from(Duration qdelay, DualPi2Settings s = {}) {
  DualPi2Aqm aqm(s, Rng(42, "dualpi2"));
  aqm.on_timer(classic_head(qdelay), at_ns(16 * kMs));
  return aqm;
}

struct Tally {
  int pass = 0, mark = 0, drop = 0;
};

Tally dequeue_many(DualPi2Aqm& aqm, Ecn ecn, Duration sojourn, int n) {
  Tally t;
  for (int i = 0; i < n; ++i) {
    switch (aqm.on_dequeue(packet(ecn), sojourn, QueueView{}, at_ns(0))) {
      case AqmVerdict::kPass:
        ++t.pass;
        break;
      case AqmVerdict::kMark:
        ++t.mark;
        break;
      case AqmVerdict::kDrop:
        ++t.drop;
        break;
    }
  }
  return t;
}

// Binomial 5-sigma half-width for n draws of probability p.
double five_sigma(double p, int n) {
  return 5 * std::sqrt(p * (1 - p) / n);
}

struct Step {
  std::int64_t qdelay_ms;
  double base;
};

// Linux defaults: alpha 0.16 /s, beta 3.2 /s, target 15 ms, one update per t_update. First
// step by hand: 0.16 * (0.020 - 0.015) + 3.2 * (0.020 - 0) = 0.0008 + 0.064 = 0.0648. The
// sequence also hits the clamp at 1 (400 ms) and at 0 (back to 0 ms from 300 ms).
TEST(DualPi2, BaseProbabilityFollowsPi2Recursion) {
  const std::vector<Step> golden{
      {0, 0},
      {20, 0.064799999999999996},
      {40, 0.1328},
      {60, 0.20400000000000001},
      {60, 0.21120000000000003},
      {50, 0.18480000000000002},
      {30, 0.12320000000000002},
      {15, 0.075200000000000017},
      {10, 0.058400000000000021},
      {0, 0.024000000000000021},
      {0, 0.021600000000000022},
      {120, 0.4224},
      {250, 0.87600000000000011},
      {400, 1},
      {400, 1},
      {300, 0.72560000000000002},
      {0, 0},
  };
  DualPi2Aqm aqm(DualPi2Settings{}, Rng(1, "dualpi2"));
  std::int64_t t = 0;
  for (const Step& s : golden) {
    t += 16 * kMs;
    aqm.on_timer(classic_head(Duration{s.qdelay_ms * kMs}), at_ns(t));
    EXPECT_NEAR(aqm.base_probability(), s.base, 1e-14) << "qdelay " << s.qdelay_ms << " ms";
    EXPECT_NEAR(aqm.classic_probability(), s.base * s.base, 1e-14);
    EXPECT_NEAR(aqm.coupled_probability(), std::min(2 * s.base, 1.0), 1e-14);
  }
}

TEST(DualPi2, ClassifiesEct1AndCeIntoTheLQueue) {
  DualPi2Aqm aqm(DualPi2Settings{}, Rng(1, "dualpi2"));
  EXPECT_EQ(aqm.queues(), 2);
  EXPECT_EQ(aqm.classify(packet(Ecn::kNotEct)), DualPi2Aqm::kClassic);
  EXPECT_EQ(aqm.classify(packet(Ecn::kEct0)), DualPi2Aqm::kClassic);
  EXPECT_EQ(aqm.classify(packet(Ecn::kEct1)), DualPi2Aqm::kL4s);
  EXPECT_EQ(aqm.classify(packet(Ecn::kCe)), DualPi2Aqm::kL4s);
  Packet marked_upstream = packet(Ecn::kEct0);
  marked_upstream.ce_marked = true;  // carries CE now
  EXPECT_EQ(aqm.classify(marked_upstream), DualPi2Aqm::kL4s);
}

// tshift = 2 * target = 30 ms: C is served only when its head waited more than 30 ms longer.
TEST(DualPi2, TimeShiftedFifoServesLUnlessClassicWaitedTshiftLonger) {
  DualPi2Aqm aqm(DualPi2Settings{}, Rng(1, "dualpi2"));
  ASSERT_EQ(aqm.time_shift(), Duration{30 * kMs});
  const Instant now = at_ns(100 * kMs);
  const auto pick = [&](Instant c, Instant l) { return aqm.pick({c, l}, now); };
  EXPECT_EQ(pick(at_ns(0), at_ns(30 * kMs)), DualPi2Aqm::kL4s);
  EXPECT_EQ(pick(at_ns(0), at_ns(30 * kMs + 1)), DualPi2Aqm::kClassic);
  EXPECT_EQ(pick(at_ns(50 * kMs), at_ns(10 * kMs)), DualPi2Aqm::kL4s);
  EXPECT_EQ(pick(at_ns(0), kNever), DualPi2Aqm::kClassic);
  EXPECT_EQ(pick(kNever, at_ns(0)), DualPi2Aqm::kL4s);
}

// With p' = 0 only the native step acts: L sojourn > 1 ms marks, nothing else is touched.
TEST(DualPi2, LStepMarksAboveThresholdWhenUncoupled) {
  DualPi2Aqm aqm(DualPi2Settings{}, Rng(1, "dualpi2"));
  EXPECT_EQ(dequeue_many(aqm, Ecn::kEct1, Duration{1 * kMs}, 1000).pass, 1000);
  EXPECT_EQ(dequeue_many(aqm, Ecn::kEct1, Duration{1 * kMs + 1}, 1000).mark, 1000);
  EXPECT_EQ(dequeue_many(aqm, Ecn::kNotEct, Duration{100 * kMs}, 1000).pass, 1000);
  EXPECT_EQ(dequeue_many(aqm, Ecn::kEct0, Duration{100 * kMs}, 1000).pass, 1000);
}

// p' = 0.16 * 0.025 + 3.2 * 0.040 = 0.132: L marked with k p' = 0.264, C with p'^2 = 0.017424
// (ECT(0) marked, Not-ECT dropped). n = 100,000 each; tolerances are 5 binomial sd.
TEST(DualPi2, CouplesLMarkingToKTimesAndClassicToSquareOfBaseProbability) {
  DualPi2Aqm aqm = with_base_probability_from(Duration{40 * kMs});
  ASSERT_NEAR(aqm.base_probability(), 0.132, 1e-12);
  const int n = 100'000;

  const Tally l = dequeue_many(aqm, Ecn::kEct1, Duration{0}, n);
  EXPECT_EQ(l.drop, 0);
  EXPECT_NEAR(l.mark / double(n), 0.264, five_sigma(0.264, n));

  const Tally ect0 = dequeue_many(aqm, Ecn::kEct0, Duration{0}, n);
  EXPECT_EQ(ect0.drop, 0);
  EXPECT_NEAR(ect0.mark / double(n), 0.017424, five_sigma(0.017424, n));

  const Tally not_ect = dequeue_many(aqm, Ecn::kNotEct, Duration{0}, n);
  EXPECT_EQ(not_ect.mark, 0);
  EXPECT_NEAR(not_ect.drop / double(n), 0.017424, five_sigma(0.017424, n));
}

TEST(DualPi2, ClassicEctIsDroppedWhenClassicEcnIsOff) {
  DualPi2Settings s;
  s.c_ecn = false;
  DualPi2Aqm aqm = with_base_probability_from(Duration{40 * kMs}, s);
  const Tally t = dequeue_many(aqm, Ecn::kEct0, Duration{0}, 10'000);
  EXPECT_EQ(t.mark, 0);
  EXPECT_GT(t.drop, 0);
}

// RFC 9332 §4.2.3 overload: p' = 0.16 * 0.185 + 3.2 * 0.2 = 0.6696, so k p' > 1 and
// p_C = 0.44836 >= 1/k^2. L packets are dropped with p_C and every other one marked; C ECT(0)
// packets lose ECN: dropped with p_C, never marked.
TEST(DualPi2, OverloadDropsLPacketsAndDisablesClassicEcn) {
  DualPi2Aqm aqm = with_base_probability_from(Duration{200 * kMs});
  ASSERT_NEAR(aqm.base_probability(), 0.6696, 1e-12);
  const double p_c = 0.6696 * 0.6696;
  const int n = 100'000;

  const Tally l = dequeue_many(aqm, Ecn::kEct1, Duration{0}, n);
  EXPECT_EQ(l.pass, 0);
  EXPECT_NEAR(l.drop / double(n), p_c, five_sigma(p_c, n));

  const Tally ect0 = dequeue_many(aqm, Ecn::kEct0, Duration{0}, n);
  EXPECT_EQ(ect0.mark, 0);
  EXPECT_NEAR(ect0.drop / double(n), p_c, five_sigma(p_c, n));
}

// Just below overload (k p' < 1) C ECT(0) is still marked and L never dropped.
TEST(DualPi2, BelowOverloadKeepsEcn) {
  DualPi2Aqm aqm = with_base_probability_from(Duration{140 * kMs});  // p' = 0.468
  ASSERT_LT(aqm.coupled_probability(), 1.0);
  EXPECT_EQ(dequeue_many(aqm, Ecn::kEct1, Duration{0}, 10'000).drop, 0);
  EXPECT_EQ(dequeue_many(aqm, Ecn::kEct0, Duration{0}, 10'000).drop, 0);
}

TEST(DualPi2, TimerRunsWhileThereIsSomethingToUpdate) {
  DualPi2Aqm aqm(DualPi2Settings{}, Rng(1, "dualpi2"));
  EXPECT_EQ(aqm.next_timer(), kNever);
  EXPECT_EQ(aqm.on_enqueue(packet(Ecn::kNotEct), QueueView{}, at_ns(4 * kMs)), AqmVerdict::kPass);
  EXPECT_EQ(aqm.next_timer(), at_ns(20 * kMs));
  aqm.on_timer(classic_head(Duration{20 * kMs}), at_ns(20 * kMs));
  EXPECT_EQ(aqm.next_timer(), at_ns(36 * kMs));
  aqm.on_timer(QueueView{}, at_ns(36 * kMs));  // p' -> 0, prev -> 0: changed
  EXPECT_EQ(aqm.next_timer(), at_ns(52 * kMs));
  aqm.on_timer(QueueView{}, at_ns(52 * kMs));  // fixed point, C queue empty
  EXPECT_EQ(aqm.next_timer(), kNever);
}

TEST(DualPi2, FactoryBuildsDualPi2FromSettings) {
  AqmSettings s;
  s.kind = AqmKind::kDualPi2;
  const auto aqm = make_aqm(s, 1, "a_to_b/queue");
  EXPECT_EQ(aqm->name(), "dualpi2");
  EXPECT_EQ(aqm->queues(), 2);
  EXPECT_EQ(aqm->classify(packet(Ecn::kEct1)), 1);
}

}  // namespace
}  // namespace gw
