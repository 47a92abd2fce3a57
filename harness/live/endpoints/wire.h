// A transport Segment as the UDP payload a live endpoint sends to destination port 4791: the
// RoCEv2 frame of segment_codec.h (BTH, RETH or AETH + gradwall ACK extension, payload, ICRC),
// so tshark's `infiniband` dissector decodes every packet. Data packets carry what the
// simulator keeps beside the headers in their first kDataMetaSize payload bytes (the rest of
// the payload is `payload_bytes` zero bytes):
//   0  u64 message id        8  u64 byte offset of this payload in the message
//   16 u64 message post time, ns since the run's epoch
//   24 u64 send time of this copy, ns since the run's epoch (one-way delay at the receiver)
// All big-endian. The UDP payload of a data packet is therefore kDataMetaSize bytes larger
// than the Segment's payload_bytes; wire_bytes() of the Segment does not count them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "generators/transport/segment.h"

namespace gw::endpoints {

inline constexpr std::size_t kDataMetaSize = 32;

// Bytes encode_segment needs for `s` at most (headers, metadata, payload, pad, ICRC).
std::size_t max_udp_payload(const transport::Segment& s);

// Writes `s` as a UDP payload into `out`; returns the size, or 0 if `out` is too small.
std::size_t encode_segment(const transport::Segment& s, std::span<std::uint8_t> out);

// The segment a UDP payload carries, or nullopt for anything that is not a frame this
// transport sends (decode errors, RNR NAKs, data shorter than its metadata). The BTH has no
// source QP: the caller supplies the one the receiving QP expects. `ce` comes from the IP
// header's ECN field, which the caller read (IP_RECVTOS).
std::optional<transport::Segment> decode_segment(std::span<const std::uint8_t> in, std::uint32_t src_qp,
                                                 transport::Ecn ecn);

}  // namespace gw::endpoints
