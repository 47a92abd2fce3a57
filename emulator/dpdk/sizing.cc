#include "emulator/dpdk/sizing.h"

#include <algorithm>
#include <limits>

#include "emulator/engine/engine.h"

namespace gw {
namespace {

BitRate highest_rate(const DirectionSpec& d, BitRate link) {
  if (!d.rate) {
    return link;
  }
  if (!d.rate->trace.empty()) {
    BitRate r{};
    for (const RateTracePoint& p : d.rate->trace) {
      r.bps = std::max(r.bps, p.rate.bps);
    }
    return r.bps > 0 ? r : link;
  }
  return d.rate->rate.bps > 0 ? d.rate->rate : link;
}

Duration longest_hold(const DirectionSpec& d) {
  Duration t{0};
  if (d.delay) {
    t += d.delay->delay + 4 * d.delay->jitter;
  }
  if (d.slot) {
    t += std::max(d.slot->max_delay, d.slot->dist_delay + 4 * d.slot->dist_jitter);
  }
  if (d.queue && d.queue->limit_time) {
    t += *d.queue->limit_time;
  }
  return t;
}

std::uint64_t queue_frames(const DirectionSpec& d) {
  std::uint64_t n = 0;
  if (d.queue && d.queue->limit_packets) {
    n = *d.queue->limit_packets;
  } else if (d.queue && d.queue->limit_bytes) {
    n = (*d.queue->limit_bytes + kFullFrameWireBytes - 1) / kFullFrameWireBytes;
  }
  if (d.limit_packets) {
    n = std::max(n, *d.limit_packets);
  }
  return n;
}

std::uint64_t frames_for(const DirectionSpec& d, BitRate link) {
  const std::uint64_t flight = highest_rate(d, link).bytes_in(longest_hold(d)) / kFullFrameWireBytes;
  const double dup = d.duplicate ? d.duplicate->p : 0.0;
  return static_cast<std::uint64_t>(static_cast<double>(flight + queue_frames(d)) * (1.0 + dup)) + 1;
}

std::uint64_t direction_frames(const Profile& p, Direction dir, BitRate link) {
  std::uint64_t n = 0;
  for_each_direction(p, dir, [&](const DirectionSpec& d) { n = std::max(n, frames_for(d, link)); });
  return n;
}

}  // namespace

PoolSizing size_mbuf_pool(const Profile& profile, BitRate link, std::uint64_t fixed) {
  if (link.bps == 0) {
    link = BitRate{10'000'000'000ULL};
  }
  PoolSizing s;
  s.in_flight_a_to_b = direction_frames(profile, Direction::kAToB, link);
  s.in_flight_b_to_a = direction_frames(profile, Direction::kBToA, link);
  s.fixed = fixed;
  const std::uint64_t total = s.in_flight_a_to_b + s.in_flight_b_to_a + fixed;
  s.mbufs = static_cast<std::uint32_t>(
      std::clamp<std::uint64_t>(total, kMinMbufs, std::numeric_limits<std::uint32_t>::max()));
  return s;
}

std::uint64_t pool_mib(std::uint64_t mbufs, std::uint64_t object_bytes) {
  return (mbufs * object_bytes + (1 << 20) - 1) / (1 << 20) + 16;
}

}  // namespace gw
