#include "emulator/engine/release_calendar.h"

#include <gtest/gtest.h>

#include <queue>

#include "core/rng.h"

namespace gw {
namespace {

struct Later {
  bool operator()(const Release& a, const Release& b) const {
    return a.at != b.at ? a.at > b.at : a.seq > b.seq;
  }
};

// Random traffic through a delay line: pushes at `now` with release now + delay + jitter,
// pops of everything due. The calendar must give exactly the binary heap's order, including
// ties (equal times leave in arrival order), releases beyond the ring's horizon (overflow),
// idle gaps longer than the horizon, and a jitter far from the width hint.
void compare_with_heap(Duration delay, Duration jitter, Duration hint, std::uint64_t seed) {
  ReleaseCalendar cal(hint);
  std::priority_queue<Release, std::vector<Release>, Later> ref;
  Rng rng(seed, "calendar");
  Instant now = kEpoch;
  std::uint64_t seq = 0;
  for (int step = 0; step < 200000; ++step) {
    // Mostly small steps, sometimes an idle gap of up to a second.
    const auto gap = rng.below(100) == 0 ? rng.below(1'000'000'000) : rng.below(2000);
    now += Duration{static_cast<std::int64_t>(gap)};
    const int pushes = static_cast<int>(rng.below(3));
    for (int k = 0; k < pushes; ++k) {
      const auto j =
          static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(2 * jitter.count() + 1))) -
          jitter.count();
      // Every tenth release lands on a coarse grid, so equal times happen.
      Instant at = now + std::max(Duration{0}, delay + Duration{j});
      if (rng.below(10) == 0) {
        at = kEpoch + Duration{(ns_of(at) / 100'000 + 1) * 100'000};
      }
      const Release r{at, seq++, static_cast<std::uint32_t>(seq)};
      cal.push(r, now);
      ref.push(r);
    }
    while (!ref.empty() && ref.top().at <= now) {
      ASSERT_FALSE(cal.empty());
      const Release& c = cal.top();
      ASSERT_EQ(c.seq, ref.top().seq) << "step " << step;
      ASSERT_EQ(c.at, ref.top().at);
      cal.pop();
      ref.pop();
    }
    ASSERT_EQ(cal.size(), ref.size());
  }
}

TEST(ReleaseCalendar, GivesTheHeapOrderForJitteredDelays) {
  compare_with_heap(Duration{25'000'000}, Duration{1'000'000}, Duration{1'000'000}, 1);
}

TEST(ReleaseCalendar, GivesTheHeapOrderBeyondTheHorizon) {
  // 2 s of delay with a 64 ns bucket hint: almost everything waits in the overflow heap.
  compare_with_heap(Duration{2'000'000'000}, Duration{50'000}, Duration{0}, 2);
}

TEST(ReleaseCalendar, GivesTheHeapOrderForTinyJitter) {
  compare_with_heap(Duration{10'000}, Duration{100}, Duration{100'000'000}, 3);
}

TEST(ReleaseCalendar, GivesTheHeapOrderWhenPushesComeBeforeTheEarliestBucket) {
  // No base delay: half the jitter draws clamp to `now`, so pushes land in buckets before the
  // one top() sorted (it goes back to the ring and the earliest is found again).
  compare_with_heap(Duration{0}, Duration{1'000'000}, Duration{1'000'000}, 4);
}

TEST(ReleaseCalendar, GivesTheHeapOrderWithCrowdedBuckets) {
  // Wide buckets for the jitter (hint 100 ms, jitter 20 us): tens of entries per bucket, past
  // the ones a bucket holds inline.
  compare_with_heap(Duration{1'000'000}, Duration{20'000}, Duration{100'000'000}, 5);
}

TEST(ReleaseCalendar, NextBucketShowsWhatLeavesAfterTheSortedBucket) {
  // Hint 256 us: buckets 512 ns wide (the power of two below hint / 256). Entries in buckets
  // 20, 24 (two) and 600 (beyond the 256 buckets next_bucket() looks through from 21).
  ReleaseCalendar cal(Duration{256'000});
  const auto at = [](std::int64_t ns) { return kEpoch + Duration{ns}; };
  cal.push({at(10 * 1024 + 5), 0, 7}, kEpoch);
  cal.push({at(12 * 1024 + 9), 1, 8}, kEpoch);
  cal.push({at(12 * 1024 + 1), 2, 9}, kEpoch);
  cal.push({at(300 * 1024), 3, 10}, kEpoch);
  EXPECT_TRUE(cal.next_bucket().empty());  // nothing sorted yet
  EXPECT_EQ(cal.top().slot, 7U);
  const auto next = cal.next_bucket();
  ASSERT_EQ(next.size(), 2U);
  EXPECT_EQ(next[0].slot + next[1].slot, 8U + 9U);
  cal.pop();
  EXPECT_EQ(cal.top().slot, 9U);           // bucket 12 sorted: 12 * 1024 + 1 first
  EXPECT_TRUE(cal.next_bucket().empty());  // bucket 600 is past the look-ahead
  cal.pop();
  cal.pop();
  EXPECT_EQ(cal.top().slot, 10U);
}

}  // namespace
}  // namespace gw
