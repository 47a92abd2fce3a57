// CoDel driven through the Aqm interface as the queue stage drives it: at each service instant
// the head is offered with on_dequeue(); after kDrop the next head is offered at the same
// instant. The expected drop instants are the RFC 8289 §5 pseudo-code run by hand (an
// independent transcription, integer nanoseconds, interval / sqrt(count) truncated).
#include "emulator/engine/aqm/codel.h"

#include <gtest/gtest.h>

#include <vector>

namespace gw {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::uint64_t kStandingBytes = 30'000;  // what stays queued behind the head

Packet packet(Ecn ecn = Ecn::kNotEct) {
  Packet p;
  p.size_bytes = 1500;
  p.headers.ecn = ecn;
  return p;
}

QueueView backlog(std::uint64_t bytes) {
  QueueView q;
  q.bytes[0] = bytes;
  q.packets[0] = (bytes + 1499) / 1500;
  return q;
}

struct Service {
  int drops = 0;
  bool marked = false;
};

// One service instant: offer heads until one is sent.
Service serve(CodelAqm& codel, std::int64_t now_ns, Duration sojourn, std::uint64_t bytes_behind,
              Ecn ecn = Ecn::kNotEct) {
  Service s;
  for (;;) {
    const AqmVerdict v = codel.on_dequeue(packet(ecn), sojourn, backlog(bytes_behind), at_ns(now_ns));
    if (v != AqmVerdict::kDrop) {
      s.marked = v == AqmVerdict::kMark;
      return s;
    }
    ++s.drops;
  }
}

// Serves one packet every `step_ms` from 0 to `end_ms`, all with the sojourn `sojourn_at(t)`,
// and returns the instant (ms) of every drop, once per dropped packet.
template <typename F>
std::vector<std::int64_t> drop_times(CodelAqm& codel, std::int64_t step_ms, std::int64_t end_ms,
                                     F sojourn_at) {
  std::vector<std::int64_t> out;
  for (std::int64_t t = 0; t <= end_ms; t += step_ms) {
    const Service s = serve(codel, t * kMs, sojourn_at(t), kStandingBytes);
    for (int i = 0; i < s.drops; ++i) {
      out.push_back(t);
    }
  }
  return out;
}

Duration ms(std::int64_t n) {
  return Duration{n * kMs};
}

// Standing 10 ms sojourn (above the 5 ms target), one dequeue per ms. First above target at
// 0 -> first_above_time 100 ms; enter dropping at 100 (count 1, drop_next 200). Then
// drop_next += interval / sqrt(count), in ns:
//   200,000,000 + 70,710,678 (count 2) = 270,710,678 -> dropped at the 271 ms dequeue
//   + 57,735,026 (3) = 328,445,704 -> 329;  + 50,000,000 (4) = 378,445,704 -> 379
//   + 44,721,359 (5) = 423,167,063 -> 424;  + 40,824,829 (6) = 463,991,892 -> 464
TEST(Codel, DropTimesFollowIntervalOverSqrtCount) {
  CodelAqm codel(CodelSettings{});
  const auto drops = drop_times(codel, 1, 500, [](std::int64_t) { return ms(10); });
  EXPECT_EQ(drops, (std::vector<std::int64_t>{100, 200, 271, 329, 379, 424, 464}));
  EXPECT_TRUE(codel.dropping());
  EXPECT_EQ(codel.count(), 7U);
  EXPECT_EQ(codel.drop_next(), at_ns(501'788'339));  // 463,991,892 + 37,796,447 (count 7)
}

// One dequeue per 100 ms: the RFC's while loop drops several packets at one instant once the
// schedule is behind. At 400: drop (count 4), next drop_next 378.4 <= 400 -> drop again (5,
// drop_next 423.2). At 500: drops 6 and 7 (drop_next 464.0, then 501.8). At 600: drops 8, 9,
// 10 (drop_next 537.1, 570.5, then 602.1 > 600 stops the loop).
TEST(Codel, DropsSeveralPacketsAtOneInstantWhenBehindSchedule) {
  CodelAqm codel(CodelSettings{});
  const auto drops = drop_times(codel, 100, 600, [](std::int64_t) { return ms(10); });
  EXPECT_EQ(drops, (std::vector<std::int64_t>{100, 200, 300, 400, 400, 500, 500, 600, 600, 600}));
  EXPECT_EQ(codel.count(), 10U);
  EXPECT_EQ(codel.drop_next(), at_ns(602'099'787));
}

// Sojourn below target at 470 ms leaves the dropping state with count 7, lastcount 1. Above
// again from 471 -> first_above_time 571. Re-entry at 571 is 69 ms after drop_next (501.8),
// within 16 intervals, so count = 7 - 1 = 6 and drop_next = 571 + 40.82 = 611.82 -> 612;
// then count 7: + 37.80 = 649.62 -> 650; count 8: + 35.36 = 684.98 -> 685.
TEST(Codel, ReentryWithinSixteenIntervalsResumesAtCountMinusLastcount) {
  CodelAqm codel(CodelSettings{});
  const auto drops = drop_times(codel, 1, 700, [](std::int64_t t) { return t == 470 ? ms(1) : ms(10); });
  EXPECT_EQ(drops, (std::vector<std::int64_t>{100, 200, 271, 329, 379, 424, 464, 571, 612, 650, 685}));
}

// Below target from 470 to 2199 ms: re-entry at 2300 is more than 16 intervals after the last
// drop_next, so count restarts at 1 (next drops at 2400, then 2470.7 -> 2471).
TEST(Codel, ReentryAfterSixteenIntervalsRestartsAtCountOne) {
  CodelAqm codel(CodelSettings{});
  const auto drops =
      drop_times(codel, 1, 2500, [](std::int64_t t) { return t >= 470 && t < 2200 ? ms(1) : ms(10); });
  EXPECT_EQ(drops, (std::vector<std::int64_t>{100, 200, 271, 329, 379, 424, 464, 2300, 2400, 2471}));
}

TEST(Codel, NeverDropsWhileSojournStaysBelowTarget) {
  CodelAqm codel(CodelSettings{});
  const auto drops = drop_times(codel, 1, 1000, [](std::int64_t) { return ms(5) - Duration{1}; });
  EXPECT_TRUE(drops.empty());
}

// RFC 8289 dodequeue(): bytes() <= maxpacket counts as below target, whatever the sojourn.
TEST(Codel, NeverDropsWhenAtMostOneMaxPacketRemains) {
  CodelAqm codel(CodelSettings{});
  for (std::int64_t t = 0; t <= 1000; ++t) {
    EXPECT_EQ(serve(codel, t * kMs, ms(50), CodelAqm::kMaxPacketBytes).drops, 0) << "t=" << t;
  }
  CodelAqm busier(CodelSettings{});
  int drops = 0;
  for (std::int64_t t = 0; t <= 100; ++t) {
    drops += serve(busier, t * kMs, ms(50), CodelAqm::kMaxPacketBytes + 1).drops;
  }
  EXPECT_EQ(drops, 1);  // at 100 ms
}

// With ecn, ECN-capable packets are marked at exactly the instants Not-ECT ones are dropped,
// and nothing is dropped.
TEST(Codel, MarksEcnCapablePacketsInsteadOfDropping) {
  CodelSettings settings;
  settings.ecn = true;
  CodelAqm codel(settings);
  std::vector<std::int64_t> marks;
  for (std::int64_t t = 0; t <= 500; ++t) {
    const Service s = serve(codel, t * kMs, ms(10), kStandingBytes, Ecn::kEct0);
    EXPECT_EQ(s.drops, 0);
    if (s.marked) {
      marks.push_back(t);
    }
  }
  EXPECT_EQ(marks, (std::vector<std::int64_t>{100, 200, 271, 329, 379, 424, 464}));

  CodelAqm plain(settings);  // Not-ECT packets are still dropped
  const auto drops = drop_times(plain, 1, 500, [](std::int64_t) { return ms(10); });
  EXPECT_EQ(drops, (std::vector<std::int64_t>{100, 200, 271, 329, 379, 424, 464}));
}

TEST(Codel, EnqueueAlwaysPasses) {
  CodelAqm codel(CodelSettings{});
  EXPECT_EQ(codel.on_enqueue(packet(), backlog(1'000'000), at_ns(0)), AqmVerdict::kPass);
  EXPECT_EQ(codel.next_timer(), kNever);
  EXPECT_EQ(codel.name(), "codel");
}

}  // namespace
}  // namespace gw
