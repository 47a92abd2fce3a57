// RED driven through the Aqm interface with hand-made queue views. Expected values are the
// Floyd & Jacobson 1993 Fig. 2 recursions worked by hand (weights and thresholds chosen so the
// arithmetic is exact in binary floating point).
#include "emulator/engine/aqm/red.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
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

QueueView queue_of(std::uint64_t bytes, BitRate rate = BitRate{12'000'000}) {
  QueueView q;
  q.bytes[0] = bytes;
  q.packets[0] = (bytes + 1499) / 1500;
  q.rate = rate;
  return q;
}

// min 10 kB, max 20 kB; weight 1 makes avg the instantaneous queue, to pin p_b.
RedSettings pinned(double max_p, bool gentle = true, bool ecn = false) {
  RedSettings s;
  s.min_bytes = 10'000;
  s.max_bytes = 20'000;
  s.max_p = max_p;
  s.weight = 1.0;
  s.gentle = gentle;
  s.ecn = ecn;
  return s;
}

// wq = 1/4: avg = 0, 1000, 2750, 4062.5, 6046.875 for q = 0, 4000, 8000, 8000, 12000.
TEST(Red, AverageIsEwmaOfQueueAtArrival) {
  RedSettings s = pinned(0.1);
  s.weight = 0.25;
  RedAqm red(s, Rng(1, "red"));
  const std::array<std::uint64_t, 5> q{0, 4000, 8000, 8000, 12000};
  const std::array<double, 5> avg{0, 1000, 2750, 4062.5, 6046.875};
  for (std::size_t i = 0; i < q.size(); ++i) {
    red.on_enqueue(packet(), queue_of(q[i]), at_ns(static_cast<std::int64_t>(i) * kMs));
    EXPECT_EQ(red.average_bytes(), avg[i]) << "arrival " << i;
  }
}

// Idle for m transmission times of mean_packet_bytes (1500 B at 12 Mbit/s = 1 ms):
// avg *= (1 - wq)^m.
TEST(Red, IdleTimeDecaysAverageByOneMinusWeightToTheM) {
  RedSettings s = pinned(0.1);
  s.weight = 0.25;
  RedAqm red(s, Rng(1, "red"));
  red.on_enqueue(packet(), queue_of(16'000), at_ns(0));  // avg 4000
  ASSERT_EQ(red.average_bytes(), 4000);
  red.on_dequeue(packet(), Duration{0}, queue_of(0), at_ns(10 * kMs));  // queue went empty
  red.on_enqueue(packet(), queue_of(0), at_ns(13 * kMs));               // m = 3
  // exp(m log(1 - wq)) rather than pow: equal to within a few ulps.
  EXPECT_NEAR(red.average_bytes(), 4000 * 0.421875, 1e-9);
  red.on_enqueue(packet(), queue_of(0), at_ns(13 * kMs + 2'500'000));  // 2.5 more, not 5.5
  EXPECT_NEAR(red.average_bytes(), 1687.5 * std::pow(0.75, 2.5), 1e-9);

  red.on_enqueue(packet(), queue_of(0, BitRate{}), at_ns(20 * kMs));  // unlimited rate
  EXPECT_EQ(red.average_bytes(), 0);
}

TEST(Red, BelowMinThresholdNeverActs) {
  RedAqm red(pinned(1.0), Rng(1, "red"));
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(red.on_enqueue(packet(), queue_of(9'999), at_ns(i)), AqmVerdict::kPass);
  }
  EXPECT_EQ(red.last_probability(), 0);
}

// avg midway between min and max with max_p 1/4: p_b = 1/8. Fig. 2 counts from -1 below min,
// increments before use and restarts at 0 after a mark, so the c-th arrival of a run has
// p_a = p_b / (1 - c p_b) = 1/8, 1/7, 1/6, 1/5, 1/4, 1/3, 1/2, 1 for c = 0 .. 7.
TEST(Red, CountBasedProbabilityIsPbOverOneMinusCountPb) {
  const std::array<double, 8> golden{0.125, 1.0 / 7, 1.0 / 6, 0.2, 0.25, 1.0 / 3, 0.5, 1.0};
  RedAqm red(pinned(0.25), Rng(7, "red"));
  int count = -1;
  int marks = 0;
  for (int i = 0; i < 10'000; ++i) {
    ++count;
    const AqmVerdict v = red.on_enqueue(packet(), queue_of(15'000), at_ns(i));
    ASSERT_LE(count, 7) << "the 7th arrival after a mark is always hit";
    EXPECT_DOUBLE_EQ(red.last_probability(), golden[static_cast<std::size_t>(count)]) << "count " << count;
    if (v == AqmVerdict::kDrop) {
      count = 0;
      ++marks;
    } else {
      ASSERT_EQ(v, AqmVerdict::kPass);
    }
  }
  EXPECT_GT(marks, 0);
}

// With p_b = 1/8 the gap between hits (arrivals since the last hit, the hit included) is
// uniform on {1, ..., 7}: P(gap = n) = 1/7. n = 100,000 gaps; each frequency has sd
// sqrt(p (1 - p) / n) = 0.0011, and 5 sd = 0.0055 keeps a false failure below 1e-6 while
// telling 1/7 from the 1/8 or 1/6 of an off-by-one count.
TEST(Red, CountBasedMarkingSpacesHitsUniformly) {
  RedAqm red(pinned(0.25), Rng(11, "red"));
  std::array<int, 9> histogram{};
  int gaps = 0;
  int since = 0;
  red.on_enqueue(packet(), queue_of(15'000), at_ns(0));  // hit or not, count is now 0
  while (gaps < 100'000) {
    ++since;
    if (red.on_enqueue(packet(), queue_of(15'000), at_ns(0)) == AqmVerdict::kDrop) {
      ASSERT_LE(since, 7);
      ++histogram[static_cast<std::size_t>(since)];
      ++gaps;
      since = 0;
    }
  }
  for (std::size_t n = 1; n <= 7; ++n) {
    EXPECT_NEAR(histogram[n] / 100'000.0, 1.0 / 7, 0.0055) << "gap " << n;
  }
}

// Floyd 2000: between max and 2 max p_b ramps from max_p to 1. First arrival of a run: c = 0,
// so p_a = p_b. avg = 30 kB: p_b = 0.1 + 0.9 * 10/20 = 0.55.
TEST(Red, GentleRampsFromMaxPToOneBetweenMaxAndTwiceMax) {
  RedAqm red(pinned(0.1), Rng(3, "red"));
  red.on_enqueue(packet(), queue_of(30'000), at_ns(0));
  EXPECT_DOUBLE_EQ(red.last_probability(), 0.55);

  RedAqm at_max(pinned(0.1), Rng(3, "red"));
  at_max.on_enqueue(packet(), queue_of(20'000), at_ns(0));
  EXPECT_DOUBLE_EQ(at_max.last_probability(), 0.1);

  RedAqm beyond(pinned(0.1), Rng(3, "red"));
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(beyond.on_enqueue(packet(), queue_of(40'000), at_ns(i)), AqmVerdict::kDrop);
  }
  EXPECT_EQ(beyond.last_probability(), 1);
}

TEST(Red, WithoutGentleEverythingAboveMaxIsHit) {
  RedAqm red(pinned(0.1, /*gentle=*/false), Rng(3, "red"));
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(red.on_enqueue(packet(), queue_of(20'000), at_ns(i)), AqmVerdict::kDrop);
  }
}

TEST(Red, EcnMarksCapablePacketsAndDropsNotEct) {
  RedAqm red(pinned(0.1, true, /*ecn=*/true), Rng(3, "red"));
  const QueueView full = queue_of(40'000);
  EXPECT_EQ(red.on_enqueue(packet(Ecn::kEct0), full, at_ns(0)), AqmVerdict::kMark);
  EXPECT_EQ(red.on_enqueue(packet(Ecn::kEct1), full, at_ns(1)), AqmVerdict::kMark);
  EXPECT_EQ(red.on_enqueue(packet(Ecn::kCe), full, at_ns(2)), AqmVerdict::kMark);
  EXPECT_EQ(red.on_enqueue(packet(Ecn::kNotEct), full, at_ns(3)), AqmVerdict::kDrop);

  RedAqm no_ecn(pinned(0.1), Rng(3, "red"));
  EXPECT_EQ(no_ecn.on_enqueue(packet(Ecn::kEct0), full, at_ns(0)), AqmVerdict::kDrop);
}

// Same count-based process with ecn: every hit on an ECT packet is a mark, never a drop.
TEST(Red, EcnOnTheRampMarksInsteadOfDropping) {
  RedAqm red(pinned(0.25, true, /*ecn=*/true), Rng(5, "red"));
  int marks = 0;
  for (int i = 0; i < 1000; ++i) {
    const AqmVerdict v = red.on_enqueue(packet(Ecn::kEct1), queue_of(15'000), at_ns(i));
    ASSERT_NE(v, AqmVerdict::kDrop);
    marks += v == AqmVerdict::kMark ? 1 : 0;
  }
  EXPECT_GT(marks, 100);  // mean gap 4: about 250
}

TEST(Red, FactoryBuildsRedFromSettings) {
  AqmSettings s;
  s.kind = AqmKind::kRed;
  s.red = pinned(0.1);
  const auto aqm = make_aqm(s, 1, "a_to_b/queue");
  EXPECT_EQ(aqm->name(), "red");
  EXPECT_EQ(aqm->queues(), 1);
  EXPECT_EQ(aqm->on_enqueue(packet(), queue_of(40'000), at_ns(0)), AqmVerdict::kDrop);
}

}  // namespace
}  // namespace gw
