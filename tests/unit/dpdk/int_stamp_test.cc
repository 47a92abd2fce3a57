// INT stamping into frame bytes (emulator/dpdk/int_stamp.h): P4.org INT v2.1 INT-MD over
// TCP/UDP, transit-hop behaviour, lengths and checksums.
#include "emulator/dpdk/int_stamp.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "emulator/engine/headers.h"

namespace gw {
namespace {

constexpr std::size_t kHeadroom = 128;
constexpr std::uint16_t kBitmap = 0xB400;  // bits 0 node id, 2 hop latency, 3 queue, 5 egress ts
constexpr std::uint8_t kHopWords = 5;      // 4 + 4 + 4 + 8 bytes

struct Frame {
  std::vector<std::uint8_t> buf;  // kHeadroom bytes, then the frame
  std::size_t len = 0;
  std::size_t l3 = 14;
  std::size_t l4 = 0;
  std::size_t shim = 0;
  std::uint8_t* f() { return buf.data() + kHeadroom; }
};

void put16(std::uint8_t* p, std::uint16_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 8);
  p[1] = static_cast<std::uint8_t>(v);
}
std::uint16_t get16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>((p[0] << 8) | p[1]);
}
std::uint64_t get_n(const std::uint8_t* p, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) {
    v = (v << 8) | p[i];
  }
  return v;
}

// Checksum over the pseudo-header + L4 bytes including the stored checksum: 0xFFFF when valid.
std::uint16_t l4_verify(Frame& fr, bool ipv6, bool udp) {
  std::uint8_t* f = fr.f();
  const std::size_t ip_end = ipv6 ? fr.l3 + 40 + get16(f + fr.l3 + 4) : fr.l3 + get16(f + fr.l3 + 2);
  std::uint32_t sum = ipv6 ? ones_sum({f + fr.l3 + 8, 32}, 0) : ones_sum({f + fr.l3 + 12, 8}, 0);
  sum += udp ? 17 : 6;
  sum += static_cast<std::uint32_t>(ip_end - fr.l4);
  sum = ones_sum({f + fr.l4, ip_end - fr.l4}, sum);
  while (sum >> 16) {
    sum = (sum & 0xFFFF) + (sum >> 16);
  }
  return static_cast<std::uint16_t>(sum);
}

void set_l4_checksum(Frame& fr, bool ipv6, bool udp) {
  const std::size_t field = fr.l4 + (udp ? 6 : 16);
  put16(fr.f() + field, 0);
  const std::uint16_t c = static_cast<std::uint16_t>(~l4_verify(fr, ipv6, udp));
  put16(fr.f() + field, c == 0 && udp ? 0xFFFF : c);
}

// Ethernet / IPv4 or IPv6 (DSCP `dscp`) / UDP or TCP / shim / INT-MD (hop count `remaining`,
// no entries yet) / 8 bytes of payload.
Frame make_frame(bool ipv6, bool udp, std::uint8_t dscp, std::uint8_t remaining, bool udp_checksum = true) {
  Frame fr;
  const std::size_t l3_len = ipv6 ? 40 : 20;
  const std::size_t l4_len = udp ? 8 : 20;
  fr.l4 = fr.l3 + l3_len;
  fr.shim = fr.l4 + l4_len;
  fr.len = fr.shim + kIntShimBytes + kIntMdHeaderBytes + 8;
  fr.buf.assign(kHeadroom + fr.len, 0);
  std::uint8_t* f = fr.f();
  for (int i = 0; i < 12; ++i) {
    f[i] = static_cast<std::uint8_t>(0x10 + i);  // MACs
  }
  put16(f + 12, ipv6 ? kEtherTypeIpv6 : kEtherTypeIpv4);
  std::uint8_t* ip = f + fr.l3;
  if (ipv6) {
    ip[0] = static_cast<std::uint8_t>(0x60 | (dscp >> 2));
    ip[1] = static_cast<std::uint8_t>((dscp & 3) << 6);
    put16(ip + 4, static_cast<std::uint16_t>(fr.len - fr.l4));
    ip[6] = udp ? 17 : 6;
    ip[7] = 64;
    ip[23] = 1;  // 2001:db8::1 style addresses, enough for the checksum
    ip[8] = 0x20;
    ip[39] = 2;
    ip[24] = 0x20;
  } else {
    ip[0] = 0x45;
    ip[1] = static_cast<std::uint8_t>(dscp << 2 | 2);  // ECT(0) rides along
    put16(ip + 2, static_cast<std::uint16_t>(fr.len - fr.l3));
    ip[8] = 64;
    ip[9] = udp ? 17 : 6;
    const std::uint8_t addrs[8] = {198, 18, 0, 1, 198, 18, 0, 2};
    std::copy(addrs, addrs + 8, ip + 12);
    put16(ip + 10, ipv4_header_checksum({ip, 20}));
  }
  std::uint8_t* l4 = f + fr.l4;
  put16(l4, 40000);
  put16(l4 + 2, 5001);
  if (udp) {
    put16(l4 + 4, static_cast<std::uint16_t>(fr.len - fr.l4));
  } else {
    l4[12] = 0x50;  // data offset 5 words
    l4[13] = 0x18;
  }
  std::uint8_t* shim = f + fr.shim;
  shim[0] = 0x10;  // type 1 (INT-MD), NPT 0
  shim[1] = 4;     // shim + INT-MD header, in words
  shim[3] = static_cast<std::uint8_t>(dscp << 2);
  std::uint8_t* md = shim + kIntShimBytes;
  md[0] = 0x20;  // version 2
  md[2] = kHopWords;
  md[3] = remaining;
  put16(md + 4, kBitmap);
  put16(md + 6, 0xABCD);  // domain id
  const char payload[] = "payload!";
  std::copy(payload, payload + 8, md + kIntMdHeaderBytes);
  if (udp_checksum || ipv6 || !udp) {
    set_l4_checksum(fr, ipv6, udp);
  }
  return fr;
}

IntStack one_hop() {
  IntStack t;
  t.hops = 1;
  t.hop[0].node_id = 42;
  t.hop[0].queue_bytes = 3000;
  t.hop[0].hop_latency_ns = 1234;
  t.hop[0].egress_ts_ns = 0x0102030405060708ULL;
  return t;
}

IntStampResult stamp(Frame& fr, const IntStack& t, std::size_t headroom = kHeadroom) {
  // The span starts where the test's headroom is cut to `headroom`.
  const std::size_t cut = kHeadroom - headroom;
  return stamp_int({fr.buf.data() + cut, fr.buf.size() - cut}, headroom, fr.len, t, {0, 1}, kIntDefaultDscp);
}

TEST(IntStamp, UdpOverIpv4GetsOneHopEntryWithLengthsAndChecksumsUpdated) {
  Frame fr = make_frame(false, true, kIntDefaultDscp, 4);
  const std::vector<std::uint8_t> before(fr.f(), fr.f() + fr.len);
  const IntStampResult r = stamp(fr, one_hop());
  ASSERT_EQ(r.outcome, IntOutcome::kStamped);
  ASSERT_EQ(r.inserted, kHopWords * 4U);
  // The frame now starts 20 bytes earlier.
  fr.buf.erase(fr.buf.begin(), fr.buf.begin() + static_cast<std::ptrdiff_t>(kHeadroom - r.inserted));
  fr.buf.insert(fr.buf.begin(), kHeadroom, 0);
  fr.len += r.inserted;
  const std::uint8_t* f = fr.f();
  // Ethernet and the addresses unchanged; lengths grown by 20.
  EXPECT_TRUE(std::equal(before.begin(), before.begin() + 14, f));
  EXPECT_EQ(get16(f + fr.l3 + 2), get16(before.data() + fr.l3 + 2) + 20);
  EXPECT_EQ(get16(f + fr.l4 + 4), get16(before.data() + fr.l4 + 4) + 20);
  EXPECT_EQ(f[fr.shim + 1], 4 + kHopWords);  // shim length in words
  const std::uint8_t* md = f + fr.shim + kIntShimBytes;
  EXPECT_EQ(md[3], 3);  // remaining hop count decremented
  EXPECT_EQ(md[0] & 0x04, 0);
  EXPECT_EQ(get16(md + 6), 0xABCD);
  // The entry, in bitmap order: node id, hop latency, queue id 0 + occupancy, egress ts.
  const std::uint8_t* e = md + kIntMdHeaderBytes;
  EXPECT_EQ(get_n(e, 4), 42U);
  EXPECT_EQ(get_n(e + 4, 4), 1234U);
  EXPECT_EQ(get_n(e + 8, 4), 3000U);
  EXPECT_EQ(get_n(e + 12, 8), 0x0102030405060708ULL);
  // The payload follows, unchanged.
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(e + 20), 8), "payload!");
  // IPv4 header checksum and UDP checksum valid.
  EXPECT_EQ(ones_sum({f + fr.l3, 20}, 0) % 0xFFFF, 0U);
  EXPECT_EQ(l4_verify(fr, false, true), 0xFFFF);
  // What parse_headers sees: still UDP to 5001, DSCP and ECN kept.
  const PacketHeaders h = parse_headers({f, fr.len});
  EXPECT_TRUE(h.valid_l4);
  EXPECT_EQ(h.dst_port, 5001);
  EXPECT_EQ(h.dscp, kIntDefaultDscp);
  EXPECT_EQ(h.ecn, Ecn::kEct0);
}

TEST(IntStamp, NewestEntryGoesOnTopOfTheStack) {
  Frame fr = make_frame(false, true, kIntDefaultDscp, 4);
  IntStack t = one_hop();
  t.hops = 2;
  t.hop[1] = t.hop[0];
  t.hop[1].node_id = 43;
  const IntStampResult r = stamp(fr, t);
  ASSERT_EQ(r.outcome, IntOutcome::kStamped);
  ASSERT_EQ(r.inserted, 2 * kHopWords * 4U);
  const std::uint8_t* g = fr.buf.data() + kHeadroom - r.inserted;
  const std::uint8_t* e = g + fr.shim + kIntShimBytes + kIntMdHeaderBytes;
  EXPECT_EQ(get_n(e, 4), 43U);
  EXPECT_EQ(get_n(e + 20, 4), 42U);
  EXPECT_EQ(g[fr.shim + kIntShimBytes + 3], 2);
}

TEST(IntStamp, TcpOverIpv6ChecksumStaysValid) {
  Frame fr = make_frame(true, false, kIntDefaultDscp, 1);
  const IntStampResult r = stamp(fr, one_hop());
  ASSERT_EQ(r.outcome, IntOutcome::kStamped);
  fr.buf.erase(fr.buf.begin(), fr.buf.begin() + static_cast<std::ptrdiff_t>(kHeadroom - r.inserted));
  fr.buf.insert(fr.buf.begin(), kHeadroom, 0);
  fr.len += r.inserted;
  EXPECT_EQ(get16(fr.f() + fr.l3 + 4), fr.len - fr.l4);
  EXPECT_EQ(l4_verify(fr, true, false), 0xFFFF);
}

TEST(IntStamp, UdpChecksumZeroOverIpv4StaysZero) {
  Frame fr = make_frame(false, true, kIntDefaultDscp, 4, false);
  const IntStampResult r = stamp(fr, one_hop());
  ASSERT_EQ(r.outcome, IntOutcome::kStamped);
  const std::uint8_t* g = fr.buf.data() + kHeadroom - r.inserted;
  EXPECT_EQ(get16(g + fr.l4 + 6), 0);
}

TEST(IntStamp, HopCountZeroSetsTheExceededBitAndAddsNothing) {
  Frame fr = make_frame(false, true, kIntDefaultDscp, 0);
  const IntStampResult r = stamp(fr, one_hop());
  EXPECT_EQ(r.outcome, IntOutcome::kExceeded);
  EXPECT_EQ(r.inserted, 0U);
  EXPECT_EQ(fr.f()[fr.shim + kIntShimBytes] & 0x04, 0x04);
  EXPECT_EQ(fr.f()[fr.shim + 1], 4);
  EXPECT_EQ(l4_verify(fr, false, true), 0xFFFF);
}

TEST(IntStamp, FramesWithoutTheIntDscpAreLeftAlone) {
  Frame fr = make_frame(false, true, 0x0A, 4);
  const std::vector<std::uint8_t> before = fr.buf;
  EXPECT_EQ(stamp(fr, one_hop()).outcome, IntOutcome::kNoInt);
  EXPECT_EQ(fr.buf, before);
}

TEST(IntStamp, BadShimTypeVersionOrHopLengthIsMalformedAndUnchanged) {
  for (int which = 0; which < 4; ++which) {
    Frame fr = make_frame(false, true, kIntDefaultDscp, 4);
    std::uint8_t* shim = fr.f() + fr.shim;
    switch (which) {
      case 0:
        shim[0] = 0x30;  // INT-MX: no per-hop metadata to add
        break;
      case 1:
        shim[kIntShimBytes] = 0x10;  // version 1
        break;
      case 2:
        shim[kIntShimBytes + 2] = kHopWords + 1;  // Hop ML disagrees with the bitmap
        break;
      default:
        shim[1] = 200;  // longer than the datagram
        break;
    }
    const std::vector<std::uint8_t> before = fr.buf;
    EXPECT_EQ(stamp(fr, one_hop()).outcome, IntOutcome::kMalformed) << which;
    EXPECT_EQ(fr.buf, before) << which;
  }
}

TEST(IntStamp, TruncatedFramesAreMalformedNotReadPastTheEnd) {
  Frame full = make_frame(false, true, kIntDefaultDscp, 4);
  for (std::size_t len = full.shim; len < full.len; ++len) {
    Frame fr = full;
    fr.len = len;
    fr.buf.resize(kHeadroom + len);  // nothing readable past the end
    EXPECT_EQ(stamp(fr, one_hop()).outcome, IntOutcome::kMalformed) << len;
  }
}

TEST(IntStamp, TooLittleHeadroomIsCountedAsNoRoom) {
  Frame fr = make_frame(false, true, kIntDefaultDscp, 4);
  const std::vector<std::uint8_t> before = fr.buf;
  EXPECT_EQ(stamp(fr, one_hop(), 19).outcome, IntOutcome::kNoRoom);
  EXPECT_EQ(fr.buf, before);
  EXPECT_EQ(stamp(fr, one_hop(), 20).outcome, IntOutcome::kStamped);
}

}  // namespace
}  // namespace gw
