#include "emulator/dpdk/exchange.h"

#include <algorithm>
#include <utility>

namespace gw {

Exchange::Exchange(std::uint16_t queues)
    : queues_(std::max<std::uint16_t>(queues, 1)),
      snapshot_mutex_(2U * queues_),
      snapshot_(2U * queues_),
      applied_(2U * queues_) {}

void Exchange::publish(Direction d, std::uint16_t queue, const LaneSnapshot& s, bool wait) {
  std::unique_lock<std::mutex> lock(snapshot_mutex_[index(d, queue)], std::defer_lock);
  if (wait) {
    lock.lock();
  } else if (!lock.try_lock()) {
    return;
  }
  snapshot_[index(d, queue)] = s;
}

LaneSnapshot Exchange::read(Direction d, std::uint16_t queue) const {
  const std::lock_guard<std::mutex> lock(snapshot_mutex_[index(d, queue)]);
  return snapshot_[index(d, queue)];
}

LaneSnapshot Exchange::read(Direction d) const {
  LaneSnapshot sum = read(d, 0);
  for (std::uint16_t q = 1; q < queues_; ++q) {
    const LaneSnapshot s = read(d, q);
    sum.stats.add(s.stats);
    sum.queue_bytes = std::max(sum.queue_bytes, s.queue_bytes);  // one shared bottleneck
    sum.current_delay_ns = std::max(sum.current_delay_ns, s.current_delay_ns);
    sum.profile_generation = std::min(sum.profile_generation, s.profile_generation);
  }
  return sum;
}

std::uint64_t Exchange::offer(std::shared_ptr<const Profile> p) {
  const std::lock_guard<std::mutex> lock(profile_mutex_);
  profile_ = std::move(p);
  const std::uint64_t g = offered_.load(std::memory_order_relaxed) + 1;
  offered_.store(g, std::memory_order_release);
  return g;
}

std::shared_ptr<const Profile> Exchange::take(std::uint64_t* generation) const {
  const std::lock_guard<std::mutex> lock(profile_mutex_);
  *generation = offered_.load(std::memory_order_relaxed);
  return profile_;
}

void Exchange::acknowledge(Direction d, std::uint16_t queue, std::uint64_t generation) {
  applied_[index(d, queue)].store(generation, std::memory_order_release);
}

std::uint64_t Exchange::applied(Direction d) const {
  std::uint64_t g = UINT64_MAX;
  for (std::uint16_t q = 0; q < queues_; ++q) {
    g = std::min(g, applied_[index(d, q)].load(std::memory_order_acquire));
  }
  return g;
}

}  // namespace gw
