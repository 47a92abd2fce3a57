#include "generators/transport/rocev2.h"

namespace gw::transport {
namespace {

// Big-endian field access into spans whose size the caller has already checked.
void put8(std::span<std::uint8_t> b, std::size_t at, std::uint8_t v) {
  b[at] = v;
}
void put16(std::span<std::uint8_t> b, std::size_t at, std::uint16_t v) {
  b[at] = static_cast<std::uint8_t>(v >> 8);
  b[at + 1] = static_cast<std::uint8_t>(v);
}
void put24(std::span<std::uint8_t> b, std::size_t at, std::uint32_t v) {
  b[at] = static_cast<std::uint8_t>(v >> 16);
  b[at + 1] = static_cast<std::uint8_t>(v >> 8);
  b[at + 2] = static_cast<std::uint8_t>(v);
}
void put32(std::span<std::uint8_t> b, std::size_t at, std::uint32_t v) {
  put16(b, at, static_cast<std::uint16_t>(v >> 16));
  put16(b, at + 2, static_cast<std::uint16_t>(v));
}
void put64(std::span<std::uint8_t> b, std::size_t at, std::uint64_t v) {
  put32(b, at, static_cast<std::uint32_t>(v >> 32));
  put32(b, at + 4, static_cast<std::uint32_t>(v));
}
std::uint16_t get16(std::span<const std::uint8_t> b, std::size_t at) {
  return static_cast<std::uint16_t>((b[at] << 8) | b[at + 1]);
}
std::uint32_t get24(std::span<const std::uint8_t> b, std::size_t at) {
  return (std::uint32_t{b[at]} << 16) | (std::uint32_t{b[at + 1]} << 8) | b[at + 2];
}
std::uint32_t get32(std::span<const std::uint8_t> b, std::size_t at) {
  return (std::uint32_t{get16(b, at)} << 16) | get16(b, at + 2);
}
std::uint64_t get64(std::span<const std::uint8_t> b, std::size_t at) {
  return (std::uint64_t{get32(b, at)} << 32) | get32(b, at + 4);
}

}  // namespace

bool is_known_opcode(std::uint8_t op) {
  switch (op) {
    case opcode::kSendFirst:
    case opcode::kSendMiddle:
    case opcode::kSendLast:
    case opcode::kSendOnly:
    case opcode::kWriteFirst:
    case opcode::kWriteMiddle:
    case opcode::kWriteLast:
    case opcode::kWriteOnly:
    case opcode::kAcknowledge:
    case opcode::kCnp:
      return true;
    default:
      return false;
  }
}

bool operator==(const AckExt& a, const AckExt& b) {
  if (a.ce_echo != b.ce_echo || a.sack_valid != b.sack_valid || a.duplicate != b.duplicate ||
      a.echo_psn != b.echo_psn || a.echo_sent_ns != b.echo_sent_ns || a.arrival_ns != b.arrival_ns ||
      a.ce_bytes != b.ce_bytes || a.sack_base != b.sack_base || a.sack_bitmap != b.sack_bitmap ||
      a.sack2_base != b.sack2_base || a.sack2_bitmap != b.sack2_bitmap || a.hop_count != b.hop_count) {
    return false;
  }
  for (std::size_t i = 0; i < a.hop_count && i < kMaxIntHops; ++i) {
    const cc::IntHopEcho& x = a.hops[i];
    const cc::IntHopEcho& y = b.hops[i];
    if (x.node_id != y.node_id || x.queue_bytes != y.queue_bytes || x.tx_bytes != y.tx_bytes ||
        x.egress_ts_ns != y.egress_ts_ns || x.link_rate_bps != y.link_rate_bps) {
      return false;
    }
  }
  return true;
}

const char* to_string(DecodeError e) {
  switch (e) {
    case DecodeError::kTruncated:
      return "truncated";
    case DecodeError::kUnknownOpcode:
      return "unknown opcode";
    case DecodeError::kBadVersion:
      return "BTH transport version is not 0";
    case DecodeError::kBadField:
      return "field out of range";
  }
  return "?";
}

std::size_t encode_bth(const Bth& h, std::span<std::uint8_t> out) {
  if (out.size() < kBthSize || h.pad_count > 3 || h.tver > 15 || h.dest_qp > kPsnMask || h.psn > kPsnMask) {
    return 0;
  }
  put8(out, 0, h.opcode);
  put8(out, 1,
       static_cast<std::uint8_t>((h.solicited ? 0x80 : 0) | (h.mig_req ? 0x40 : 0) | (h.pad_count << 4) |
                                 h.tver));
  put16(out, 2, h.pkey);
  put8(out, 4, static_cast<std::uint8_t>((h.fecn ? 0x80 : 0) | (h.becn ? 0x40 : 0)));
  put24(out, 5, h.dest_qp);
  put8(out, 8, h.ack_req ? 0x80 : 0);
  put24(out, 9, h.psn);
  return kBthSize;
}

Decoded<Bth> decode_bth(std::span<const std::uint8_t> in) {
  if (in.size() < kBthSize) {
    return DecodeError::kTruncated;
  }
  Bth h;
  h.opcode = in[0];
  if (!is_known_opcode(h.opcode)) {
    return DecodeError::kUnknownOpcode;
  }
  h.solicited = (in[1] & 0x80) != 0;
  h.mig_req = (in[1] & 0x40) != 0;
  h.pad_count = static_cast<std::uint8_t>((in[1] >> 4) & 0x3);
  h.tver = in[1] & 0x0F;
  if (h.tver != 0) {
    return DecodeError::kBadVersion;
  }
  h.pkey = get16(in, 2);
  h.fecn = (in[4] & 0x80) != 0;
  h.becn = (in[4] & 0x40) != 0;
  h.dest_qp = get24(in, 5);
  h.ack_req = (in[8] & 0x80) != 0;
  h.psn = get24(in, 9);
  return h;
}

std::size_t encode_reth(const Reth& h, std::span<std::uint8_t> out) {
  if (out.size() < kRethSize) {
    return 0;
  }
  put64(out, 0, h.virtual_address);
  put32(out, 8, h.rkey);
  put32(out, 12, h.dma_length);
  return kRethSize;
}

Decoded<Reth> decode_reth(std::span<const std::uint8_t> in) {
  if (in.size() < kRethSize) {
    return DecodeError::kTruncated;
  }
  return Reth{get64(in, 0), get32(in, 8), get32(in, 12)};
}

std::size_t encode_aeth(const Aeth& h, std::span<std::uint8_t> out) {
  if (out.size() < kAethSize || h.msn > kPsnMask) {
    return 0;
  }
  put8(out, 0, h.syndrome);
  put24(out, 1, h.msn);
  return kAethSize;
}

Decoded<Aeth> decode_aeth(std::span<const std::uint8_t> in) {
  if (in.size() < kAethSize) {
    return DecodeError::kTruncated;
  }
  return Aeth{in[0], get24(in, 1)};
}

std::size_t encode_ack_ext(const AckExt& h, std::span<std::uint8_t> out) {
  if (h.hop_count > kMaxIntHops || out.size() < h.size() || h.echo_psn > kPsnMask || h.sack_base > kPsnMask ||
      h.sack2_base > kPsnMask) {
    return 0;
  }
  put8(out, 0, kAckExtMagic);
  put8(out, 1,
       static_cast<std::uint8_t>((h.ce_echo ? 1 : 0) | (h.sack_valid ? 2 : 0) | (h.duplicate ? 4 : 0) |
                                 (h.has_sack2() ? 8 : 0)));
  put8(out, 2, h.hop_count);
  put8(out, 3, 0);
  put32(out, 4, h.echo_psn);
  put64(out, 8, h.echo_sent_ns);
  put64(out, 16, h.arrival_ns);
  put64(out, 24, h.ce_bytes);
  put32(out, 32, h.sack_base);
  put64(out, 36, h.sack_bitmap);
  if (h.has_sack2()) {
    put32(out, 44, h.sack2_base);
    put64(out, 48, h.sack2_bitmap);
  }
  for (std::size_t i = 0; i < h.hop_count; ++i) {
    const std::size_t at = h.hops_offset() + i * kAckExtHopSize;
    put32(out, at, h.hops[i].node_id);
    put32(out, at + 4, h.hops[i].queue_bytes);
    put32(out, at + 8, h.hops[i].tx_bytes);
    put64(out, at + 12, h.hops[i].egress_ts_ns);
    put64(out, at + 20, h.hops[i].link_rate_bps);
  }
  return h.size();
}

Decoded<AckExt> decode_ack_ext(std::span<const std::uint8_t> in) {
  if (in.size() < kAckExtFixedSize) {
    return DecodeError::kTruncated;
  }
  if (in[0] != kAckExtMagic || (in[1] & ~0xFU) != 0 || in[2] > kMaxIntHops || in[3] != 0) {
    return DecodeError::kBadField;
  }
  AckExt h;
  h.ce_echo = (in[1] & 1) != 0;
  h.sack_valid = (in[1] & 2) != 0;
  h.duplicate = (in[1] & 4) != 0;
  h.hop_count = in[2];
  const bool sack2 = (in[1] & 8) != 0;
  const std::size_t need = kAckExtFixedSize + (sack2 ? kAckExtSack2Size : 0) + kAckExtHopSize * h.hop_count;
  if (in.size() < need) {
    return DecodeError::kTruncated;
  }
  h.echo_psn = get32(in, 4);
  h.sack_base = get32(in, 32);
  if (sack2) {
    h.sack2_base = get32(in, 44);
    h.sack2_bitmap = get64(in, 48);
    if (h.sack2_bitmap == 0) {
      return DecodeError::kBadField;  // flagged present, but empty
    }
  }
  if (h.echo_psn > kPsnMask || h.sack_base > kPsnMask || h.sack2_base > kPsnMask) {
    return DecodeError::kBadField;
  }
  h.echo_sent_ns = get64(in, 8);
  h.arrival_ns = get64(in, 16);
  h.ce_bytes = get64(in, 24);
  h.sack_bitmap = get64(in, 36);
  for (std::size_t i = 0; i < h.hop_count; ++i) {
    const std::size_t at = h.hops_offset() + i * kAckExtHopSize;
    h.hops[i] = cc::IntHopEcho{get32(in, at), get32(in, at + 4), get32(in, at + 8), get64(in, at + 12),
                               get64(in, at + 20)};
  }
  return h;
}

std::size_t frame_size(const Frame& f) {
  if (f.bth.opcode == opcode::kCnp) {
    return kBthSize + kCnpPayloadSize + kIcrcSize;
  }
  std::size_t n = kBthSize + f.payload.size() + (4 - f.payload.size() % 4) % 4 + kIcrcSize;
  if (has_reth(f.bth.opcode)) {
    n += kRethSize;
  }
  if (has_aeth(f.bth.opcode)) {
    n += kAethSize + (f.has_ack_ext ? f.ack_ext.size() : 0);
  }
  return n;
}

std::size_t encode_frame(const Frame& f, std::span<std::uint8_t> out) {
  const std::size_t total = frame_size(f);
  if (out.size() < total || (f.has_ack_ext && !has_aeth(f.bth.opcode))) {
    return 0;
  }
  const bool cnp = f.bth.opcode == opcode::kCnp;
  Bth bth = f.bth;
  bth.pad_count = cnp ? 0 : static_cast<std::uint8_t>((4 - f.payload.size() % 4) % 4);
  std::size_t at = encode_bth(bth, out);
  if (at == 0) {
    return 0;
  }
  if (cnp) {  // CNP: BTH, 16 reserved zero bytes, ICRC
    for (std::size_t i = 0; i < kCnpPayloadSize; ++i) {
      out[at++] = 0;
    }
    put32(out, at, f.icrc);
    return at + kIcrcSize;
  }
  if (has_reth(bth.opcode)) {
    at += encode_reth(f.reth, out.subspan(at));
  }
  if (has_aeth(bth.opcode)) {
    const std::size_t n = encode_aeth(f.aeth, out.subspan(at));
    if (n == 0) {
      return 0;
    }
    at += n;
    if (f.has_ack_ext) {
      const std::size_t m = encode_ack_ext(f.ack_ext, out.subspan(at));
      if (m == 0) {
        return 0;
      }
      at += m;
    }
  }
  for (std::uint8_t byte : f.payload) {
    out[at++] = byte;
  }
  for (std::size_t i = 0; i < bth.pad_count; ++i) {
    out[at++] = 0;
  }
  put32(out, at, f.icrc);
  return at + kIcrcSize;
}

Decoded<Frame> decode_frame(std::span<const std::uint8_t> in) {
  Frame f;
  const auto bth = decode_bth(in);
  if (const auto* e = std::get_if<DecodeError>(&bth)) {
    return *e;
  }
  f.bth = std::get<Bth>(bth);
  if (in.size() < kBthSize + kIcrcSize) {
    return DecodeError::kTruncated;
  }
  std::span<const std::uint8_t> rest = in.subspan(kBthSize, in.size() - kBthSize - kIcrcSize);
  f.icrc = get32(in, in.size() - kIcrcSize);
  if (has_reth(f.bth.opcode)) {
    const auto reth = decode_reth(rest);
    if (const auto* e = std::get_if<DecodeError>(&reth)) {
      return *e;
    }
    f.reth = std::get<Reth>(reth);
    rest = rest.subspan(kRethSize);
  }
  if (has_aeth(f.bth.opcode)) {
    const auto aeth = decode_aeth(rest);
    if (const auto* e = std::get_if<DecodeError>(&aeth)) {
      return *e;
    }
    f.aeth = std::get<Aeth>(aeth);
    rest = rest.subspan(kAethSize);
    if (!rest.empty()) {
      const auto ext = decode_ack_ext(rest);
      if (const auto* e = std::get_if<DecodeError>(&ext)) {
        return *e;
      }
      f.ack_ext = std::get<AckExt>(ext);
      if (f.ack_ext.size() != rest.size()) {
        return DecodeError::kBadField;
      }
      f.has_ack_ext = true;
      rest = {};
    }
  }
  if (f.bth.opcode == opcode::kCnp) {
    if (rest.size() != kCnpPayloadSize) {
      return rest.size() < kCnpPayloadSize ? DecodeError::kTruncated : DecodeError::kBadField;
    }
    rest = {};
  }
  if (rest.size() < f.bth.pad_count) {
    return DecodeError::kTruncated;
  }
  if (rest.size() % 4 != 0) {  // PadCnt pads the payload to a multiple of 4 bytes (IBA §9.2)
    return DecodeError::kBadField;
  }
  f.payload = rest.first(rest.size() - f.bth.pad_count);
  return f;
}

}  // namespace gw::transport
