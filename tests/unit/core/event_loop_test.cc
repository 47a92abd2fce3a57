#include "core/event_loop.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "core/rng.h"

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

// A timer's own target re-arms it, cancels it or destroys it while it runs (step() keeps the
// firing timer queued so that re-arming it is one move): each case behaves as if the timer had
// been unarmed before wake().
struct SelfArming : Wakeable {
  explicit SelfArming(EventLoop& loop) : timer(loop, *this) {}
  void wake(Instant now) override {
    seen.push_back(ns_of(now));
    EXPECT_EQ(timer.armed_at(), kNever) << "a running timer is not armed";
    if (action) {
      action(now);
    }
  }
  Timer timer;
  std::vector<std::int64_t> seen;
  std::function<void(Instant)> action;
};

TEST(EventLoop, ATimerRearmedFromItsOwnWakeRunsAgainAfterTheOthersOfThatInstant) {
  EventLoop loop;
  std::vector<std::pair<int, std::int64_t>> log;
  SelfArming a(loop);
  Recorder b(loop, 2, log);
  int runs = 0;
  a.action = [&](Instant now) {
    if (++runs == 1) {
      b.timer.arm(now);  // armed first: runs before a's own re-arm at the same instant
      a.timer.arm(now);
    } else if (runs == 2) {
      a.timer.arm(now + Duration{5});
    }
  };
  a.timer.arm(at_ns(10));
  EXPECT_EQ(loop.run_until(at_ns(100)), 4U);
  EXPECT_EQ(a.seen, (std::vector<std::int64_t>{10, 10, 15}));
  EXPECT_EQ(log, (std::vector<std::pair<int, std::int64_t>>{{2, 10}}));
}

TEST(EventLoop, ATimerCancelledOrDestroyedInItsOwnWakeDoesNotRunAgain) {
  EventLoop loop;
  SelfArming a(loop);
  a.action = [&](Instant now) {
    a.timer.arm(now + Duration{5});
    a.timer.cancel();
  };
  a.timer.arm(at_ns(10));
  EXPECT_EQ(loop.run_until(at_ns(100)), 1U);
  a.timer.arm(at_ns(200));  // usable again afterwards
  a.action = nullptr;
  EXPECT_EQ(loop.run_until(at_ns(300)), 1U);

  // The running timer destroyed by its target (an owner dropping its timer in wake()).
  struct DropsItsTimer : Wakeable {
    void wake(Instant now) override {
      other->arm(now + Duration{1});
      timer.reset();
    }
    std::unique_ptr<Timer> timer;
    Timer* other = nullptr;
  };
  std::vector<std::pair<int, std::int64_t>> log;
  Recorder b(loop, 2, log);
  DropsItsTimer d;
  d.timer = std::make_unique<Timer>(loop, d);
  d.other = &b.timer;
  d.timer->arm(at_ns(400));
  EXPECT_EQ(loop.run_until(at_ns(500)), 2U);
  EXPECT_EQ(d.timer, nullptr);
  EXPECT_EQ(log, (std::vector<std::pair<int, std::int64_t>>{{2, 401}}));
}

// Differential: random arms, re-arms (also of the running timer, from its own wake) and
// cancels, against a reference keeping (instant, arming order) keys in a std::set -- the
// loop's documented order. 3,000 events over 50 timers, instants drawn from a small range so
// that ties are frequent.
struct RandomModel;
struct RandomNode : Wakeable {
  RandomNode(EventLoop& loop, RandomModel& m, int i) : timer(loop, *this), model(&m), id(i) {}
  void wake(Instant now) override;
  Timer timer;
  RandomModel* model;
  int id;
};

struct RandomModel {
  EventLoop loop;
  Rng rng{7, "event-loop-test"};
  std::vector<std::unique_ptr<RandomNode>> nodes;
  std::set<std::tuple<std::int64_t, std::uint64_t, int>> ref;
  std::map<int, std::tuple<std::int64_t, std::uint64_t, int>> key;
  std::uint64_t seq = 0;
  std::vector<int> got;

  void arm(int i, std::int64_t at) {
    if (auto it = key.find(i); it != key.end() && std::get<0>(it->second) == at) {
      nodes[static_cast<std::size_t>(i)]->timer.arm(at_ns(at));
      return;  // re-arming at the pending instant keeps its place among that instant's timers
    }
    forget(i);
    nodes[static_cast<std::size_t>(i)]->timer.arm(at_ns(at));
    key[i] = {at, seq++, i};
    ref.insert(key[i]);
  }
  void cancel(int i) {
    forget(i);
    nodes[static_cast<std::size_t>(i)]->timer.cancel();
  }
  void forget(int i) {
    if (auto it = key.find(i); it != key.end()) {
      ref.erase(it->second);
      key.erase(it);
    }
  }
  void poke(int self, std::int64_t now) {
    const double u = rng.uniform();
    const int j = u < 0.5 ? self : static_cast<int>(rng.below(nodes.size()));
    if (rng.uniform() < 0.15) {
      cancel(j);
    } else {
      arm(j, now + static_cast<std::int64_t>(rng.below(4)));
    }
  }
};

void RandomNode::wake(Instant now) {
  model->got.push_back(id);
  const int pokes = 1 + static_cast<int>(model->rng.below(3));
  for (int k = 0; k < pokes; ++k) {
    model->poke(id, ns_of(now));
  }
}

TEST(EventLoop, RandomSchedulesRunInTheReferenceOrder) {
  RandomModel m;
  for (int i = 0; i < 50; ++i) {
    m.nodes.push_back(std::make_unique<RandomNode>(m.loop, m, i));
  }
  for (int i = 0; i < 50; ++i) {
    m.arm(i, static_cast<std::int64_t>(m.rng.below(10)));
  }
  std::vector<int> want;
  while (want.size() < 3000 && !m.ref.empty()) {
    const auto [at, s, id] = *m.ref.begin();
    m.ref.erase(m.ref.begin());
    m.key.erase(id);
    want.push_back(id);
    ASSERT_TRUE(m.loop.step());
    ASSERT_EQ(ns_of(m.loop.now()), at);
  }
  EXPECT_EQ(want.size(), 3000U) << "the schedule died out early";
  EXPECT_EQ(m.got, want);
}

}  // namespace
}  // namespace gw
