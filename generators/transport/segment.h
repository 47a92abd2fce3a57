// The in-memory form of one transport packet, as the simulator carries it between queue pairs
// and as a live endpoint converts it to and from RoCEv2 bytes (rocev2.h). A plain value type:
// copying it is the whole cost of moving it.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "core/time.h"
#include "generators/cc/congestion_control.h"
#include "generators/transport/rocev2.h"

namespace gw::transport {

enum class SegmentKind : std::uint8_t { kData, kAck, kNak, kCnp };

// The IP ECN field (RFC 3168 §5) the sender set.
enum class Ecn : std::uint8_t { kNotEct = 0, kEct1 = 1, kEct0 = 2, kCe = 3 };

// On-wire overhead of every frame: Ethernet 14 (no VLAN tag) + IPv4 20 (no options) + UDP 8
// + BTH 12 + ICRC 4 + Ethernet FCS 4. Preamble and inter-frame gap (20 B) are not counted;
// a link model adds them if it wants line-level accuracy.
inline constexpr std::uint32_t kFrameOverheadBytes = 14 + 20 + 8 + kBthSize + kIcrcSize + 4;

// Frame size of a data packet with BTH `opcode` and `payload_bytes` (Segment::wire_bytes()).
constexpr std::uint32_t data_wire_bytes(std::uint8_t opcode, std::uint32_t payload_bytes) {
  return kFrameOverheadBytes + (has_reth(opcode) ? std::uint32_t{kRethSize} : 0U) + payload_bytes +
         (4 - payload_bytes % 4) % 4;
}

struct Segment {
  SegmentKind kind = SegmentKind::kData;
  std::uint8_t opcode = 0;     // BTH opcode (rocev2.h)
  Ecn ecn = Ecn::kNotEct;      // codepoint the sender set
  bool ce = false;             // set by the network when it marks the packet CE
  bool ack_req = false;        // BTH AckReq: the sender asks for an immediate ACK
  bool last = false;           // data: last packet of its message
  std::uint8_t hop_count = 0;  // valid entries of int_hops
  bool ce_echo = false;        // ACK/NAK: the triggering data packet arrived CE-marked
  bool sack_valid = false;     // ACK: sack_base/sack_bitmap are meaningful
  bool dsack = false;          // ACK: the trigger was a duplicate (RFC 2883 D-SACK's signal)
  std::uint32_t src_qp = 0;    // 24 bits
  std::uint32_t dst_qp = 0;    // 24 bits
  // data: this packet's PSN. ACK: the last PSN received in order (acknowledges it and all
  // before it, IBA §9.7.5.1.1). NAK (PSN sequence error): the PSN the receiver expects, which
  // acknowledges all before it. 24 bits, wrapping.
  std::uint32_t psn = 0;
  std::uint32_t payload_bytes = 0;  // data only
  std::uint32_t msn = 0;            // ACK/NAK: AETH MSN, messages completed (24 bits)
  std::uint32_t echo_psn = 0;       // ACK/NAK: PSN of the data packet that triggered it
  std::uint32_t sack_base = 0;      // ACK: bit i of sack_bitmap is PSN sack_base + i
  std::uint64_t sack_bitmap = 0;
  std::uint32_t sack2_base = 0;    // ACK: a second block, the previous region of arrivals
  std::uint64_t sack2_bitmap = 0;  // (0: none)
  std::uint64_t msg_id = 0;        // data: the message this packet belongs to
  std::uint64_t msg_offset = 0;    // data: byte offset of the payload within the message
  Instant msg_posted{};            // data: when the message was posted (for receiver latency)
  Instant sent{};                  // when this copy left the sender
  Instant echo_sent{};             // ACK/NAK: `sent` of the triggering data packet
  Instant echo_arrival{};          // ACK/NAK: when the triggering data packet arrived
  std::uint64_t ce_bytes = 0;      // ACK/NAK: CE-marked data wire bytes received, cumulative
  // Data: hops stamped by the network on the way (path order). ACK/NAK: the hops of the
  // triggering data packet, echoed.
  std::array<cc::IntHopEcho, kMaxIntHops> int_hops{};

  std::span<const cc::IntHopEcho> hops() const {
    return {int_hops.data(), hop_count < kMaxIntHops ? hop_count : kMaxIntHops};
  }

  // Frame size on the wire: kFrameOverheadBytes + RETH 16 (RDMA WRITE first/only) + payload
  // padded to a multiple of 4 (BTH PadCnt) for data; + AETH 4 + gradwall ACK extension
  // (44, + 12 with a second SACK block, + 28 per INT hop, rocev2.h) for ACK/NAK; + 16 reserved bytes for a
  // CNP.
  std::uint32_t wire_bytes() const {
    switch (kind) {
      case SegmentKind::kData:
        return data_wire_bytes(opcode, payload_bytes);
      case SegmentKind::kAck:
      case SegmentKind::kNak:
        return kFrameOverheadBytes + kAethSize + kAckExtFixedSize +
               (sack2_bitmap != 0 ? kAckExtSack2Size : 0) + kAckExtHopSize * hops().size();
      case SegmentKind::kCnp:
        return kFrameOverheadBytes + kCnpPayloadSize;
    }
    return kFrameOverheadBytes;
  }
};

}  // namespace gw::transport
