// Which queue pair of a host runs next, in virtual time (harness/sim: the simulated NIC takes
// one packet per turn) and in real time (harness/live/endpoints/qp_driver.h: a live endpoint
// polls the due pairs each time round its loop). The pairs wait in order of the instant they
// next want to send; among those due at one instant, in the order they became due, so the
// host goes round them (as an RDMA NIC arbitrates among its send queues) without scanning
// every pair.
//
// The scheduler holds slots, not queue pairs: the caller gives each pair's next_wakeup()
// whenever it changed. It takes `now` and does no I/O.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

#include "core/indexed_heap.h"
#include "core/time.h"

namespace gw {

class QpScheduler {
 public:
  using Slot = std::uint32_t;
  // A pass over the pairs due at one instant (begin_round): each is offered once, so a pair
  // that is still due after its turn waits for the next pass.
  struct Round {
    std::uint64_t first_later = std::numeric_limits<std::uint64_t>::max();
  };

  // A new pair, idle until touched.
  Slot add() {
    const auto slot = static_cast<Slot>(count_++);
    ready_.resize(count_);
    return slot;
  }

  // The pair in `slot` changed (a segment arrived, a message was posted) and now wants to
  // run at `when` (its next_wakeup(); kNever when idle). A pair already due and still due
  // keeps its place: requeued at each touch, a pair with an ACK waiting went behind a busy
  // sending pair at every arriving packet and could wait as long as data kept arriving (a
  // WAN ring step's ACK ~100 us: spurious RTOs at 1,024 ranks), and a live pair lost the
  // lateness it is owed (qp_driver.cc kCatchUp).
  void touch(Slot slot, Instant when, Instant now) {
    if (when > now || !ready_.contains(slot) || ready_.key(slot).first > now) {
      requeue(slot, when, now);
    }
  }

  // The pair in `slot` had its turn at `now`, sent a segment or not (`sent`), and now wants
  // to run at `when`. Due but with nothing to send (a closed window) would be a loop at one
  // instant: it asks again a nanosecond later.
  void polled(Slot slot, bool sent, Instant when, Instant now) {
    requeue(slot, !sent && when <= now ? now + Duration{1} : when, now);
  }

  // The pair whose turn it is at `now`; nullopt when none is due.
  std::optional<Slot> next_due(Instant now) const { return next_due(now, Round{}); }
  Round begin_round() const { return Round{next_seq_}; }
  // As next_due, but nullopt once every pair due when `round` began has had its turn.
  std::optional<Slot> next_due(Instant now, Round round) const {
    if (ready_.empty()) {
      return std::nullopt;
    }
    const Key& k = ready_.key(ready_.top());
    if (k.first > now || k.second >= round.first_later) {
      return std::nullopt;
    }
    return ready_.top();
  }

  // When `slot` asked to run (kNever when idle): a live pair is polled from there.
  Instant due(Slot slot) const { return ready_.contains(slot) ? ready_.key(slot).first : kNever; }
  // The earliest instant a pair wants to run; kNever when all are idle.
  Instant next_wakeup() const { return ready_.empty() ? kNever : ready_.key(ready_.top()).first; }

 private:
  using Key = std::pair<Instant, std::uint64_t>;  // (when, the order it became so)
  void requeue(Slot slot, Instant when, Instant now) {
    if (when == kNever) {
      ready_.erase(slot);
    } else {
      ready_.set(slot, Key{std::max(when, now), next_seq_++});
    }
  }

  std::size_t count_ = 0;
  IndexedHeap<Key> ready_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace gw
