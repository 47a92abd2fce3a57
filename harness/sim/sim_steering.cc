#include "harness/sim/sim_steering.h"

#include <algorithm>

namespace gw {

PathReading HopMeter::read(std::uint32_t from, std::uint32_t to, std::uint32_t path, Instant now,
                           double seconds) {
  PathReading r;
  double delivered_share = 1;
  const std::vector<std::size_t> hops = net_->wan_hops(from, to, path);
  for (std::size_t h : hops) {
    const PipelineCounters c = net_->hop_counters(h);
    const PipelineCounters& was = last_hop_[h];
    const std::uint64_t in = c.packets_in - was.packets_in;
    const std::uint64_t dropped = c.dropped_total() - was.dropped_total();
    const std::uint64_t bytes = c.bytes_delivered - was.bytes_delivered;
    if (h == hops.front()) {
      r.packets = in;
    }
    if (h == hops.back()) {
      r.bytes_delivered = bytes;
    }
    if (in > 0) {
      delivered_share *= 1 - std::min(1.0, static_cast<double>(dropped) / static_cast<double>(in));
    }
    const BitRate rate = net_->hop_rate_at(h, now);
    if (!rate.unlimited()) {
      r.queue_delay += rate.transmit_time(net_->hop_queue_bytes(h));
      r.utilization =
          std::max(r.utilization, static_cast<double>(bytes) * 8 / (static_cast<double>(rate.bps) * seconds));
    }
  }
  r.loss = 1 - delivered_share;
  return r;
}

void HopMeter::next_interval() {
  for (std::size_t h = 0; h < last_hop_.size(); ++h) {
    last_hop_[h] = net_->hop_counters(h);
  }
}

}  // namespace gw
