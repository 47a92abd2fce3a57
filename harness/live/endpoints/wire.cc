#include "harness/live/endpoints/wire.h"

#include <algorithm>
#include <cstring>

#include "generators/transport/rocev2.h"
#include "generators/transport/segment_codec.h"

namespace gw::endpoints {

namespace {

using transport::Segment;
using transport::SegmentKind;

void put_u64(std::uint8_t* p, std::uint64_t v) {
  for (int i = 7; i >= 0; --i) {
    p[i] = static_cast<std::uint8_t>(v & 0xFF);
    v >>= 8;
  }
}

std::uint64_t get_u64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    v = (v << 8) | p[i];
  }
  return v;
}

std::uint64_t ns_field(Instant t) {
  return static_cast<std::uint64_t>(std::max<std::int64_t>(0, ns_of(t)));
}

Instant instant_field(std::uint64_t v) {
  return at_ns(static_cast<std::int64_t>(std::min<std::uint64_t>(v, INT64_MAX)));
}

}  // namespace

std::size_t max_udp_payload(const Segment& s) {
  // BTH + RETH/AETH + extension + metadata + payload + pad + ICRC, generously.
  return transport::kBthSize + transport::kRethSize + transport::kAethSize + transport::kAckExtFixedSize +
         transport::kAckExtSack2Size + transport::kAckExtHopSize * transport::kMaxIntHops + kDataMetaSize +
         s.payload_bytes + 4 + transport::kIcrcSize;
}

std::size_t encode_segment(const Segment& s, std::span<std::uint8_t> out) {
  if (s.kind != SegmentKind::kData) {
    return transport::encode_frame(transport::to_frame(s, {}, 0xFFFF), out);
  }
  if (out.size() < max_udp_payload(s)) {
    return 0;
  }
  // The payload (metadata + zero bytes) is written where encode_frame puts it, right after
  // the BTH (and RETH): encode_frame then copies it onto itself, byte for byte, forward.
  const std::size_t header = transport::kBthSize + (transport::has_reth(s.opcode) ? transport::kRethSize : 0);
  const std::size_t payload_size = kDataMetaSize + s.payload_bytes;
  std::uint8_t* p = out.data() + header;
  put_u64(p, s.msg_id);
  put_u64(p + 8, s.msg_offset);
  put_u64(p + 16, ns_field(s.msg_posted));
  put_u64(p + 24, ns_field(s.sent));
  std::memset(p + kDataMetaSize, 0, s.payload_bytes);
  const transport::Frame f = transport::to_frame(s, {p, payload_size}, 0xFFFF);
  return transport::encode_frame(f, out);
}

std::optional<Segment> decode_segment(std::span<const std::uint8_t> in, std::uint32_t src_qp,
                                      transport::Ecn ecn) {
  const auto decoded = transport::decode_frame(in);
  if (!std::holds_alternative<transport::Frame>(decoded)) {
    return std::nullopt;
  }
  const transport::Frame& f = std::get<transport::Frame>(decoded);
  if (f.bth.opcode == transport::opcode::kAcknowledge || f.bth.opcode == transport::opcode::kCnp) {
    auto s = transport::control_from_frame(f, src_qp);
    if (s) {
      s->ecn = ecn;
      s->ce = ecn == transport::Ecn::kCe;
    }
    return s;
  }
  if (f.payload.size() < kDataMetaSize) {
    return std::nullopt;
  }
  Segment s;
  s.kind = SegmentKind::kData;
  s.opcode = f.bth.opcode;
  s.ecn = ecn;
  s.ce = ecn == transport::Ecn::kCe;
  s.ack_req = f.bth.ack_req;
  s.last = transport::ends_message(f.bth.opcode);
  s.src_qp = src_qp;
  s.dst_qp = f.bth.dest_qp;
  s.psn = f.bth.psn;
  s.payload_bytes = static_cast<std::uint32_t>(f.payload.size() - kDataMetaSize);
  const std::uint8_t* m = f.payload.data();
  s.msg_id = get_u64(m);
  s.msg_offset = get_u64(m + 8);
  s.msg_posted = instant_field(get_u64(m + 16));
  s.sent = instant_field(get_u64(m + 24));
  return s;
}

}  // namespace gw::endpoints
