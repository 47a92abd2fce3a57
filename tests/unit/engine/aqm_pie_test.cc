// PIE driven through the Aqm interface: updates fed with a head sojourn, enqueues with
// hand-made queue views. The golden probabilities are RFC 8033 calculate_drop_prob() run
// independently (a line-by-line transcription in double precision, outside this code base).
#include "emulator/engine/aqm/pie.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "emulator/engine/aqm/make_aqm.h"

namespace gw {
namespace {

constexpr std::int64_t kMs = 1'000'000;

Packet packet(Ecn ecn = Ecn::kNotEct) {
  Packet p;
  p.size_bytes = 1500;
  p.headers.ecn = ecn;
  return p;
}

QueueView queue(std::uint64_t bytes, Duration head_sojourn = Duration{0}) {
  QueueView q;
  q.bytes[0] = bytes;
  q.packets[0] = (bytes + 1499) / 1500;
  q.head_sojourn[0] = head_sojourn;
  q.rate = BitRate{100'000'000};
  return q;
}

constexpr std::uint64_t kLongQueue = 100'000;

// Runs one update per t_update with the head sojourn `qdelay`.
void update(PieAqm& pie, Duration qdelay, std::int64_t& t_ns) {
  t_ns += 15 * kMs;
  pie.on_timer(queue(kLongQueue, qdelay), at_ns(t_ns));
}

struct Step {
  std::int64_t qdelay_ms;
  double drop_prob;
};

// Defaults: alpha 1/8, beta 5/4, target 15 ms. The sequence walks every auto-tuning tier
// (/2048 at 16 ms from p = 0, /512, /128, /32, /8, /2), the 0.02 cap (320 ms at p >= 0.1:
// +0.02), an uncapped step at p >= 0.1 (300 ms: 0.125*0.285 - 1.25*0.02 = 0.010625), falls
// back through the tiers, and ends with the 0.98 decay (two updates with qdelay 0).
TEST(Pie, DropProbabilityFollowsRfc8033Recursion) {
  const std::vector<Step> golden{
      {0, 0},
      {0, 0},
      {16, 9.8266601562500003e-06},
      {40, 7.4523925781250005e-05},
      {80, 0.00052862548828125008},
      {160, 0.0042200317382812503},
      {320, 0.033985656738281252},
      {320, 0.053048156738281255},
      {320, 0.072110656738281251},
      {320, 0.091173156738281247},
      {320, 0.11023565673828124},
      {320, 0.13023565673828125},
      {300, 0.14086065673828121},
      {260, 0.12148565673828124},
      {220, 0.097110656738281231},
      {180, 0.082423156738281225},
      {140, 0.065235656738281245},
      {100, 0.045548156738281241},
      {60, 0.023360656738281235},
      {30, 0.0055481567382812368},
      {0, 0.00062628173828123673},
      {0, 0.00055633422851561194},
      {0, 0.00048778566894529962},
  };
  PieAqm pie(PieSettings{}, Rng(1, "pie"));
  std::int64_t t = 0;
  for (const Step& s : golden) {
    update(pie, Duration{s.qdelay_ms * kMs}, t);
    EXPECT_NEAR(pie.drop_probability(), s.drop_prob, 1e-15) << "qdelay " << s.qdelay_ms << " ms";
    EXPECT_EQ(pie.qdelay_old(), Duration{s.qdelay_ms * kMs});
  }
}

// §4.4: the allowance falls by t_update per update (150, 135, ..., 0 ms) while the delay is
// high, and nothing is dropped until it reaches 0.
TEST(Pie, BurstAllowanceHoldsOffDropsForMaxBurst) {
  PieAqm pie(PieSettings{}, Rng(2, "pie"));
  EXPECT_EQ(pie.burst_allowance(), Duration{150 * kMs});
  std::int64_t t = 0;
  for (int k = 1; k <= 10; ++k) {
    for (int i = 0; i < 200; ++i) {
      ASSERT_EQ(pie.on_enqueue(packet(), queue(kLongQueue), at_ns(t)), AqmVerdict::kPass);
    }
    update(pie, Duration{2000 * kMs}, t);
    EXPECT_EQ(pie.burst_allowance(), Duration{(150 - 15 * k) * kMs});
  }
  ASSERT_GT(pie.drop_probability(), 0.1);
  int drops = 0;
  for (int i = 0; i < 1000; ++i) {
    drops += pie.on_enqueue(packet(), queue(kLongQueue), at_ns(t)) == AqmVerdict::kDrop ? 1 : 0;
  }
  EXPECT_GT(drops, 0);
}

// The allowance comes back once drop_prob is 0 and the delay has been below target / 2 for two
// updates.
TEST(Pie, BurstAllowanceIsRestoredWhenDelayStaysLow) {
  PieAqm pie(PieSettings{}, Rng(2, "pie"));
  std::int64_t t = 0;
  update(pie, Duration{20 * kMs}, t);
  update(pie, Duration{20 * kMs}, t);
  EXPECT_EQ(pie.burst_allowance(), Duration{120 * kMs});
  update(pie, Duration{0}, t);  // drop_prob -> 0, but qdelay_old was 20 ms
  EXPECT_EQ(pie.drop_probability(), 0);
  EXPECT_EQ(pie.burst_allowance(), Duration{105 * kMs});
  update(pie, Duration{0}, t);
  EXPECT_EQ(pie.burst_allowance(), Duration{150 * kMs});
}

// Settings for the enqueue tests: no burst allowance, beta 0 so that only the integral term
// moves drop_prob. From 0, four updates at 2000 ms give (0.125 * 1.985 = 0.248125 per update,
// auto-tuned) 1.2115e-4, 7.875e-3, 0.03889, 0.16295.
PieSettings enqueue_settings() {
  PieSettings s;
  s.max_burst = Duration{0};
  s.beta = 0;
  return s;
}

void raise(PieAqm& pie, int updates, std::int64_t& t) {
  for (int i = 0; i < updates; ++i) {
    update(pie, Duration{2000 * kMs}, t);
  }
}

double drop_fraction(PieAqm& pie, const QueueView& q, int n) {
  int drops = 0;
  for (int i = 0; i < n; ++i) {
    drops += pie.on_enqueue(packet(), q, at_ns(0)) == AqmVerdict::kDrop ? 1 : 0;
  }
  return static_cast<double>(drops) / n;
}

// n = 100,000 Bernoulli(p = 0.163) enqueues: sd = sqrt(p (1 - p) / n) = 0.0012; 5 sd = 0.006.
TEST(Pie, EnqueueDropsWithDropProbability) {
  PieAqm pie(enqueue_settings(), Rng(3, "pie"));
  std::int64_t t = 0;
  raise(pie, 4, t);
  ASSERT_NEAR(pie.drop_probability(), 0.16295, 1e-4);
  EXPECT_NEAR(drop_fraction(pie, queue(kLongQueue), 100'000), pie.drop_probability(), 0.006);
}

// §4.1: no random drop while qdelay_old < target / 2 and drop_prob < 0.2 ...
TEST(Pie, NoDropsWhileDelayIsLowAndProbabilityBelowTwentyPercent) {
  PieAqm pie(enqueue_settings(), Rng(4, "pie"));
  std::int64_t t = 0;
  raise(pie, 4, t);
  update(pie, Duration{7 * kMs}, t);  // below 7.5 ms
  ASSERT_GT(pie.drop_probability(), 0.15);
  ASSERT_LT(pie.drop_probability(), 0.2);
  EXPECT_EQ(drop_fraction(pie, queue(kLongQueue), 10'000), 0.0);

  PieAqm at_half(enqueue_settings(), Rng(4, "pie"));  // qdelay_old = target / 2: drops
  t = 0;
  raise(at_half, 4, t);
  update(at_half, Duration{7'500'000}, t);
  EXPECT_GT(drop_fraction(at_half, queue(kLongQueue), 10'000), 0.1);
}

// ... but at 20% and above the low-delay safeguard no longer applies.
TEST(Pie, LowDelaySafeguardStopsAtTwentyPercent) {
  PieAqm pie(enqueue_settings(), Rng(5, "pie"));
  std::int64_t t = 0;
  raise(pie, 7, t);  // 0.16295 + 3 * 0.02
  update(pie, Duration{0}, t);
  ASSERT_GE(pie.drop_probability(), 0.2);
  EXPECT_GT(drop_fraction(pie, queue(kLongQueue), 10'000), 0.15);
}

// §4.1: and none while the queue holds less than 2 MTU.
TEST(Pie, NoDropsWithLessThanTwoMtuQueued) {
  PieAqm pie(enqueue_settings(), Rng(6, "pie"));
  std::int64_t t = 0;
  raise(pie, 10, t);
  ASSERT_GT(pie.drop_probability(), 0.25);
  EXPECT_EQ(drop_fraction(pie, queue(2 * PieAqm::kMtuBytes - 1), 10'000), 0.0);
  EXPECT_GT(drop_fraction(pie, queue(2 * PieAqm::kMtuBytes), 10'000), 0.2);
}

// §5.1: with ecn, ECN-capable packets are marked while drop_prob <= 10%, dropped above.
TEST(Pie, MarksEcnCapablePacketsOnlyUpToMarkThreshold) {
  PieSettings s = enqueue_settings();
  s.ecn = true;
  PieAqm pie(s, Rng(7, "pie"));
  std::int64_t t = 0;
  raise(pie, 3, t);
  ASSERT_NEAR(pie.drop_probability(), 0.03889, 1e-4);
  int marks = 0;
  int drops = 0;
  for (int i = 0; i < 10'000; ++i) {
    const AqmVerdict ect = pie.on_enqueue(packet(Ecn::kEct0), queue(kLongQueue), at_ns(t));
    const AqmVerdict not_ect = pie.on_enqueue(packet(Ecn::kNotEct), queue(kLongQueue), at_ns(t));
    ASSERT_NE(ect, AqmVerdict::kDrop);
    ASSERT_NE(not_ect, AqmVerdict::kMark);
    marks += ect == AqmVerdict::kMark ? 1 : 0;
    drops += not_ect == AqmVerdict::kDrop ? 1 : 0;
  }
  EXPECT_GT(marks, 200);  // about 389 of each
  EXPECT_GT(drops, 200);

  raise(pie, 1, t);  // 0.163 > 0.1
  for (int i = 0; i < 10'000; ++i) {
    ASSERT_NE(pie.on_enqueue(packet(Ecn::kEct0), queue(kLongQueue), at_ns(t)), AqmVerdict::kMark);
  }
}

// The timer starts with the first arrival and stops at a fixed point with an empty queue.
TEST(Pie, TimerRunsWhileThereIsSomethingToUpdate) {
  PieAqm pie(PieSettings{}, Rng(8, "pie"));
  EXPECT_EQ(pie.next_timer(), kNever);
  pie.on_enqueue(packet(), queue(0), at_ns(5 * kMs));
  EXPECT_EQ(pie.next_timer(), at_ns(20 * kMs));
  pie.on_timer(queue(1500, Duration{30 * kMs}), at_ns(20 * kMs));
  EXPECT_EQ(pie.next_timer(), at_ns(35 * kMs));
  std::int64_t t = 35 * kMs;
  while (pie.next_timer() != kNever) {
    ASSERT_LT(t, 60'000 * kMs) << "never reached the fixed point";
    pie.on_timer(queue(0), at_ns(t));
    t += 15 * kMs;
  }
  EXPECT_EQ(pie.drop_probability(), 0);
  EXPECT_EQ(pie.burst_allowance(), Duration{150 * kMs});
  pie.on_enqueue(packet(), queue(0), at_ns(t));
  EXPECT_EQ(pie.next_timer(), at_ns(t + 15 * kMs));
}

TEST(Pie, FactoryBuildsPieFromSettings) {
  AqmSettings s;
  s.kind = AqmKind::kPie;
  const auto aqm = make_aqm(s, 1, "a_to_b/queue");
  EXPECT_EQ(aqm->name(), "pie");
  EXPECT_EQ(aqm->on_dequeue(packet(), Duration{0}, queue(0), at_ns(0)), AqmVerdict::kPass);
}

}  // namespace
}  // namespace gw
