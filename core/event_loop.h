// The discrete-event core of the simulator (in the spirit of htsim's eventlist.h): integer
// nanosecond time, deterministic tie-breaking (events at the same instant run in the order
// they were scheduled), and a check that time never goes backwards. No global state: every
// simulation owns its loop.
//
// Components that know "when do I next need to run" (a pipeline's next wakeup, a queue
// pair's next send) own a Timer and re-arm it after every change. The loop keeps armed timers
// in an indexed binary heap (each timer knows its slot), so re-arming moves the timer in place
// in O(log n) of the number of timers, and no stale entries pile up.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/time.h"

namespace gw {

class EventLoop;

// Something that runs at the instants it asks for.
class Wakeable {
 public:
  virtual ~Wakeable() = default;
  virtual void wake(Instant now) = 0;
};

// One pending wakeup of one Wakeable. Arming it again replaces the pending instant.
class Timer {
 public:
  Timer(EventLoop& loop, Wakeable& target) : loop_(&loop), target_(&target) {}
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // Run the target at `at` (kNever cancels). Arming at an instant before the loop's current
  // time is a logic error (std::logic_error): time never goes backwards. Timers armed for the
  // same instant run in the order they were armed.
  void arm(Instant at);
  void cancel() { arm(kNever); }
  Instant armed_at() const;

 private:
  friend class EventLoop;
  static constexpr std::size_t kNotQueued = std::numeric_limits<std::size_t>::max();
  EventLoop* loop_;
  Wakeable* target_;
  Instant at_ = kNever;
  std::uint64_t seq_ = 0;  // tie-break: arming order
  std::size_t slot_ = kNotQueued;
};

class EventLoop {
 public:
  Instant now() const { return now_; }

  // Runs events in time order until none is left at or before `end`; the loop's time is then
  // `end`. Returns the number of events run.
  std::uint64_t run_until(Instant end);
  // Runs the next event, if any; false when none is armed.
  bool step();
  // The instant of the next event, or kNever.
  Instant next_event_time() const { return heap_.empty() ? kNever : heap_.front()->at_; }

  std::uint64_t events_run() const { return events_run_; }

 private:
  friend class Timer;
  static bool earlier(const Timer* a, const Timer* b) {
    return a->at_ != b->at_ ? a->at_ < b->at_ : a->seq_ < b->seq_;
  }
  void insert(Timer& t);
  void remove(Timer& t);
  void sift_up(std::size_t i);
  void sift_down(std::size_t i);
  void place(std::size_t i, Timer* t) {
    heap_[i] = t;
    t->slot_ = i;
  }

  std::vector<Timer*> heap_;
  Instant now_ = kEpoch;
  std::uint64_t seq_ = 0;
  std::uint64_t events_run_ = 0;
  // The timer whose target step() is running, until that target re-arms, cancels or destroys
  // it (then null). It stays queued with its key (the smallest) while its target runs, so
  // that re-arming from its own wake() is one in-place move instead of a removal and an
  // insertion; step() removes it afterwards if it is still set.
  Timer* firing_ = nullptr;
};

inline Instant Timer::armed_at() const {
  return loop_->firing_ == this ? kNever : at_;
}

}  // namespace gw
