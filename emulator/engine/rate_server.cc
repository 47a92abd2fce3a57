#include "emulator/engine/rate_server.h"

#include <algorithm>
#include <iterator>

namespace gw {
namespace {

// Mahimahi's delivery opportunity carries one MTU-sized packet (mahimahi link_queue.hh,
// PACKET_SIZE = 1504 bytes).
constexpr std::uint32_t kMahimahiOpportunityBytes = 1504;

// Position of `t` inside a repeating schedule of length `period` (0 = not repeating).
Duration phase_of(Instant t, Duration period) {
  const Duration since = t.time_since_epoch();
  return period.count() > 0 ? Duration{since.count() % period.count()} : since;
}

}  // namespace

BitRate RateServer::traced_rate(Instant now) const {
  const Duration pos = phase_of(now, s_.trace_period);
  // Last trace point at or before pos; before the first point the first rate applies.
  auto it = std::upper_bound(s_.trace.begin(), s_.trace.end(), pos,
                             [](Duration d, const RateTracePoint& tp) { return d < tp.at; });
  if (it == s_.trace.begin()) {
    return it->rate;
  }
  return std::prev(it)->rate;
}

Duration RateServer::transmit_time_slow(std::uint32_t size_bytes, Instant now) const {
  const Duration tx = compute_transmit_time(size_bytes, now);
  tx_size_ = size_bytes;
  tx_last_ = tx;
  return tx;
}

Duration RateServer::compute_transmit_time(std::uint32_t size_bytes, Instant now) const {
  const BitRate r = rate_at(now);
  if (r.unlimited()) {
    return Duration{0};
  }
  // netem packet_time_ns(): len + packet_overhead, then whole cells of cell_size +
  // cell_overhead when a cell size is set.
  std::int64_t len = static_cast<std::int64_t>(size_bytes) + s_.packet_overhead_bytes;
  if (s_.cell_bytes > 0) {
    const std::int64_t cells = (len + s_.cell_bytes - 1) / s_.cell_bytes;
    len = cells * (static_cast<std::int64_t>(s_.cell_bytes) + s_.cell_overhead_bytes);
  }
  return r.transmit_time(static_cast<std::uint64_t>(std::max<std::int64_t>(len, 0)));
}

Instant RateServer::next_opportunity(Instant after) const {
  const auto& ops = s_.mahimahi;
  const Duration period = s_.mahimahi_period;
  const Duration pos = phase_of(after, period);
  const Instant cycle_start = after - pos;
  auto it = std::lower_bound(ops.begin(), ops.end(), pos);
  if (it != ops.end()) {
    return cycle_start + *it;
  }
  if (period.count() == 0) {
    return kNever;  // a non-repeating trace has ended: the link is gone
  }
  return cycle_start + period + ops.front();
}

std::uint32_t RateServer::opportunity_bytes(Instant now) const {
  const Duration pos = phase_of(now, s_.mahimahi_period);
  const auto [lo, hi] = std::equal_range(s_.mahimahi.begin(), s_.mahimahi.end(), pos);
  return kMahimahiOpportunityBytes * static_cast<std::uint32_t>(std::max<std::ptrdiff_t>(1, hi - lo));
}

bool RateServer::send_head(std::uint32_t& budget, std::uint32_t head_bytes) {
  // mahimahi LinkQueue::use_a_delivery_opportunity: what is left of one opportunity goes to
  // the next packet, which may finish at a later one.
  if (head_owed_ == 0) {
    head_owed_ = head_bytes;
  }
  const std::uint32_t used = std::min(budget, head_owed_);
  budget -= used;
  head_owed_ -= used;
  return head_owed_ == 0;
}

}  // namespace gw
