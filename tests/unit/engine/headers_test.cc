#include "emulator/engine/headers.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/rng.h"

namespace gw {
namespace {

using Bytes = std::vector<std::uint8_t>;

// Builds frames front to back; big-endian fields.
class FrameBuilder {
 public:
  FrameBuilder& u8(std::uint8_t v) {
    b_.push_back(v);
    return *this;
  }
  FrameBuilder& u16(std::uint16_t v) {
    return u8(static_cast<std::uint8_t>(v >> 8)).u8(static_cast<std::uint8_t>(v));
  }
  FrameBuilder& u24(std::uint32_t v) {
    return u8(static_cast<std::uint8_t>(v >> 16)).u16(static_cast<std::uint16_t>(v));
  }
  FrameBuilder& u32(std::uint32_t v) {
    return u16(static_cast<std::uint16_t>(v >> 16)).u16(static_cast<std::uint16_t>(v));
  }
  FrameBuilder& zeros(std::size_t n) {
    b_.insert(b_.end(), n, 0);
    return *this;
  }
  FrameBuilder& bytes(std::initializer_list<std::uint8_t> v) {
    b_.insert(b_.end(), v);
    return *this;
  }

  // Ethernet II: dst 02:00:00:00:00:02, src 02:00:00:00:00:01.
  FrameBuilder& eth(std::uint16_t ethertype) {
    return bytes({2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1}).u16(ethertype);
  }
  FrameBuilder& vlan(std::uint16_t vid, std::uint16_t inner_type) {
    // Called after eth(tpid): TCI then the inner EtherType.
    return u16(vid).u16(inner_type);
  }
  // IPv4 with `options` extra 32-bit words; total length covers `payload` bytes after it.
  FrameBuilder& ipv4(std::uint8_t tos, std::uint8_t proto, std::array<std::uint8_t, 4> src,
                     std::array<std::uint8_t, 4> dst, std::uint16_t payload, std::uint16_t frag = 0x4000,
                     std::size_t options = 0) {
    const std::size_t start = b_.size();
    const auto hl = static_cast<std::uint16_t>(20 + 4 * options);
    u8(static_cast<std::uint8_t>(0x40 | (hl / 4))).u8(tos).u16(static_cast<std::uint16_t>(hl + payload));
    u16(0x1234).u16(frag).u8(64).u8(proto).u16(0);
    for (auto v : src) {
      u8(v);
    }
    for (auto v : dst) {
      u8(v);
    }
    for (std::size_t i = 0; i < options; ++i) {
      u32(0x01010101);  // NOPs
    }
    const std::uint16_t c = ipv4_header_checksum(std::span<const std::uint8_t>(b_).subspan(start, hl));
    b_[start + 10] = static_cast<std::uint8_t>(c >> 8);
    b_[start + 11] = static_cast<std::uint8_t>(c);
    return *this;
  }
  FrameBuilder& ipv6(std::uint8_t tc, std::uint8_t next, std::uint8_t src_last, std::uint8_t dst_last,
                     std::uint16_t payload) {
    u32((6U << 28) | (std::uint32_t{tc} << 20) | 0xabcdeU).u16(payload).u8(next).u8(64);
    bytes({0x20, 0x01, 0x0d, 0xb8}).zeros(11).u8(src_last);
    bytes({0x20, 0x01, 0x0d, 0xb8}).zeros(11).u8(dst_last);
    return *this;
  }
  FrameBuilder& tcp(std::uint16_t sport, std::uint16_t dport) {
    return u16(sport).u16(dport).u32(1000).u32(0).u16(0x5010).u16(65535).u16(0).u16(0);
  }
  FrameBuilder& udp(std::uint16_t sport, std::uint16_t dport, std::uint16_t payload) {
    return u16(sport).u16(dport).u16(static_cast<std::uint16_t>(8 + payload)).u16(0);
  }
  FrameBuilder& bth(std::uint8_t opcode, std::uint32_t dest_qp, std::uint32_t psn, bool becn = false) {
    return u8(opcode).u8(0x40).u16(0xffff).u8(becn ? 0x40 : 0).u24(dest_qp).u8(0x80).u24(psn);
  }

  Bytes done() const { return b_; }

 private:
  Bytes b_;
};

IpAddress mapped(std::array<std::uint8_t, 4> a) {
  IpAddress ip;
  ip.bytes[10] = ip.bytes[11] = 0xff;
  std::copy(a.begin(), a.end(), ip.bytes.begin() + 12);
  return ip;
}

IpAddress v6(std::uint8_t last) {
  IpAddress ip;
  ip.bytes[0] = 0x20;
  ip.bytes[1] = 0x01;
  ip.bytes[2] = 0x0d;
  ip.bytes[3] = 0xb8;
  ip.bytes[15] = last;
  return ip;
}

constexpr std::array<std::uint8_t, 4> kA{198, 18, 0, 1};
constexpr std::array<std::uint8_t, 4> kB{198, 18, 0, 2};

Bytes ipv4_tcp(std::uint8_t tos = 0x2a) {
  return FrameBuilder().eth(kEtherTypeIpv4).ipv4(tos, kProtoTcp, kA, kB, 20).tcp(40000, 5201).done();
}

Bytes roce_v4(std::uint8_t opcode) {
  return FrameBuilder()
      .eth(kEtherTypeIpv4)
      .ipv4(0x62, kProtoUdp, kA, kB, 8 + 12 + 16 + 4)
      .udp(49152, kRoceV2Port, 12 + 16 + 4)
      .bth(opcode, 0xabcdef, 0x123456, opcode == kRoceCnpOpcode)
      .zeros(16 + 4)
      .done();
}

// IPv6 / hop-by-hop (8 B) / SRH with two segments (8 + 32 B) / UDP.
Bytes ipv6_hbh_srh_udp() {
  FrameBuilder f;
  f.eth(kEtherTypeIpv6).ipv6(0xb9, 0, 1, 2, 8 + 40 + 8 + 4);
  f.u8(43).u8(0).bytes({1, 0, 0, 0, 0, 0});              // hop-by-hop: next routing, PadN
  f.u8(kProtoUdp).u8(4).u8(4).u8(1).u8(1).u8(0).u16(0);  // SRH: type 4, SL 1, last entry 1
  f.bytes({0x20, 0x01, 0x0d, 0xb8}).zeros(11).u8(9);     // segment[0]
  f.bytes({0x20, 0x01, 0x0d, 0xb8}).zeros(11).u8(8);     // segment[1]
  f.udp(5000, 6000, 4).u32(0xdeadbeef);
  return f.done();
}

Bytes qinq_ipv4_udp() {
  return FrameBuilder()
      .eth(kEtherTypeQinQ)
      .vlan(100, kEtherTypeVlan)
      .vlan(200, kEtherTypeIpv4)
      .ipv4(0x01, kProtoUdp, kA, kB, 12)
      .udp(1111, 2222, 4)
      .u32(0)
      .done();
}

// All the sample frames, for the truncation property.
std::vector<Bytes> samples() {
  std::vector<Bytes> s;
  s.push_back(ipv4_tcp());
  s.push_back(roce_v4(0x04));
  s.push_back(roce_v4(kRoceCnpOpcode));
  s.push_back(ipv6_hbh_srh_udp());
  s.push_back(qinq_ipv4_udp());
  s.push_back(FrameBuilder()
                  .eth(kEtherTypeVlan)
                  .vlan(7, kEtherTypeIpv6)
                  .ipv6(0x02, kProtoTcp, 1, 2, 20)
                  .tcp(1, 2)
                  .done());
  s.push_back(
      FrameBuilder().eth(kEtherTypeIpv4).ipv4(0x02, kProtoTcp, kA, kB, 20, 0x4000, 3).tcp(3, 4).done());
  s.push_back(FrameBuilder()
                  .eth(kEtherTypeIpv6)
                  .ipv6(0x01, 51, 1, 2, 24 + 8 + 12)
                  .u8(kProtoUdp)
                  .u8(4)
                  .u16(0)
                  .u32(0x100)
                  .u32(1)
                  .zeros(12)  // AH, 24 bytes
                  .udp(7, kRoceV2Port, 12)
                  .bth(0x0a, 0x11, 0x22)
                  .done());
  return s;
}

std::uint16_t stored_checksum(const Bytes& f, std::size_t ip) {
  return static_cast<std::uint16_t>((f[ip + 10] << 8) | f[ip + 11]);
}

// One's complement sum of a header including its checksum: 0xffff when the checksum is good.
std::uint16_t verify_sum(std::span<const std::uint8_t> hdr) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i + 1 < hdr.size(); i += 2) {
    sum += static_cast<std::uint32_t>((hdr[i] << 8) | hdr[i + 1]);
  }
  while ((sum >> 16) != 0) {
    sum = (sum & 0xffffU) + (sum >> 16);
  }
  return static_cast<std::uint16_t>(sum);
}

// ---- parsing ------------------------------------------------------------------------------

TEST(HeaderParse, Ipv4TcpFieldsAndMappedAddresses) {
  const Bytes f = ipv4_tcp(0x2a << 2 | 0x2);  // DSCP 42, ECT(0)
  const PacketHeaders h = parse_headers(f);
  EXPECT_TRUE(h.valid_l3);
  EXPECT_FALSE(h.ipv6);
  EXPECT_TRUE(h.valid_l4);
  EXPECT_FALSE(h.roce);
  EXPECT_EQ(h.protocol, kProtoTcp);
  EXPECT_EQ(h.dscp, 42);
  EXPECT_EQ(h.ecn, Ecn::kEct0);
  EXPECT_EQ(h.src, mapped(kA));
  EXPECT_EQ(h.dst, mapped(kB));
  EXPECT_EQ(h.src_port, 40000);
  EXPECT_EQ(h.dst_port, 5201);
}

TEST(HeaderParse, Ipv4OptionsMoveTheL4Header) {
  const Bytes f =
      FrameBuilder().eth(kEtherTypeIpv4).ipv4(0, kProtoTcp, kA, kB, 20, 0x4000, 10).tcp(1234, 80).done();
  const PacketHeaders h = parse_headers(f);
  ASSERT_TRUE(h.valid_l4);
  EXPECT_EQ(h.src_port, 1234);
  EXPECT_EQ(h.dst_port, 80);
}

TEST(HeaderParse, Ipv4BadIhlOrVersionIsNotL3) {
  Bytes f = ipv4_tcp();
  f[14] = 0x44;  // IHL 4 < 5
  EXPECT_FALSE(parse_headers(f).valid_l3);
  f[14] = 0x65;  // version 6 under EtherType IPv4
  EXPECT_FALSE(parse_headers(f).valid_l3);
  f[14] = 0x4f;  // IHL 15 = 60 bytes: past this frame's end
  const Bytes short_frame(f.begin(), f.begin() + 14 + 40);
  EXPECT_FALSE(parse_headers(short_frame).valid_l3);
}

TEST(HeaderParse, OnlyTheFirstIpv4FragmentHasL4) {
  const Bytes first =
      FrameBuilder().eth(kEtherTypeIpv4).ipv4(0, kProtoUdp, kA, kB, 8, 0x2000).udp(1, 2, 0).done();  // MF,
                                                                                                     // off 0
  const Bytes later =
      FrameBuilder().eth(kEtherTypeIpv4).ipv4(0, kProtoUdp, kA, kB, 8, 0x2001).udp(1, 2, 0).done();  // off 8
                                                                                                     // B
  const PacketHeaders h1 = parse_headers(first);
  EXPECT_TRUE(h1.valid_l4);
  EXPECT_EQ(h1.dst_port, 2);
  const PacketHeaders h2 = parse_headers(later);
  EXPECT_TRUE(h2.valid_l3);
  EXPECT_EQ(h2.protocol, kProtoUdp);
  EXPECT_FALSE(h2.valid_l4);
  EXPECT_EQ(h2.dst_port, 0);
}

TEST(HeaderParse, SingleVlanTag) {
  const Bytes f = FrameBuilder()
                      .eth(kEtherTypeVlan)
                      .vlan(42, kEtherTypeIpv4)
                      .ipv4(0, kProtoTcp, kA, kB, 20)
                      .tcp(9, 10)
                      .done();
  const PacketHeaders h = parse_headers(f);
  EXPECT_TRUE(h.valid_l4);
  EXPECT_EQ(h.src, mapped(kA));
  EXPECT_EQ(h.dst_port, 10);
  EXPECT_EQ(locate_l3(f)->offset, 18U);
}

TEST(HeaderParse, QinQTwoTags) {
  const Bytes f = qinq_ipv4_udp();
  const PacketHeaders h = parse_headers(f);
  EXPECT_TRUE(h.valid_l4);
  EXPECT_EQ(h.protocol, kProtoUdp);
  EXPECT_EQ(h.src_port, 1111);
  EXPECT_EQ(h.dst_port, 2222);
  EXPECT_EQ(h.ecn, Ecn::kEct1);
  EXPECT_EQ(locate_l3(f)->offset, 22U);
}

TEST(HeaderParse, ThreeTagsAreNotParsed) {
  const Bytes f = FrameBuilder()
                      .eth(kEtherTypeQinQ)
                      .vlan(1, kEtherTypeVlan)
                      .vlan(2, kEtherTypeVlan)
                      .vlan(3, kEtherTypeIpv4)
                      .ipv4(0, kProtoUdp, kA, kB, 8)
                      .udp(1, 2, 0)
                      .done();
  EXPECT_FALSE(parse_headers(f).valid_l3);
  EXPECT_FALSE(locate_l3(f).has_value());
}

TEST(HeaderParse, NonIpFrameIsNotL3) {
  const Bytes arp = FrameBuilder().eth(0x0806).zeros(28).done();
  const PacketHeaders h = parse_headers(arp);
  EXPECT_FALSE(h.valid_l3);
  EXPECT_FALSE(h.valid_l4);
}

TEST(HeaderParse, Ipv6HopByHopAndSrhAreWalked) {
  const Bytes f = ipv6_hbh_srh_udp();
  const PacketHeaders h = parse_headers(f);
  EXPECT_TRUE(h.valid_l3);
  EXPECT_TRUE(h.ipv6);
  EXPECT_EQ(h.dscp, 0xb9 >> 2);
  EXPECT_EQ(h.ecn, Ecn::kEct1);
  EXPECT_EQ(h.src, v6(1));
  EXPECT_EQ(h.dst, v6(2));
  EXPECT_EQ(h.protocol, kProtoUdp);
  ASSERT_TRUE(h.valid_l4);
  EXPECT_EQ(h.src_port, 5000);
  EXPECT_EQ(h.dst_port, 6000);
}

TEST(HeaderParse, Ipv6AhAndRoce) {
  const Bytes f = samples().back();
  const PacketHeaders h = parse_headers(f);
  EXPECT_EQ(h.protocol, kProtoUdp);
  ASSERT_TRUE(h.roce);
  EXPECT_EQ(h.roce_opcode, 0x0a);
  EXPECT_EQ(h.roce_dest_qp, 0x11U);
  EXPECT_EQ(h.roce_psn, 0x22U);
}

TEST(HeaderParse, Ipv6LaterFragmentHasNoL4ButNamesTheProtocol) {
  const Bytes f = FrameBuilder()
                      .eth(kEtherTypeIpv6)
                      .ipv6(0, 44, 1, 2, 8 + 20)
                      .u8(kProtoTcp)
                      .u8(0)
                      .u16(185 << 3)
                      .u32(77)  // offset 185 * 8 bytes
                      .tcp(1, 2)
                      .done();
  const PacketHeaders h = parse_headers(f);
  EXPECT_EQ(h.protocol, kProtoTcp);
  EXPECT_FALSE(h.valid_l4);
}

TEST(HeaderParse, Ipv6FirstFragmentHasL4) {
  const Bytes f = FrameBuilder()
                      .eth(kEtherTypeIpv6)
                      .ipv6(0, 44, 1, 2, 8 + 20)
                      .u8(kProtoTcp)
                      .u8(0)
                      .u16(1)
                      .u32(77)  // offset 0, M set
                      .tcp(11, 22)
                      .done();
  const PacketHeaders h = parse_headers(f);
  ASSERT_TRUE(h.valid_l4);
  EXPECT_EQ(h.dst_port, 22);
}

TEST(HeaderParse, Ipv6WalkStopsAtUnknownHeader) {
  const Bytes f =
      FrameBuilder().eth(kEtherTypeIpv6).ipv6(0, 50, 1, 2, 16).u32(0x100).u32(1).zeros(8).done();  // ESP
  const PacketHeaders h = parse_headers(f);
  EXPECT_TRUE(h.valid_l3);
  EXPECT_EQ(h.protocol, 50);
  EXPECT_FALSE(h.valid_l4);
}

TEST(HeaderParse, RoceV2Bth) {
  const PacketHeaders h = parse_headers(roce_v4(0x04));  // RC SEND only
  EXPECT_TRUE(h.valid_l4);
  ASSERT_TRUE(h.roce);
  EXPECT_EQ(h.dst_port, kRoceV2Port);
  EXPECT_EQ(h.roce_opcode, 0x04);
  EXPECT_EQ(h.roce_dest_qp, 0xabcdefU);
  EXPECT_EQ(h.roce_psn, 0x123456U);
  EXPECT_EQ(h.dscp, 0x62 >> 2);
  EXPECT_EQ(h.ecn, Ecn::kEct0);
  EXPECT_FALSE(is_roce_cnp(h));
}

TEST(HeaderParse, RoceCnpIsRecognised) {
  const PacketHeaders h = parse_headers(roce_v4(kRoceCnpOpcode));
  ASSERT_TRUE(h.roce);
  EXPECT_TRUE(is_roce_cnp(h));
}

TEST(HeaderParse, Udp4791WithoutAWholeBthIsNotRoce) {
  const Bytes f = FrameBuilder()
                      .eth(kEtherTypeIpv4)
                      .ipv4(0, kProtoUdp, kA, kB, 8 + 11)
                      .udp(1, kRoceV2Port, 11)
                      .zeros(11)
                      .done();
  const PacketHeaders h = parse_headers(f);
  EXPECT_TRUE(h.valid_l4);
  EXPECT_FALSE(h.roce);
}

// ---- robustness ---------------------------------------------------------------------------

// Everything a truncated frame reports as valid agrees with the whole frame, and nothing reads
// or writes outside the (exactly sized) buffer: ASan builds check the latter.
TEST(HeaderParse, EveryTruncationParsesConsistently) {
  for (const Bytes& full : samples()) {
    const PacketHeaders whole = parse_headers(full);
    ASSERT_TRUE(whole.valid_l4);
    for (std::size_t len = 0; len <= full.size(); ++len) {
      Bytes cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(len));
      const PacketHeaders h = parse_headers(cut);
      if (h.valid_l3) {
        EXPECT_EQ(h.src, whole.src) << "len " << len;
        EXPECT_EQ(h.dst, whole.dst) << "len " << len;
        EXPECT_EQ(h.dscp, whole.dscp);
        EXPECT_EQ(h.ecn, whole.ecn);
      }
      if (h.valid_l4) {
        EXPECT_EQ(h.protocol, whole.protocol);
        EXPECT_EQ(h.src_port, whole.src_port) << "len " << len;
        EXPECT_EQ(h.dst_port, whole.dst_port) << "len " << len;
      } else {
        EXPECT_EQ(h.src_port, 0);
      }
      if (h.roce) {
        EXPECT_EQ(h.roce_opcode, whole.roce_opcode);
        EXPECT_EQ(h.roce_dest_qp, whole.roce_dest_qp);
        EXPECT_EQ(h.roce_psn, whole.roce_psn);
      }
      if (len < full.size() && whole.valid_l4 && !h.valid_l4) {
        EXPECT_FALSE(h.roce);
      }
      apply_ce(cut);
      flip_bit(cut, static_cast<std::uint32_t>(len * 8));  // just past the end: no-op
      EXPECT_EQ(cut.size(), len);
    }
  }
}

// Random bytes, with half of the buffers given a plausible EtherType / version so the parser
// gets past L2 and L3 often.
TEST(HeaderParse, RandomBuffersNeverCrash) {
  Rng rng(2026, "headers-fuzz");
  const std::array<std::uint16_t, 4> types{kEtherTypeIpv4, kEtherTypeIpv6, kEtherTypeVlan, kEtherTypeQinQ};
  std::size_t l3 = 0;
  std::size_t l4 = 0;
  for (int i = 0; i < 100'000; ++i) {
    Bytes b(rng.below(160));
    for (auto& x : b) {
      x = static_cast<std::uint8_t>(rng.next_u32());
    }
    if (rng.below(2) == 0 && b.size() >= 15) {
      const std::uint16_t t = types[rng.below(types.size())];
      b[12] = static_cast<std::uint8_t>(t >> 8);
      b[13] = static_cast<std::uint8_t>(t);
      // IPv6: version 6, random traffic class nibble; IPv4 (or a tag): version 4, IHL 5..15.
      b[14] =
          static_cast<std::uint8_t>(t == kEtherTypeIpv6 ? 0x60 | (b[14] & 0x0f) : 0x40 | (5 + rng.below(11)));
      if (b.size() >= 24 && t == kEtherTypeIpv4) {
        b[20] = b[21] = 0;  // not a fragment
        b[23] = static_cast<std::uint8_t>(rng.below(2) == 0 ? kProtoUdp : kProtoTcp);
      }
    }
    const PacketHeaders h = parse_headers(b);
    l3 += h.valid_l3 ? 1 : 0;
    l4 += h.valid_l4 ? 1 : 0;
    apply_ce(b);
    flip_bit(b, static_cast<std::uint32_t>(rng.below(b.size() * 8 + 16)));
  }
  // Not a property of the parser: a check that the generator reaches the deeper layers.
  EXPECT_GT(l3, 10'000U);
  EXPECT_GT(l4, 1'000U);
}

// ---- modifiers ----------------------------------------------------------------------------

TEST(HeaderApplyCe, Ipv4ChecksumStaysValidForRandomHeaders) {
  Rng rng(7, "ce-headers");
  for (int i = 0; i < 20'000; ++i) {
    const std::size_t options = rng.below(11);
    const std::size_t hl = 20 + 4 * options;
    Bytes f = FrameBuilder().eth(kEtherTypeIpv4).done();
    for (std::size_t k = 0; k < hl + 8; ++k) {
      f.push_back(static_cast<std::uint8_t>(rng.next_u32()));
    }
    f[14] = static_cast<std::uint8_t>(0x40 | (hl / 4));
    f[15] = static_cast<std::uint8_t>((f[15] & 0xfc) | (rng.below(2) == 0 ? 1 : 2));  // ECT(1) or ECT(0)
    const std::span<const std::uint8_t> hdr = std::span<const std::uint8_t>(f).subspan(14, hl);
    const std::uint16_t c = ipv4_header_checksum(hdr);
    f[24] = static_cast<std::uint8_t>(c >> 8);
    f[25] = static_cast<std::uint8_t>(c);
    ASSERT_EQ(verify_sum(hdr), 0xffff);
    const std::uint8_t dscp_before = f[15] >> 2;

    ASSERT_TRUE(apply_ce(f));
    EXPECT_EQ(f[15] & 0x03, 0x03);
    EXPECT_EQ(f[15] >> 2, dscp_before);
    EXPECT_EQ(stored_checksum(f, 14), ipv4_header_checksum(hdr)) << "iteration " << i;
    EXPECT_EQ(verify_sum(hdr), 0xffff);
    EXPECT_EQ(parse_headers(f).ecn, Ecn::kCe);
  }
}

TEST(HeaderApplyCe, NotEctIsNeverMarked) {
  for (const Bytes& original :
       {ipv4_tcp(0x28 << 2),
        FrameBuilder().eth(kEtherTypeIpv6).ipv6(0xb8, kProtoTcp, 1, 2, 20).tcp(1, 2).done(),
        FrameBuilder()
            .eth(kEtherTypeVlan)
            .vlan(5, kEtherTypeIpv4)
            .ipv4(0, kProtoUdp, kA, kB, 8)
            .udp(1, 2, 0)
            .done()}) {
    Bytes f = original;
    EXPECT_FALSE(apply_ce(f));
    EXPECT_EQ(f, original);
  }
}

TEST(HeaderApplyCe, NonIpIsNotMarked) {
  const Bytes original = FrameBuilder().eth(0x0806).bytes({0, 1, 0x08, 0, 6, 4, 0, 1}).zeros(20).done();
  Bytes f = original;
  EXPECT_FALSE(apply_ce(f));
  EXPECT_EQ(f, original);
}

TEST(HeaderApplyCe, AlreadyCeIsLeftAlone) {
  const Bytes original = ipv4_tcp(0x03);
  Bytes f = original;
  EXPECT_TRUE(apply_ce(f));
  EXPECT_EQ(f, original);
}

TEST(HeaderApplyCe, Ipv6TrafficClassKeepsDscpAndFlowLabel) {
  const Bytes original = ipv6_hbh_srh_udp();  // traffic class 0xb9: DSCP 46, ECT(1)
  Bytes f = original;
  ASSERT_TRUE(apply_ce(f));
  const PacketHeaders h = parse_headers(f);
  EXPECT_EQ(h.ecn, Ecn::kCe);
  EXPECT_EQ(h.dscp, 0xb9 >> 2);
  EXPECT_EQ(f[14], original[14]);
  EXPECT_EQ(f[15] & 0x0f, original[15] & 0x0f);  // flow label's top nibble
  EXPECT_TRUE(std::equal(f.begin() + 16, f.end(), original.begin() + 16));
}

TEST(HeaderApplyCe, RoceOverVlanIsMarked) {
  Bytes f = FrameBuilder()
                .eth(kEtherTypeVlan)
                .vlan(3, kEtherTypeIpv4)
                .ipv4(0x6a, kProtoUdp, kA, kB, 20)
                .udp(1, kRoceV2Port, 12)
                .bth(0x04, 1, 2)
                .done();
  ASSERT_TRUE(apply_ce(f));
  EXPECT_EQ(parse_headers(f).ecn, Ecn::kCe);
  EXPECT_EQ(verify_sum(std::span<const std::uint8_t>(f).subspan(18, 20)), 0xffff);
}

TEST(HeaderFlipBit, MsbFirstFromFrameStart) {
  Bytes f(4, 0);
  EXPECT_TRUE(flip_bit(f, 0));
  EXPECT_EQ(f[0], 0x80);
  EXPECT_TRUE(flip_bit(f, 7));
  EXPECT_EQ(f[0], 0x81);
  EXPECT_TRUE(flip_bit(f, 8 + 3));
  EXPECT_EQ(f[1], 0x10);
  EXPECT_TRUE(flip_bit(f, 31));
  EXPECT_EQ(f[3], 0x01);
  EXPECT_TRUE(flip_bit(f, 0));
  EXPECT_EQ(f[0], 0x01);
}

TEST(HeaderFlipBit, PastTheEndChangesNothing) {
  Bytes f(4, 0x55);
  EXPECT_FALSE(flip_bit(f, 32));
  EXPECT_FALSE(flip_bit(f, kNoCorruption));
  EXPECT_EQ(f, Bytes(4, 0x55));
}

TEST(HeaderChecksum, Rfc1071Example) {
  // The classic example header (checksum 0xb861).
  const Bytes hdr{0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                  0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
  EXPECT_EQ(ipv4_header_checksum(hdr), 0xb861);
}

TEST(HeaderPacket, PacketFromFrameFillsMetadata) {
  const Bytes f = roce_v4(0x04);
  const Packet p = packet_from_frame(f, 17, at_ns(1234));
  EXPECT_EQ(p.handle, 17U);
  EXPECT_EQ(p.size_bytes, f.size());
  EXPECT_EQ(p.arrival, at_ns(1234));
  EXPECT_EQ(p.time, at_ns(1234));
  EXPECT_TRUE(p.headers.roce);
  EXPECT_FALSE(p.ce_marked);
  EXPECT_EQ(p.corrupt_bit, kNoCorruption);
  EXPECT_EQ(packet_from_frame(f, 0, kEpoch, 9000).size_bytes, 9000U);
}

}  // namespace
}  // namespace gw
