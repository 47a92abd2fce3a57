// RoCEv2 framing (rocev2.h): every header round-trips bit for bit, whole frames of every
// kind round-trip, and decoding truncated or random input returns an error value instead of
// crashing or reading past the span (run under the ASan preset to check the latter).
#include "generators/transport/rocev2.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "generators/transport/segment.h"
#include "generators/transport/segment_codec.h"

namespace gw::transport {
namespace {

template <typename T>
T value(const Decoded<T>& d) {
  EXPECT_TRUE(std::holds_alternative<T>(d)) << to_string(std::get<DecodeError>(d));
  return std::get<T>(d);
}

TEST(RoceV2, BthRoundTripsEveryField) {
  Bth h;
  h.opcode = opcode::kWriteFirst;
  h.solicited = true;
  h.mig_req = true;
  h.pad_count = 3;
  h.pkey = 0x1234;
  h.fecn = true;
  h.becn = true;
  h.dest_qp = 0xABCDEF;
  h.ack_req = true;
  h.psn = 0xFEDCBA;
  std::array<std::uint8_t, kBthSize> buf{};
  ASSERT_EQ(encode_bth(h, buf), kBthSize);
  // Byte layout per IBA §9.2 (docs/references.md §4).
  const std::array<std::uint8_t, kBthSize> expect{0x06, 0xF0, 0x12, 0x34, 0xC0, 0xAB,
                                                  0xCD, 0xEF, 0x80, 0xFE, 0xDC, 0xBA};
  EXPECT_EQ(buf, expect);
  EXPECT_EQ(value(decode_bth(buf)), h);
}

TEST(RoceV2, BthRejectsOutOfRangeFieldsAndBadInput) {
  std::array<std::uint8_t, kBthSize> buf{};
  Bth h;
  h.psn = 1U << 24;
  EXPECT_EQ(encode_bth(h, buf), 0U);
  h.psn = 0;
  EXPECT_EQ(encode_bth(h, std::span<std::uint8_t>(buf).first(11)), 0U);
  ASSERT_EQ(encode_bth(h, buf), kBthSize);
  EXPECT_EQ(std::get<DecodeError>(decode_bth(std::span<const std::uint8_t>(buf).first(11))),
            DecodeError::kTruncated);
  buf[0] = 0x55;
  EXPECT_EQ(std::get<DecodeError>(decode_bth(buf)), DecodeError::kUnknownOpcode);
  buf[0] = opcode::kSendOnly;
  buf[1] = 0x01;  // TVer 1
  EXPECT_EQ(std::get<DecodeError>(decode_bth(buf)), DecodeError::kBadVersion);
}

TEST(RoceV2, RethAethAndAckExtensionRoundTrip) {
  std::array<std::uint8_t, 256> buf{};
  const Reth r{0x0102030405060708ULL, 0xA0B0C0D0, 4096};
  ASSERT_EQ(encode_reth(r, buf), kRethSize);
  EXPECT_EQ(value(decode_reth(buf)), r);

  const Aeth a{syndrome::kNakPsnSeqError, 0x123456};
  ASSERT_EQ(encode_aeth(a, buf), kAethSize);
  EXPECT_EQ(buf[0], 0x60);
  EXPECT_EQ(value(decode_aeth(buf)), a);
  EXPECT_EQ(ack_type(syndrome::kAck), AckType::kAck);
  EXPECT_EQ(ack_type(syndrome::kRnrNak), AckType::kRnrNak);
  EXPECT_EQ(ack_type(syndrome::kNakPsnSeqError), AckType::kNak);

  AckExt x;
  x.ce_echo = true;
  x.sack_valid = true;
  x.echo_psn = 0xFFFFFE;
  x.echo_sent_ns = 123456789012ULL;
  x.arrival_ns = 123456799012ULL;
  x.ce_bytes = 1ULL << 40;
  x.sack_base = 77;
  x.sack_bitmap = 0x8000000000000001ULL;
  x.hop_count = 3;
  for (std::uint32_t i = 0; i < 3; ++i) {
    x.hops[i] = cc::IntHopEcho{i + 1, 1000 * i, 0xFFFFFFF0 + i, 5'000'000'000ULL + i, 100'000'000'000ULL};
  }
  ASSERT_EQ(encode_ack_ext(x, buf), kAckExtFixedSize + 3 * kAckExtHopSize);
  EXPECT_EQ(value(decode_ack_ext(std::span<const std::uint8_t>(buf).first(x.size()))), x);
  EXPECT_EQ(std::get<DecodeError>(decode_ack_ext(std::span<const std::uint8_t>(buf).first(x.size() - 1))),
            DecodeError::kTruncated);
  buf[0] = 0;
  EXPECT_EQ(std::get<DecodeError>(decode_ack_ext(buf)), DecodeError::kBadField);

  // The D-SACK flag and a second SACK block (flags bits 2 and 3): 12 more bytes before the hops.
  x.duplicate = true;
  x.sack2_base = 0xABCDEF;
  x.sack2_bitmap = 0x10;
  ASSERT_EQ(encode_ack_ext(x, buf), kAckExtFixedSize + kAckExtSack2Size + 3 * kAckExtHopSize);
  EXPECT_EQ(buf[1], 1 | 2 | 4 | 8);
  EXPECT_EQ(value(decode_ack_ext(std::span<const std::uint8_t>(buf).first(x.size()))), x);
  EXPECT_EQ(std::get<DecodeError>(decode_ack_ext(std::span<const std::uint8_t>(buf).first(x.size() - 1))),
            DecodeError::kTruncated);
  buf[48] = buf[49] = buf[50] = buf[51] = buf[52] = buf[53] = buf[54] = buf[55] = 0;  // flagged, empty
  EXPECT_EQ(std::get<DecodeError>(decode_ack_ext(std::span<const std::uint8_t>(buf).first(x.size()))),
            DecodeError::kBadField);
}

Frame data_frame(std::uint8_t op, std::span<const std::uint8_t> payload) {
  Frame f;
  f.bth.opcode = op;
  f.bth.dest_qp = 17;
  f.bth.psn = 0xFFFFFF;
  f.bth.ack_req = true;
  f.reth = Reth{0x1000, 42, 9000};
  f.payload = payload;
  f.icrc = 0xDEADBEEF;
  return f;
}

TEST(RoceV2, FramesOfEveryKindRoundTrip) {
  std::vector<std::uint8_t> payload(1027);
  for (std::size_t i = 0; i < payload.size(); ++i) {
    payload[i] = static_cast<std::uint8_t>(i * 7);
  }
  std::vector<std::uint8_t> buf(2048);
  for (std::uint8_t op :
       {opcode::kSendFirst, opcode::kSendMiddle, opcode::kSendLast, opcode::kSendOnly, opcode::kWriteFirst,
        opcode::kWriteMiddle, opcode::kWriteLast, opcode::kWriteOnly}) {
    const Frame f = data_frame(op, payload);
    const std::size_t n = encode_frame(f, buf);
    ASSERT_EQ(n, frame_size(f));
    // 1027 payload bytes need 1 pad byte; RETH only on WRITE first/only.
    EXPECT_EQ(n, kBthSize + (has_reth(op) ? kRethSize : 0) + 1028 + kIcrcSize);
    // The data segment's wire size is this plus Ethernet, IPv4, UDP and FCS.
    Segment s;
    s.opcode = op;
    s.payload_bytes = 1027;
    EXPECT_EQ(s.wire_bytes(), n + 14 + 20 + 8 + 4);
    const Frame g = value(decode_frame(std::span<const std::uint8_t>(buf).first(n)));
    EXPECT_EQ(g.bth.opcode, op);
    EXPECT_EQ(g.bth.pad_count, 1);
    EXPECT_EQ(g.bth.psn, 0xFFFFFFU);
    EXPECT_EQ(g.icrc, 0xDEADBEEFU);
    if (has_reth(op)) {
      EXPECT_EQ(g.reth, f.reth);
    }
    ASSERT_EQ(g.payload.size(), payload.size());
    EXPECT_TRUE(std::equal(payload.begin(), payload.end(), g.payload.begin()));
  }

  Frame ack;
  ack.bth.opcode = opcode::kAcknowledge;
  ack.aeth = Aeth{syndrome::kAck, 5};
  ack.has_ack_ext = true;
  ack.ack_ext.hop_count = 1;
  ack.ack_ext.echo_psn = 9;
  std::size_t n = encode_frame(ack, buf);
  ASSERT_EQ(n, kBthSize + kAethSize + kAckExtFixedSize + kAckExtHopSize + kIcrcSize);
  Segment s;
  s.kind = SegmentKind::kAck;
  s.hop_count = 1;
  EXPECT_EQ(s.wire_bytes(), n + 14 + 20 + 8 + 4);
  Frame g = value(decode_frame(std::span<const std::uint8_t>(buf).first(n)));
  EXPECT_TRUE(g.has_ack_ext);
  EXPECT_EQ(g.ack_ext, ack.ack_ext);
  EXPECT_EQ(g.aeth, ack.aeth);

  Frame cnp;
  cnp.bth.opcode = opcode::kCnp;
  cnp.bth.becn = true;
  cnp.bth.dest_qp = 3;
  n = encode_frame(cnp, buf);
  ASSERT_EQ(n, kBthSize + kCnpPayloadSize + kIcrcSize);
  s.kind = SegmentKind::kCnp;
  EXPECT_EQ(s.wire_bytes(), n + 14 + 20 + 8 + 4);
  g = value(decode_frame(std::span<const std::uint8_t>(buf).first(n)));
  EXPECT_TRUE(g.bth.becn);
  EXPECT_EQ(g.bth.dest_qp, 3U);
  EXPECT_EQ(std::get<DecodeError>(decode_frame(std::span<const std::uint8_t>(buf).first(n - 1))),
            DecodeError::kTruncated);
}

TEST(RoceV2, EveryTruncationOfAValidFrameIsAnError) {
  std::vector<std::uint8_t> buf(512);
  Frame ack;
  ack.bth.opcode = opcode::kAcknowledge;
  ack.has_ack_ext = true;
  ack.ack_ext.hop_count = 2;
  for (const Frame& f : {data_frame(opcode::kWriteOnly, {}), ack}) {
    const std::size_t n = encode_frame(f, buf);
    ASSERT_GT(n, 0U);
    for (std::size_t len = 0; len < n; ++len) {
      const auto d = decode_frame(std::span<const std::uint8_t>(buf).first(len));
      // A cut data frame may still parse as a shorter payload; a cut header never does.
      if (len < kBthSize + kIcrcSize + (has_reth(f.bth.opcode) ? kRethSize : kAethSize)) {
        EXPECT_TRUE(std::holds_alternative<DecodeError>(d)) << "len " << len;
      }
      if (f.has_ack_ext && len != kBthSize + kAethSize + kIcrcSize) {  // that length: a bare ACK
        EXPECT_TRUE(std::holds_alternative<DecodeError>(d)) << "len " << len;
      }
    }
  }
}

// 20,000 random buffers (fixed seed): random bytes, and valid frames with random bytes
// flipped. Decoding must return a value or an error and stay inside the span; what decodes
// must re-encode to a frame of the same size.
TEST(RoceV2, FuzzedInputNeverCrashes) {
  Rng rng(20240601, "rocev2_fuzz");
  std::vector<std::uint8_t> valid(256);
  Frame ack;
  ack.bth.opcode = opcode::kAcknowledge;
  ack.has_ack_ext = true;
  ack.ack_ext.hop_count = 1;
  const std::size_t valid_n = encode_frame(ack, valid);
  std::size_t decoded = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<std::uint8_t> buf;
    if (i % 2 == 0) {
      buf.resize(rng.below(200));
      for (auto& b : buf) {
        b = static_cast<std::uint8_t>(rng.next_u32());
      }
      if (!buf.empty() && rng.below(2) == 0) {
        const std::array<std::uint8_t, 4> ops{opcode::kSendOnly, opcode::kWriteFirst, opcode::kAcknowledge,
                                              opcode::kCnp};
        buf[0] = ops[rng.below(4)];
        if (buf.size() > 1) {
          buf[1] &= 0xF0;  // TVer 0
        }
      }
    } else {
      buf.assign(valid.begin(), valid.begin() + static_cast<std::ptrdiff_t>(valid_n));
      buf[rng.below(buf.size())] ^= static_cast<std::uint8_t>(1U << rng.below(8));
      buf.resize(rng.below(buf.size() + 1));
    }
    const auto d = decode_frame(buf);
    if (const Frame* f = std::get_if<Frame>(&d)) {
      ++decoded;
      std::vector<std::uint8_t> out(frame_size(*f));
      EXPECT_EQ(encode_frame(*f, out), buf.size());
    }
  }
  EXPECT_GT(decoded, 100U);  // the fuzz reaches the parsers beyond the BTH
}

// ACK, NAK and CNP segments survive Segment -> frame -> bytes -> frame -> Segment, and the
// encoded frame plus Ethernet/IPv4/UDP/FCS is exactly Segment::wire_bytes().
TEST(RoceV2, ControlSegmentsRoundTripThroughBytes) {
  Segment ack;
  ack.kind = SegmentKind::kNak;
  ack.dst_qp = 0x123456;
  ack.psn = 0xFFFFFE;
  ack.msn = 7;
  ack.echo_psn = 0xFFFFFF;
  ack.echo_sent = at_ns(1'000'000);
  ack.echo_arrival = at_ns(1'037'000);
  ack.ce_echo = true;
  ack.ce_bytes = 4344;
  ack.sack_valid = true;
  ack.sack_base = 3;
  ack.sack_bitmap = 0b1011;
  ack.hop_count = 2;
  ack.int_hops[1] = cc::IntHopEcho{9, 100, 200, 300, 400};
  Segment cnp;
  cnp.kind = SegmentKind::kCnp;
  cnp.dst_qp = 5;
  for (const Segment& s : {ack, cnp}) {
    std::vector<std::uint8_t> buf(512);
    const std::size_t n = encode_frame(to_frame(s, {}), buf);
    ASSERT_GT(n, 0U);
    EXPECT_EQ(n + 14 + 20 + 8 + 4, s.wire_bytes());
    const Frame f = value(decode_frame(std::span<const std::uint8_t>(buf).first(n)));
    const auto back = control_from_frame(f, 77);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->kind, s.kind);
    EXPECT_EQ(back->src_qp, 77U);
    EXPECT_EQ(back->dst_qp, s.dst_qp);
    if (s.kind == SegmentKind::kNak) {
      EXPECT_EQ(f.aeth.syndrome, syndrome::kNakPsnSeqError);
      EXPECT_EQ(back->psn, s.psn);
      EXPECT_EQ(back->msn, s.msn);
      EXPECT_EQ(back->echo_psn, s.echo_psn);
      EXPECT_EQ(back->echo_sent, s.echo_sent);
      EXPECT_EQ(back->echo_arrival, s.echo_arrival);
      EXPECT_TRUE(back->ce_echo);
      EXPECT_EQ(back->ce_bytes, s.ce_bytes);
      EXPECT_EQ(back->sack_bitmap, s.sack_bitmap);
      EXPECT_EQ(back->hop_count, 2);
      EXPECT_EQ(back->int_hops[1].node_id, 9U);
      EXPECT_EQ(back->int_hops[1].link_rate_bps, 400U);
    } else {
      EXPECT_TRUE(f.bth.becn);
    }
  }
}

}  // namespace
}  // namespace gw::transport
