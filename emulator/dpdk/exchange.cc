#include "emulator/dpdk/exchange.h"

#include <utility>

namespace gw {

void Exchange::publish(Direction d, const LaneSnapshot& s, bool wait) {
  std::unique_lock<std::mutex> lock(snapshot_mutex_[index(d)], std::defer_lock);
  if (wait) {
    lock.lock();
  } else if (!lock.try_lock()) {
    return;
  }
  snapshot_[index(d)] = s;
}

LaneSnapshot Exchange::read(Direction d) const {
  const std::lock_guard<std::mutex> lock(snapshot_mutex_[index(d)]);
  return snapshot_[index(d)];
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

void Exchange::acknowledge(Direction d, std::uint64_t generation) {
  applied_[index(d)].store(generation, std::memory_order_release);
}

}  // namespace gw
