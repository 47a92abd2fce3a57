// The α-β model of a path, as sim and live both predict a collective's time (docs/collectives.md):
// α = the path's one-way base delay plus one full packet at its bottleneck, β = 1 / the
// bottleneck rate (0 when unlimited), and the round trip for NCCL's window bound.
#pragma once

#include <cstdint>

#include "core/rate.h"
#include "core/time.h"
#include "emulator/fabric/network.h"
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

// The α-β model's parameters for a network (docs/references.md §5), per ordered pair of
// regions: α = the route's one-way base delay plus one full packet's transmission at its
// bottleneck (per-message overhead), β = 1 / the route's smallest rate (NICs included). Inside a
// region the route is its downlink.
inline coll::LinkModel link_model_of(const fabric::Network& net, std::uint32_t mtu_bytes) {
  const std::uint32_t n = net.region_count();
  coll::LinkModel links = coll::LinkModel::uniform(n, coll::AlphaBeta{});
  const std::uint32_t packet = predicted_packet_bytes(mtu_bytes);
  for (std::uint32_t a = 0; a < n; ++a) {
    for (std::uint32_t b = 0; b < n; ++b) {
      if (net.region(a).hosts == 0 || net.region(b).hosts == 0) {
        continue;
      }
      links.pair[static_cast<std::size_t>(a) * n + b] =
          path_alpha_beta(net.base_delay(a, b), net.base_delay(a, b) + net.base_delay(b, a),
                          net.bottleneck_rate(a, b), packet);
    }
  }
  return links;
}

}  // namespace gw
