// The α-β model of a path, as sim and live both predict a collective's time (docs/collectives.md):
// α = the path's one-way base delay plus one full packet at its bottleneck, β = 1 / the
// bottleneck rate (0 when unlimited), and the round trip for NCCL's window bound.
#pragma once

#include <cstdint>

#include "core/rate.h"
#include "core/time.h"
#include "generators/collectives/collective.h"
#include "generators/transport/segment.h"

namespace gw {

// A packet as the prediction counts it: the transport's payload per packet plus its framing.
inline std::uint32_t predicted_packet_bytes(std::uint32_t mtu_bytes) {
  return mtu_bytes + transport::kFrameOverheadBytes;
}

inline coll::AlphaBeta path_alpha_beta(Duration one_way, Duration rtt, BitRate bottleneck,
                                       std::uint32_t packet_bytes) {
  coll::AlphaBeta m;
  m.alpha = one_way + (bottleneck.unlimited() ? Duration{0} : bottleneck.transmit_time(packet_bytes));
  m.beta_ns_per_byte = bottleneck.unlimited() ? 0 : 8e9 / static_cast<double>(bottleneck.bps);
  m.rtt = rtt;
  return m;
}

}  // namespace gw
