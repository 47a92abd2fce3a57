// RoCEv2 transport headers as bytes (InfiniBand Architecture Specification Vol. 1 Rel. 1.4
// §9.2-9.3 and Annex A17; docs/references.md §4), and gradwall's ACK extension. Everything after
// the UDP header (destination port 4791): BTH, then RETH (RDMA WRITE first/only) or AETH
// (ACKNOWLEDGE), then payload, then the 4-byte ICRC. All fields are big-endian.
//
// Decoders are bounds-checked against the span and validate what the spec fixes (opcode
// known, TVer 0, reserved bits of a CNP): truncated or malformed input gives an error value,
// never a read outside the span. Encoders write exactly the header's size and return it, or
// 0 when the span is too small.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <variant>

#include "generators/cc/congestion_control.h"

namespace gw::transport {

inline constexpr std::uint16_t kRoceUdpPort = 4791;
inline constexpr std::size_t kBthSize = 12;
inline constexpr std::size_t kRethSize = 16;
inline constexpr std::size_t kAethSize = 4;
inline constexpr std::size_t kIcrcSize = 4;
inline constexpr std::size_t kCnpPayloadSize = 16;   // reserved bytes after a CNP's BTH
inline constexpr std::uint32_t kPsnMask = 0xFFFFFF;  // PSN and QP numbers are 24 bits

// BTH opcodes: the top 3 bits select the transport (000 = RC), the low 5 the operation.
namespace opcode {
inline constexpr std::uint8_t kSendFirst = 0x00;
inline constexpr std::uint8_t kSendMiddle = 0x01;
inline constexpr std::uint8_t kSendLast = 0x02;
inline constexpr std::uint8_t kSendOnly = 0x04;
inline constexpr std::uint8_t kWriteFirst = 0x06;
inline constexpr std::uint8_t kWriteMiddle = 0x07;
inline constexpr std::uint8_t kWriteLast = 0x08;
inline constexpr std::uint8_t kWriteOnly = 0x0A;
inline constexpr std::uint8_t kAcknowledge = 0x11;
inline constexpr std::uint8_t kCnp = 0x81;
}  // namespace opcode

// True for the opcodes this transport sends and accepts.
bool is_known_opcode(std::uint8_t op);
// RDMA WRITE first/only carry a RETH after the BTH.
constexpr bool has_reth(std::uint8_t op) {
  return op == opcode::kWriteFirst || op == opcode::kWriteOnly;
}
constexpr bool has_aeth(std::uint8_t op) {
  return op == opcode::kAcknowledge;
}
// SEND/WRITE last and only end a message.
constexpr bool ends_message(std::uint8_t op) {
  return op == opcode::kSendLast || op == opcode::kSendOnly || op == opcode::kWriteLast ||
         op == opcode::kWriteOnly;
}

// Base Transport Header (IBA §9.2, 12 bytes).
struct Bth {
  std::uint8_t opcode = 0;
  bool solicited = false;       // SE
  bool mig_req = false;         // M
  std::uint8_t pad_count = 0;   // PadCnt, 2 bits: payload bytes added to reach a multiple of 4
  std::uint8_t tver = 0;        // 4 bits, must be 0
  std::uint16_t pkey = 0xFFFF;  // default partition
  bool fecn = false;
  bool becn = false;
  std::uint32_t dest_qp = 0;  // 24 bits
  bool ack_req = false;
  std::uint32_t psn = 0;  // 24 bits
  friend bool operator==(const Bth&, const Bth&) = default;
};

// RDMA Extended Transport Header (IBA §9.3.3, 16 bytes).
struct Reth {
  std::uint64_t virtual_address = 0;
  std::uint32_t rkey = 0;
  std::uint32_t dma_length = 0;
  friend bool operator==(const Reth&, const Reth&) = default;
};

// ACK Extended Transport Header (IBA §9.3.5, 4 bytes): syndrome 8 bits, MSN 24 bits.
// Syndrome bits 6-5: 00 ACK, 01 RNR NAK, 11 NAK; bits 4-0: credit count / timer / NAK code.
struct Aeth {
  std::uint8_t syndrome = 0;
  std::uint32_t msn = 0;  // 24 bits: messages completed by the responder
  friend bool operator==(const Aeth&, const Aeth&) = default;
};
namespace syndrome {
inline constexpr std::uint8_t kAck = 0x1F;             // ACK, credit count "invalid" (no EE credits)
inline constexpr std::uint8_t kRnrNak = 0x20;          // RNR NAK, timer field 0
inline constexpr std::uint8_t kNakPsnSeqError = 0x60;  // NAK code 0: PSN sequence error
inline constexpr std::uint8_t kTypeMask = 0x60;
}  // namespace syndrome
enum class AckType : std::uint8_t { kAck = 0, kRnrNak = 1, kReserved = 2, kNak = 3 };
constexpr AckType ack_type(std::uint8_t syn) {
  return static_cast<AckType>((syn & syndrome::kTypeMask) >> 5);
}

// gradwall's ACK extension, placed after the AETH of ACKs and NAKs (tshark shows it as the
// ACK's payload). Layout, big-endian, 44 [+ 12] + 28 * hops bytes:
//   0  u8  magic 0x47 ('G')        1  u8 flags: bit0 CE echo, bit1 SACK bitmap valid,
//                                    bit2 duplicate (the trigger had been received before: DSACK),
//                                    bit3 a second SACK block follows
//   2  u8  hop count (<= 3)         3  u8 reserved 0
//   4  u32 echo PSN (24 bits; the data packet that triggered this ACK)
//   8  u64 echoed send timestamp, ns    16 u64 receiver arrival timestamp, ns
//   24 u64 CE-marked wire bytes received so far (cumulative, like QUIC's ECN counts)
//   32 u32 SACK base PSN (24 bits)      36 u64 SACK bitmap: bit i = PSN base+i received
//   [44 u32 second SACK block's base PSN  48 u64 its bitmap, non-zero: only with flags bit 3;
//    the previous region of arrivals, as TCP repeats its recent SACK blocks]
//   44 or 56, per hop: u32 node id, u32 queue bytes, u32 tx bytes, u64 egress ts ns, u64 link bps
inline constexpr std::uint8_t kAckExtMagic = 0x47;
inline constexpr std::size_t kAckExtFixedSize = 44;
inline constexpr std::size_t kAckExtSack2Size = 12;  // present when flags bit 3 is set
inline constexpr std::size_t kAckExtHopSize = 28;
inline constexpr std::size_t kMaxIntHops = 3;
struct AckExt {
  bool ce_echo = false;
  bool sack_valid = false;
  bool duplicate = false;
  std::uint32_t echo_psn = 0;
  std::uint64_t echo_sent_ns = 0;
  std::uint64_t arrival_ns = 0;
  std::uint64_t ce_bytes = 0;
  std::uint32_t sack_base = 0;
  std::uint64_t sack_bitmap = 0;
  std::uint32_t sack2_base = 0;
  std::uint64_t sack2_bitmap = 0;
  std::uint8_t hop_count = 0;
  std::array<cc::IntHopEcho, kMaxIntHops> hops{};
  bool has_sack2() const { return sack2_bitmap != 0; }
  std::size_t hops_offset() const { return kAckExtFixedSize + (has_sack2() ? kAckExtSack2Size : 0); }
  std::size_t size() const { return hops_offset() + kAckExtHopSize * hop_count; }
  // Field-wise, over the first hop_count hops (cc::IntHopEcho has no operator==).
  friend bool operator==(const AckExt& a, const AckExt& b);
};

enum class DecodeError : std::uint8_t {
  kTruncated,      // the span ends inside a header
  kUnknownOpcode,  // not one of the opcodes above
  kBadVersion,     // BTH TVer != 0
  kBadField,       // a value the spec forbids (24-bit overflow, reserved bits set, bad magic)
};
const char* to_string(DecodeError e);

template <typename T>
using Decoded = std::variant<T, DecodeError>;

std::size_t encode_bth(const Bth& h, std::span<std::uint8_t> out);
Decoded<Bth> decode_bth(std::span<const std::uint8_t> in);
std::size_t encode_reth(const Reth& h, std::span<std::uint8_t> out);
Decoded<Reth> decode_reth(std::span<const std::uint8_t> in);
std::size_t encode_aeth(const Aeth& h, std::span<std::uint8_t> out);
Decoded<Aeth> decode_aeth(std::span<const std::uint8_t> in);
std::size_t encode_ack_ext(const AckExt& h, std::span<std::uint8_t> out);
Decoded<AckExt> decode_ack_ext(std::span<const std::uint8_t> in);

// A whole RoCEv2 UDP payload: BTH, the extension header its opcode implies, the payload
// (including PadCnt pad bytes) and the ICRC. `icrc` is a placeholder (written as given,
// not computed; real RoCE NICs compute a CRC-32 over the invariant fields).
struct Frame {
  Bth bth;
  Reth reth;  // meaningful when has_reth(bth.opcode)
  Aeth aeth;  // meaningful for ACKNOWLEDGE
  bool has_ack_ext = false;
  AckExt ack_ext;                           // gradwall extension, ACKNOWLEDGE only
  std::span<const std::uint8_t> payload{};  // decode: a view into the input, pad bytes excluded
  std::uint32_t icrc = 0;
};
// Bytes encode_frame writes for `f` (payload plus its pad to a multiple of 4).
std::size_t frame_size(const Frame& f);
// Writes the frame; pad_count is computed from the payload length (a CNP gets its 16 zero
// reserved bytes and ignores `payload`). Returns 0 if `out` is too small or a field is out
// of range.
std::size_t encode_frame(const Frame& f, std::span<std::uint8_t> out);
// Parses a whole UDP payload. Payload plus pad must be a multiple of 4 bytes. A CNP must
// carry its 16 reserved bytes; an ACKNOWLEDGE may carry a gradwall extension (recognised by
// its magic byte and exact length).
Decoded<Frame> decode_frame(std::span<const std::uint8_t> in);

}  // namespace gw::transport
