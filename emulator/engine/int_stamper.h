// In-band network telemetry at the bottleneck's egress: each real packet that carries a
// telemetry stack with room gets one hop pushed as it leaves (P4.org INT v2.1 per-hop metadata
// in HPCC's compact form, packet.h IntHop; docs/references.md): node id, queue occupancy,
// hop latency, egress timestamp, and HPCC's txBytes and link rate. It also keeps the two
// running counts a hop reports about the port itself: bytes sent and the wire's utilization.
#pragma once

#include <cstdint>

#include "core/rate.h"
#include "core/time.h"
#include "emulator/engine/packet.h"
#include "emulator/engine/spec.h"

namespace gw {

class IntStamper {
 public:
  explicit IntStamper(const IntSettings& settings) : s_(settings) {}

  // Counts carry over, so a phase that switches stamping on resumes from where they were.
  void set_settings(const IntSettings& settings) { s_ = settings; }
  bool enabled() const { return s_.enabled; }

  // A packet of `bytes` left after `tx` on the wire, `since` the departure before it.
  void count(std::uint32_t bytes, Duration since, Duration tx) {
    tx_bytes_ += bytes;
    if (s_.enabled) {
      count_busy(since, tx);
    }
  }
  // While enabled: pushes this hop onto p's stack, if p carries one with room. queue_bytes:
  // the occupancy p leaves behind; latency: its time in queue and on the wire.
  void stamp(Packet& p, std::uint64_t queue_bytes, Duration latency, Instant departure,
             BitRate link_rate) const;

 private:
  void count_busy(Duration since, Duration tx);

  IntSettings s_;
  std::uint64_t tx_bytes_ = 0;  // everything sent, stamping on or off
  double utilization_ = 0;
};

}  // namespace gw
