#include "harness/run/qp_scheduler.h"

#include <gtest/gtest.h>

#include <vector>

namespace gw {
namespace {

Instant at(std::int64_t ns) {
  return kEpoch + Duration{ns};
}

// The slots offered at `now` in one round, each polled as having sent and then idle.
std::vector<QpScheduler::Slot> drain_round(QpScheduler& s, Instant now) {
  std::vector<QpScheduler::Slot> order;
  const QpScheduler::Round round = s.begin_round();
  while (const auto slot = s.next_due(now, round)) {
    order.push_back(*slot);
    s.polled(*slot, true, kNever, now);
  }
  return order;
}

TEST(QpScheduler, DueAtOneInstantGoInTheOrderTheyBecameDue) {
  QpScheduler s;
  const auto a = s.add();
  const auto b = s.add();
  const auto c = s.add();
  s.touch(c, at(10), at(0));
  s.touch(a, at(10), at(0));
  s.touch(b, at(5), at(0));
  EXPECT_EQ(s.next_wakeup(), at(5));
  EXPECT_FALSE(s.next_due(at(4)).has_value());
  EXPECT_EQ(drain_round(s, at(10)), (std::vector<QpScheduler::Slot>{b, c, a}));
  EXPECT_EQ(s.next_wakeup(), kNever);
}

// The rule sim and live share (04bce4f): a pair already due that is touched again while still
// due keeps its place and its due instant; requeued, an ACK waiting behind a busy sender
// would wait as long as data kept arriving, and a live pair would lose the lateness it is owed.
TEST(QpScheduler, TouchKeepsTheTurnOfAPairStillDue) {
  QpScheduler s;
  const auto busy = s.add();
  const auto ack = s.add();
  s.touch(ack, at(100), at(100));  // an ACK due at 100
  s.touch(busy, at(100), at(100));
  for (std::int64_t t = 101; t < 110; ++t) {
    s.touch(ack, at(100), at(t));  // more data arrives for it, still due
  }
  EXPECT_EQ(s.due(ack), at(100));
  EXPECT_EQ(s.next_due(at(110)), ack);
  // Touched with a later wakeup, it does move.
  s.touch(ack, at(200), at(110));
  EXPECT_EQ(s.due(ack), at(200));
  EXPECT_EQ(s.next_due(at(110)), busy);
}

TEST(QpScheduler, ARoundOffersEachDuePairOnce) {
  QpScheduler s;
  const auto a = s.add();
  const auto b = s.add();
  s.touch(a, at(0), at(0));
  s.touch(b, at(0), at(0));
  const QpScheduler::Round round = s.begin_round();
  ASSERT_EQ(s.next_due(at(0), round), a);
  s.polled(a, true, at(0), at(0));  // still due after its turn: goes behind b, not again
  ASSERT_EQ(s.next_due(at(0), round), b);
  s.polled(b, true, at(0), at(0));
  EXPECT_FALSE(s.next_due(at(0), round).has_value());
  EXPECT_EQ(s.next_due(at(0)), a);  // the next round starts with it
}

TEST(QpScheduler, DueWithNothingSentAsksAgainANanosecondLater) {
  QpScheduler s;
  const auto a = s.add();
  s.touch(a, at(50), at(40));
  ASSERT_EQ(s.next_due(at(60)), a);
  s.polled(a, false, at(50), at(60));  // a closed window: due, nothing to send
  EXPECT_EQ(s.due(a), at(61));
  s.polled(a, false, kNever, at(61));
  EXPECT_EQ(s.due(a), kNever);
  EXPECT_FALSE(s.next_due(at(1000)).has_value());
}

}  // namespace
}  // namespace gw
