// Segment <-> RoCEv2 frame, for endpoints that put segments on a real wire (UDP port 4791).
// Control segments (ACK, NAK, CNP) map completely: BTH + AETH + gradwall ACK extension, or
// BTH + 16 reserved bytes. Data segments map their BTH (and RETH for RDMA WRITE first/only:
// VA = message offset, R_Key = low 32 bits of the message id, DMA length = payload bytes);
// the message id, offset, post and send times that the simulator carries in the Segment are
// not RoCE header fields, so a live endpoint carries them in its payload.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "generators/transport/rocev2.h"
#include "generators/transport/segment.h"

namespace gw::transport {

// The frame for `s`; `payload` (data only) must outlive the frame. The P_Key is `pkey`.
Frame to_frame(const Segment& s, std::span<const std::uint8_t> payload, std::uint16_t pkey = 0xFFFF);

// The control segment a decoded ACKNOWLEDGE or CNP frame carries, or nullopt for any other
// frame (data, RNR NAK, NAK codes other than PSN sequence error). The BTH has no source QP:
// the connection supplies `src_qp`. Timestamps are nanoseconds since the run's epoch.
std::optional<Segment> control_from_frame(const Frame& f, std::uint32_t src_qp);

}  // namespace gw::transport
