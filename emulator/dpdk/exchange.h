// What the data plane and the emulator's other threads (metrics scrapes, the --stats-interval
// writer, SIGHUP reload, the control endpoint) hand each other, so that the forwarding lcores
// never wait on them:
// - counters: each lane (direction) publishes a copy of its counters every publish interval
//   (forwarder.h, ~100 ms) under a per-lane mutex it only try-locks; readers get the latest
//   copy. Counters only grow, so a skipped publish is made good by the next one.
// - profiles: a new validated profile is offered with a generation number (one relaxed atomic
//   load per loop on the data plane to notice it); each lane takes it, applies it with
//   DirectionEngine::reconfigure (packets in flight stay) and acknowledges the generation.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "emulator/dpdk/stats.h"
#include "emulator/engine/engine.h"
#include "emulator/engine/spec.h"

namespace gw {

// One direction's counters and gauges at the moment it was published.
struct LaneSnapshot {
  DirectionStats stats;               // stats.held = what the lane held then (engine + waiting for tx)
  std::uint64_t queue_bytes = 0;      // bytes in the bottleneck queues of the lane's pipelines
  std::int64_t current_delay_ns = 0;  // intended delay (release - arrival) of the last frame sent
  std::uint64_t profile_generation = 0;
};

class Exchange {
 public:
  // Data plane. With `wait` false it skips the publish when a reader holds the lane's copy.
  void publish(Direction d, const LaneSnapshot& s, bool wait);
  LaneSnapshot read(Direction d) const;

  // Control side: hands a validated profile to both lanes; returns its generation (1, 2, ...).
  std::uint64_t offer(std::shared_ptr<const Profile> p);
  // Data plane: the generation last offered (relaxed; compare with the one applied).
  std::uint64_t offered() const { return offered_.load(std::memory_order_acquire); }
  // Data plane: the profile offered last (with its generation).
  std::shared_ptr<const Profile> take(std::uint64_t* generation) const;
  void acknowledge(Direction d, std::uint64_t generation);
  // The generation a lane runs (0 = the one it started with).
  std::uint64_t applied(Direction d) const { return applied_[index(d)].load(std::memory_order_acquire); }

 private:
  static std::size_t index(Direction d) { return d == Direction::kAToB ? 0 : 1; }

  mutable std::array<std::mutex, 2> snapshot_mutex_;
  std::array<LaneSnapshot, 2> snapshot_;

  mutable std::mutex profile_mutex_;
  std::shared_ptr<const Profile> profile_;
  std::atomic<std::uint64_t> offered_{0};
  std::array<std::atomic<std::uint64_t>, 2> applied_{};
};

}  // namespace gw
