// What the data plane and the emulator's other threads (metrics scrapes, the --stats-interval
// writer, SIGHUP reload, the control endpoint) hand each other, so that the forwarding lcores
// never wait on them:
// - counters: each lane (a direction's share of one rx queue) publishes a copy of its counters every publish
// interval
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
#include <vector>

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
  // Lanes per direction: one per rx queue (forwarder.h).
  explicit Exchange(std::uint16_t queues = 1);

  std::uint16_t queues() const { return queues_; }
  // Data plane. With `wait` false it skips the publish when a reader holds the lane's copy.
  void publish(Direction d, std::uint16_t queue, const LaneSnapshot& s, bool wait);
  // One lane's latest copy.
  LaneSnapshot read(Direction d, std::uint16_t queue) const;
  // The direction: its lanes summed (DirectionStats::add); queue_bytes and current_delay_ns are
  // the largest (the lanes share one bottleneck: shared_wire.h) and profile_generation the
  // oldest of theirs.
  LaneSnapshot read(Direction d) const;

  // Control side: hands a validated profile to both lanes; returns its generation (1, 2, ...).
  std::uint64_t offer(std::shared_ptr<const Profile> p);
  // Data plane: the generation last offered (relaxed; compare with the one applied).
  std::uint64_t offered() const { return offered_.load(std::memory_order_acquire); }
  // Data plane: the profile offered last (with its generation).
  std::shared_ptr<const Profile> take(std::uint64_t* generation) const;
  void acknowledge(Direction d, std::uint16_t queue, std::uint64_t generation);
  // The generation every lane of the direction runs (0 = the one they started with).
  std::uint64_t applied(Direction d) const;

 private:
  std::size_t index(Direction d, std::uint16_t queue) const {
    return (d == Direction::kAToB ? 0 : queues_) + queue;
  }

  std::uint16_t queues_;
  // By lane: a_to_b's queues, then b_to_a's.
  mutable std::vector<std::mutex> snapshot_mutex_;
  std::vector<LaneSnapshot> snapshot_;

  mutable std::mutex profile_mutex_;
  std::shared_ptr<const Profile> profile_;
  std::atomic<std::uint64_t> offered_{0};
  std::vector<std::atomic<std::uint64_t>> applied_;
};

}  // namespace gw
