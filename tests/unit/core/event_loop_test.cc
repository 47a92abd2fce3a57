#include "core/event_loop.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace gw {
namespace {

struct Recorder : Wakeable {
  explicit Recorder(EventLoop& loop, int id, std::vector<std::pair<int, std::int64_t>>& log)
      : timer(loop, *this), id_(id), log_(&log) {}
  void wake(Instant now) override { log_->emplace_back(id_, ns_of(now)); }
  Timer timer;

 private:
  int id_;
  std::vector<std::pair<int, std::int64_t>>* log_;
};

TEST(EventLoop, RunsInTimeOrderAndTiesInSchedulingOrder) {
  EventLoop loop;
  std::vector<std::pair<int, std::int64_t>> log;
  Recorder a(loop, 1, log);
  Recorder b(loop, 2, log);
  Recorder c(loop, 3, log);
  c.timer.arm(at_ns(50));
  b.timer.arm(at_ns(10));
  a.timer.arm(at_ns(10));
  EXPECT_EQ(loop.run_until(at_ns(100)), 3U);
  const std::vector<std::pair<int, std::int64_t>> want{{2, 10}, {1, 10}, {3, 50}};
  EXPECT_EQ(log, want);
  EXPECT_EQ(ns_of(loop.now()), 100);
}

TEST(EventLoop, RearmingReplacesThePendingInstant) {
  EventLoop loop;
  std::vector<std::pair<int, std::int64_t>> log;
  Recorder a(loop, 1, log);
  a.timer.arm(at_ns(10));
  a.timer.arm(at_ns(30));
  a.timer.arm(at_ns(20));
  loop.run_until(at_ns(100));
  ASSERT_EQ(log.size(), 1U);
  EXPECT_EQ(log[0].second, 20);
  a.timer.arm(at_ns(150));
  a.timer.cancel();
  EXPECT_EQ(loop.run_until(at_ns(200)), 0U);
}

TEST(EventLoop, ArmingInThePastIsALogicError) {
  EventLoop loop;
  std::vector<std::pair<int, std::int64_t>> log;
  Recorder a(loop, 1, log);
  loop.run_until(at_ns(100));
  EXPECT_THROW(a.timer.arm(at_ns(99)), std::logic_error);
  EXPECT_NO_THROW(a.timer.arm(at_ns(100)));
}

TEST(EventLoop, EventsAfterTheEndStayPending) {
  EventLoop loop;
  std::vector<std::pair<int, std::int64_t>> log;
  Recorder a(loop, 1, log);
  a.timer.arm(at_ns(500));
  EXPECT_EQ(loop.run_until(at_ns(100)), 0U);
  EXPECT_EQ(ns_of(loop.next_event_time()), 500);
  EXPECT_TRUE(loop.step());
  EXPECT_EQ(ns_of(loop.now()), 500);
}

}  // namespace
}  // namespace gw
