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
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
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

// The shared wires of one direction, one per pipeline (the default's, and each class's by name):
// what the engines of that direction's queues pass to DirectionEngine.
class SharedWires {
 public:
  SharedWire* get(const std::string& pipeline) {
    const std::lock_guard<std::mutex> lock(mutex_);
    std::unique_ptr<SharedWire>& w = wires_[pipeline];
    if (!w) {
      w = std::make_unique<SharedWire>();
    }
    return w.get();
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<SharedWire>> wires_;
};

}  // namespace gw
