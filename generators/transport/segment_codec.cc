#include "generators/transport/segment_codec.h"

#include <algorithm>
#include <cstdint>

namespace gw::transport {

Frame to_frame(const Segment& s, std::span<const std::uint8_t> payload, std::uint16_t pkey) {
  Frame f;
  f.bth.opcode = s.opcode;
  f.bth.pkey = pkey;
  f.bth.dest_qp = s.dst_qp & kPsnMask;
  f.bth.psn = s.psn & kPsnMask;
  switch (s.kind) {
    case SegmentKind::kData:
      f.bth.ack_req = s.ack_req;
      f.bth.solicited = s.last;
      f.reth = Reth{s.msg_offset, static_cast<std::uint32_t>(s.msg_id), s.payload_bytes};
      f.payload = payload;
      break;
    case SegmentKind::kAck:
    case SegmentKind::kNak:
      f.bth.opcode = opcode::kAcknowledge;
      f.aeth =
          Aeth{s.kind == SegmentKind::kNak ? syndrome::kNakPsnSeqError : syndrome::kAck, s.msn & kPsnMask};
      f.has_ack_ext = true;
      f.ack_ext.ce_echo = s.ce_echo;
      f.ack_ext.sack_valid = s.sack_valid;
      f.ack_ext.duplicate = s.dsack;
      f.ack_ext.echo_psn = s.echo_psn & kPsnMask;
      f.ack_ext.echo_sent_ns = static_cast<std::uint64_t>(ns_of(s.echo_sent));
      f.ack_ext.arrival_ns = static_cast<std::uint64_t>(ns_of(s.echo_arrival));
      f.ack_ext.ce_bytes = s.ce_bytes;
      f.ack_ext.sack_base = s.sack_base & kPsnMask;
      f.ack_ext.sack_bitmap = s.sack_bitmap;
      f.ack_ext.sack2_base = s.sack2_base & kPsnMask;
      f.ack_ext.sack2_bitmap = s.sack2_bitmap;
      f.ack_ext.hop_count = static_cast<std::uint8_t>(s.hops().size());
      f.ack_ext.hops = s.int_hops;
      break;
    case SegmentKind::kCnp:
      f.bth.opcode = opcode::kCnp;
      f.bth.becn = true;
      f.bth.psn = 0;
      break;
  }
  return f;
}

std::optional<Segment> control_from_frame(const Frame& f, std::uint32_t src_qp) {
  Segment s;
  s.opcode = f.bth.opcode;
  s.src_qp = src_qp;
  s.dst_qp = f.bth.dest_qp;
  s.psn = f.bth.psn;
  if (f.bth.opcode == opcode::kCnp) {
    s.kind = SegmentKind::kCnp;
    return s;
  }
  if (f.bth.opcode != opcode::kAcknowledge) {
    return std::nullopt;
  }
  if (f.aeth.syndrome == syndrome::kNakPsnSeqError) {
    s.kind = SegmentKind::kNak;
  } else if (ack_type(f.aeth.syndrome) == AckType::kAck) {
    s.kind = SegmentKind::kAck;
  } else {
    return std::nullopt;
  }
  s.msn = f.aeth.msn;
  if (f.has_ack_ext) {
    const AckExt& x = f.ack_ext;
    s.ce_echo = x.ce_echo;
    s.sack_valid = x.sack_valid;
    s.dsack = x.duplicate;
    s.echo_psn = x.echo_psn;
    s.echo_sent = at_ns(static_cast<std::int64_t>(std::min<std::uint64_t>(x.echo_sent_ns, INT64_MAX)));
    s.echo_arrival = at_ns(static_cast<std::int64_t>(std::min<std::uint64_t>(x.arrival_ns, INT64_MAX)));
    s.ce_bytes = x.ce_bytes;
    s.sack_base = x.sack_base;
    s.sack_bitmap = x.sack_bitmap;
    s.sack2_base = x.sack2_base;
    s.sack2_bitmap = x.sack2_bitmap;
    s.hop_count = x.hop_count;
    s.int_hops = x.hops;
  }
  return s;
}

}  // namespace gw::transport
