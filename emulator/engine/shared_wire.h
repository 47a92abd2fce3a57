// A bottleneck shared by several engines: the emulator's rx queues each run their own engine
// for the same direction (emulator/dpdk/forwarder.h), on their own lcores, yet a profile's
// `rate` is one link. Each engine's queue stage keeps its own AQM and counters but takes the
// link's time from one SharedWire: a frame arriving at `now` starts at max(now, the instant the
// wire is free) and leaves after its transmit time, claimed with a compare-and-swap on that
// instant, so frames from all queues are served one after another at the link's rate, as in
// the single-engine queue's scheduling at admission (queue_stage.h).
//
// The backlog the limits and the AQM see is derived from the same instant: the bytes the wire
// still has to send at the rate in force, (free - now) x rate. That counts the unsent part of
// the frame on the wire, which a single engine's queue leaves out, so it reads at most one
// frame more (under 0.1 % of RED's usual thresholds).
//
// The engine rule holds: no clock, no I/O; `now` comes from the caller. Lock-free on the
// per-packet path; SharedWires::get() (when engines are built or reconfigured) takes a mutex.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/rate.h"
#include "core/time.h"

namespace gw {

class SharedWire {
 public:
  // When the wire is free for the next frame (kEpoch before the first). Asks for the line in
  // the exclusive state (PREFETCHW) first: a claim follows, and a plain read would fetch the
  // line shared and then have to upgrade it, two transfers between cores instead of one.
  Instant free_at() const {
    __builtin_prefetch(&free_ns_, 1, 3);
    return kEpoch + Duration{free_ns_.load(std::memory_order_acquire)};
  }

  // Bytes the wire still has to send at `now`, at `rate` (0 = unlimited: nothing waits).
  static std::uint64_t backlog_bytes(Instant free, Instant now, BitRate rate) {
    if (free <= now || rate.bps == 0) {
      return 0;
    }
    return static_cast<std::uint64_t>(static_cast<double>((free - now).count()) *
                                      static_cast<double>(rate.bps) / 8e9);
  }

  // Takes the wire for a frame arriving at `now` whose transmission starting at `start` takes
  // tx(start); returns its start and departure. Frames claimed from several threads get
  // consecutive, non-overlapping slots.
  template <typename TxTime>
  std::pair<Instant, Instant> claim(Instant now, TxTime&& tx) {
    std::int64_t free = free_ns_.load(std::memory_order_acquire);
    for (;;) {
      const Instant start = std::max(now, kEpoch + Duration{free});
      const Instant departure = start + tx(start);
      if (free_ns_.compare_exchange_weak(free, (departure - kEpoch).count(), std::memory_order_acq_rel,
                                         std::memory_order_acquire)) {
        return {start, departure};
      }
    }
  }

 private:
  std::atomic<std::int64_t> free_ns_{0};
};

// The floor of order-preserving jitter (delay `reorder_policy: "preserve"`) shared by the
// engines of several queues. One engine raises each packet's time_to_send to the latest it
// handed out, so packets never overtake each other and jitter turns into added delay; how much
// delay depends on how many packets draw before it. With a floor per queue, a queue sees 1/N
// of the packets and its packets gain less (measured: 1 ms of uniform jitter on 100-µs-spaced
// frames added 515-529 µs on average in one queue, 370-382 µs split over two). Raising the floor of
// all queues together keeps one link's order, and its delays, whatever the queue count.
class SharedOrder {
 public:
  // max(at, the latest time_to_send handed out by any queue), which becomes the latest.
  Instant raise(Instant at) {
    const std::int64_t want = (at - kEpoch).count();
    std::int64_t latest = latest_ns_.load(std::memory_order_acquire);
    while (latest < want) {
      if (latest_ns_.compare_exchange_weak(latest, want, std::memory_order_acq_rel,
                                           std::memory_order_acquire)) {
        return at;
      }
    }
    return kEpoch + Duration{latest};
  }

 private:
  std::atomic<std::int64_t> latest_ns_{std::numeric_limits<std::int64_t>::min()};
};

// The real packets held by the engines of one pipeline over several queues, for a packet limit
// on them all (the direction's `limit_packets`, netem's `limit`). Each engine publishes its own
// count, on a cache line of its own, when it advances (once per loop of its lcore), and reads
// the others' then: between two of its loops an engine admits against its own exact count plus
// the others' as of their last loop, so the limit is passed by at most what the other queues
// took in one loop (one rx burst each), and no cache line moves between lcores per packet.
class SharedHeld {
 public:
  static constexpr unsigned kLanes = 16;  // the most rx queues `gradwall emu` takes

  // An engine of lane `lane` counts here (when engines are built).
  void add_lane(unsigned lane) {
    if (lane >= kLanes) {
      throw std::invalid_argument("SharedHeld: lane " + std::to_string(lane) +
                                  " >= " + std::to_string(kLanes));
    }
    unsigned n = lanes_.load(std::memory_order_relaxed);
    while (n < lane + 1 && !lanes_.compare_exchange_weak(n, lane + 1, std::memory_order_relaxed)) {
    }
  }

  // Publishes `held` as `lane`'s count (a store only when it changed, so an idle lane's line
  // stays shared); returns the other lanes' sum.
  std::uint64_t exchange(unsigned lane, std::uint64_t held) {
    if (slots_[lane].n.load(std::memory_order_relaxed) != held) {
      slots_[lane].n.store(held, std::memory_order_relaxed);
    }
    std::uint64_t others = 0;
    const unsigned n = lanes_.load(std::memory_order_relaxed);
    for (unsigned i = 0; i < n; ++i) {
      others += i == lane ? 0 : slots_[i].n.load(std::memory_order_relaxed);
    }
    return others;
  }

 private:
  struct alignas(64) Slot {
    std::atomic<std::uint64_t> n{0};
  };
  std::array<Slot, kLanes> slots_{};
  std::atomic<unsigned> lanes_{0};  // 1 + the highest lane added
};

// The shared wires of one direction, one per pipeline (the default's, and each class's by name):
// what the engines of that direction's queues pass to DirectionEngine. Each pipeline also has
// its shared order floor and its shared count of held packets.
class SharedWires {
 public:
  SharedWire* get(const std::string& pipeline) { return find(pipeline).wire.get(); }
  SharedOrder* order(const std::string& pipeline) { return find(pipeline).order.get(); }
  SharedHeld* held(const std::string& pipeline) { return find(pipeline).held.get(); }

 private:
  struct Shared {
    std::unique_ptr<SharedWire> wire = std::make_unique<SharedWire>();
    std::unique_ptr<SharedOrder> order = std::make_unique<SharedOrder>();
    std::unique_ptr<SharedHeld> held = std::make_unique<SharedHeld>();
  };
  Shared& find(const std::string& pipeline) {
    const std::lock_guard<std::mutex> lock(mutex_);
    return shared_[pipeline];
  }

  std::mutex mutex_;
  std::map<std::string, Shared> shared_;
};

}  // namespace gw
