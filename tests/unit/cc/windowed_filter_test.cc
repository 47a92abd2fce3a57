// The windowed min/max filter (Nichols' algorithm, as in Linux win_minmax.c / QUICHE).
#include "generators/cc/windowed_filter.h"

#include <gtest/gtest.h>

#include "generators/cc/round_tracker.h"
#include "generators/cc/rtt_estimator.h"

namespace gw::cc {
namespace {

TEST(CcWindowedFilter, MaxKeepsBestWithinWindowAndExpiresAfter) {
  MaxFilter<int, std::uint64_t, std::uint64_t> f(10);
  f.update(5, 0);
  f.update(9, 1);
  f.update(3, 2);
  EXPECT_EQ(f.best(), 9);
  f.update(4, 11);  // 9 (t = 1) is now 10 old: still in the window
  EXPECT_EQ(f.best(), 9);
  f.update(4, 12);  // expired: the best later sample takes over
  EXPECT_LE(f.best(), 4);
}

TEST(CcWindowedFilter, DecreasingSamplesAreTrackedAsTheWindowSlides) {
  MaxFilter<int, std::uint64_t, std::uint64_t> f(4);
  for (std::uint64_t t = 0; t < 100; ++t) {
    f.update(static_cast<int>(1000 - t), t);
    // The true windowed max is the sample from 4 rounds ago; the filter may lag by its
    // sub-window granularity but never reports more than the oldest in-window sample.
    EXPECT_LE(f.best(), static_cast<int>(1000 - (t >= 4 ? t - 4 : 0)));
    EXPECT_GE(f.best(), static_cast<int>(1000 - t));
  }
}

TEST(CcWindowedFilter, MinOverTimeWindow) {
  MinFilter<Duration, Instant, Duration> f(Duration{10'000'000'000});
  f.update(Duration{50}, at_ns(0));
  f.update(Duration{80}, at_ns(5'000'000'000));
  EXPECT_EQ(f.best(), Duration{50});
  f.update(Duration{90}, at_ns(10'000'000'001));
  EXPECT_EQ(f.best(), Duration{80});
}

TEST(CcRttEstimator, FollowsRfc6298) {
  RttEstimator r;
  r.update(Duration{100});
  EXPECT_EQ(r.srtt(), Duration{100});
  EXPECT_EQ(r.rttvar(), Duration{50});
  r.update(Duration{200});
  EXPECT_EQ(r.rttvar(), Duration{(3 * 50 + 100) / 4});
  EXPECT_EQ(r.srtt(), Duration{(7 * 100 + 200) / 8});
  EXPECT_EQ(r.min_rtt(), Duration{100});
}

TEST(CcRoundTracker, RoundEndsWhenDataOutstandingAtItsStartIsAcked) {
  RoundTracker t;
  EXPECT_FALSE(t.on_ack(1, 9));  // the first round covers the 10 outstanding
  for (int i = 0; i < 8; ++i) {
    EXPECT_FALSE(t.on_ack(1, 9));
  }
  EXPECT_TRUE(t.on_ack(1, 15));  // the 10th: round over; 15 outstanding now
  for (int i = 0; i < 14; ++i) {
    EXPECT_FALSE(t.on_ack(1, 20));
  }
  EXPECT_TRUE(t.on_ack(1, 20));
  EXPECT_EQ(t.rounds(), 2U);
}

}  // namespace
}  // namespace gw::cc
