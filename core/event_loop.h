// The discrete-event core of the simulator (in the spirit of htsim's eventlist.h): integer
// nanosecond time, deterministic tie-breaking (events at the same instant run in the order
// they were scheduled), and a check that time never goes backwards. No global state: every
// simulation owns its loop.
//
// Components that know "when do I next need to run" (a pipeline's next wakeup, a queue
// pair's next send) own a Timer and re-arm it after every change. Re-arming does not search
// the heap: the old entry stays and is skipped when it comes up (lazy deletion by generation),
// so every operation is O(log n) in the number of armed timers.
#pragma once

#include <cstdint>
#include <queue>
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
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // Run the target at `at` (kNever cancels). Arming at an instant before the loop's current
  // time is a logic error (std::logic_error): time never goes backwards.
  void arm(Instant at);
  void cancel() { arm(kNever); }
  Instant armed_at() const { return at_; }

 private:
  friend class EventLoop;
  EventLoop* loop_;
  Wakeable* target_;
  Instant at_ = kNever;
  std::uint64_t generation_ = 0;
};

class EventLoop {
 public:
  Instant now() const { return now_; }

  // Runs events in time order until none is left at or before `end`; the loop's time is then
  // `end` (or the last event's time if that is later, which cannot happen). Returns the
  // number of events run.
  std::uint64_t run_until(Instant end);
  // Runs the next event, if any; false when none is armed.
  bool step();
  // The instant of the next live event, or kNever.
  Instant next_event_time();

  std::uint64_t events_run() const { return events_run_; }

 private:
  friend class Timer;
  struct Entry {
    Instant at;
    std::uint64_t seq;
    Timer* timer;
    std::uint64_t generation;
  };
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.at != b.at ? a.at > b.at : a.seq > b.seq;
    }
  };
  void push(Timer& t);
  void drop_stale();

  std::priority_queue<Entry, std::vector<Entry>, Later> heap_;
  Instant now_ = kEpoch;
  std::uint64_t seq_ = 0;
  std::uint64_t events_run_ = 0;
};

}  // namespace gw
