// The bookkeeping of scheduling at admission (queue_stage.h): packets whose departure the
// queue stage computed when they arrived, and which went on at once. Each is kept as
// (start, departure, bytes) until it has left, so that the queue's occupancy, its limits and
// its AQM see the backlog they would have seen had the packets waited for events. At most one
// of them is on the wire at a time: each starts when the one before it leaves.
//
// The queue owns the occupancy counts; settle() tells it, in order, which waiting packets
// have started service by `now` (and so left the queue for the wire).
#pragma once

#include <cstdint>

#include "core/ring.h"
#include "core/time.h"

namespace gw {

class ScheduledBacklog {
 public:
  struct Entry {
    Instant start;      // when it takes the wire
    Instant departure;  // when its last bit has left
    Instant enqueued;
    std::uint32_t bytes;
  };

  // Packets waiting for the wire (the one on it excluded).
  bool empty() const { return waiting_.empty(); }
  std::size_t size() const { return waiting_.size(); }
  const Entry& front() const { return waiting_.front(); }

  // The last scheduled departure: when the wire is free for the next packet.
  Instant wire_free() const { return wire_free_; }
  // The scheduled packet on the wire, as far as settle() knows: 0 or 1, and its bytes.
  std::uint64_t on_wire_packets() const { return on_wire_.departure != kNever ? 1 : 0; }
  std::uint64_t on_wire_bytes() const { return on_wire_.bytes; }
  // When the one on the wire leaves, or else the next waiting one starts; kNever if none.
  Instant next_change() const {
    return on_wire_.departure != kNever ? on_wire_.departure
                                        : (waiting_.empty() ? kNever : waiting_.front().departure);
  }

  // A packet of `bytes` arriving at `now` starts at `start` (>= now, >= wire_free()) and
  // leaves at `departure`. True when it waits behind others until `start`; false when it
  // takes the wire at once, with nothing waiting.
  bool add(Instant now, Instant start, Instant departure, std::uint32_t bytes) {
    wire_free_ = departure;
    if (start > now) {
      // Filled in place: an Entry built on the stack and copied would be reloaded across the
      // stores that built it (a store-forwarding stall on every queued packet).
      Entry& e = waiting_.push_slot();
      e.start = start;
      e.departure = departure;
      e.enqueued = now;
      e.bytes = bytes;
      return true;
    }
    if (departure > now) {
      on_wire_ = {departure, bytes};
    }
    return false;
  }

  // Whether settle(now) has anything to do.
  bool due(Instant now) const {
    return (!waiting_.empty() && waiting_.front().start <= now) || on_wire_.departure <= now;
  }
  // Accounts for service starts and departures up to `now`: started(e) for each waiting
  // packet that took the wire, in order.
  template <typename Started>
  void settle(Instant now, Started&& started) {
    while (!waiting_.empty() && waiting_.front().start <= now) {
      // It starts when the one on the wire leaves (start = max(arrival, last departure)), so
      // it takes the wire's place.
      const Entry& e = waiting_.front();
      started(e);
      on_wire_ = {e.departure, e.bytes};
      waiting_.pop_discard();
    }
    if (on_wire_.departure <= now) {
      on_wire_ = {};
    }
  }

 private:
  struct OnWire {
    Instant departure = kNever;  // kNever: none
    std::uint32_t bytes = 0;
  };

  Ring<Entry> waiting_;
  OnWire on_wire_;
  Instant wire_free_ = Instant::min();
};

}  // namespace gw
