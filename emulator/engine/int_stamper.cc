#include "emulator/engine/int_stamper.h"

#include <algorithm>

namespace gw {

void IntStamper::count_busy(Duration since, Duration tx) {
  // Utilization: EWMA (weight 1/8) of the wire's busy share since the last departure, kept
  // while stamping is on (a phase that switches it on resumes from where it was).
  const double busy =
      since.count() > 0 ? std::min(1.0, static_cast<double>(tx.count()) / since.count()) : 1.0;
  utilization_ += (busy - utilization_) / 8.0;
}

void IntStamper::stamp(Packet& p, std::uint64_t queue_bytes, Duration latency, Instant departure,
                       BitRate link_rate) const {
  IntStack* t = p.telemetry;
  if (!s_.enabled || t == nullptr || t->hops >= IntStack::kMaxHops) {
    return;
  }
  IntHop& h = t->hop[t->hops++];
  h.node_id = s_.node_id;
  h.queue_bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(queue_bytes, UINT32_MAX));
  h.hop_latency_ns = static_cast<std::uint32_t>(std::min<std::int64_t>(latency.count(), UINT32_MAX));
  h.tx_utilization_ppm = static_cast<std::uint32_t>(utilization_ * 1e6);
  h.egress_ts_ns = static_cast<std::uint64_t>(ns_of(departure));
  h.tx_bytes = static_cast<std::uint32_t>(tx_bytes_);
  h.link_rate_mbps =
      static_cast<std::uint32_t>(std::min<std::uint64_t>(link_rate.bps / 1'000'000, UINT32_MAX));
}

}  // namespace gw
