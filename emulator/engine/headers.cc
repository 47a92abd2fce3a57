#include "emulator/engine/headers.h"

#include <algorithm>
#include <limits>

namespace gw {
namespace {

constexpr std::size_t kEthHeaderBytes = 14;
constexpr std::size_t kVlanTagBytes = 4;
constexpr int kMaxVlanTags = 2;
constexpr std::size_t kIpv4MinHeaderBytes = 20;
constexpr std::size_t kIpv6HeaderBytes = 40;
constexpr std::size_t kTcpMinHeaderBytes = 20;
constexpr std::size_t kUdpHeaderBytes = 8;
// More extension headers than any real stack sends; a bound on the walk, not a limit of
// the format (each header is >= 8 bytes, so the frame bounds the walk anyway).
constexpr int kMaxIpv6ExtensionHeaders = 16;

// IPv6 extension headers we walk (RFC 8200 §4, RFC 4302).
constexpr std::uint8_t kIpv6HopByHop = 0;
constexpr std::uint8_t kIpv6Routing = 43;  // incl. SRv6 SRH (routing type 4, RFC 8754)
constexpr std::uint8_t kIpv6Fragment = 44;
constexpr std::uint8_t kIpv6Ah = 51;
constexpr std::uint8_t kIpv6DestOpts = 60;

// Big-endian reads; the caller has checked that [off, off + n) is inside the span.
std::uint16_t be16(std::span<const std::uint8_t> b, std::size_t off) {
  return static_cast<std::uint16_t>((b[off] << 8) | b[off + 1]);
}
std::uint32_t be24(std::span<const std::uint8_t> b, std::size_t off) {
  return (std::uint32_t{b[off]} << 16) | (std::uint32_t{b[off + 1]} << 8) | b[off + 2];
}

// Does [off, off + n) fit in a frame of `size` bytes? Written so that it cannot overflow.
bool fits(std::size_t size, std::size_t off, std::size_t n) {
  return off <= size && n <= size - off;
}

// One's complement sum folded to 16 bits (RFC 1071).
std::uint16_t fold(std::uint32_t sum) {
  while ((sum >> 16) != 0) {
    sum = (sum & 0xffffU) + (sum >> 16);
  }
  return static_cast<std::uint16_t>(sum);
}

// The L2 payload: its offset and EtherType, after at most two VLAN tags.
struct L2Payload {
  std::size_t offset = 0;
  std::uint16_t ethertype = 0;
};

std::optional<L2Payload> walk_l2(std::span<const std::uint8_t> frame) {
  if (frame.size() < kEthHeaderBytes) {
    return std::nullopt;
  }
  std::size_t off = kEthHeaderBytes;
  std::uint16_t type = be16(frame, 12);
  for (int tags = 0; tags < kMaxVlanTags && (type == kEtherTypeVlan || type == kEtherTypeQinQ); ++tags) {
    if (!fits(frame.size(), off, kVlanTagBytes)) {
      return std::nullopt;
    }
    type = be16(frame, off + 2);  // TCI (2 bytes), then the inner EtherType
    off += kVlanTagBytes;
  }
  return L2Payload{off, type};
}

// Where the walk of IPv6 extension headers ended.
struct Ipv6Upper {
  std::uint8_t protocol = 0;
  std::size_t offset = 0;
  bool has_l4 = false;  // the upper-layer header starts at `offset` (not a later fragment)
};

Ipv6Upper walk_ipv6(std::span<const std::uint8_t> frame, std::size_t ip_off) {
  Ipv6Upper u;
  u.protocol = frame[ip_off + 6];
  u.offset = ip_off + kIpv6HeaderBytes;
  for (int n = 0; n < kMaxIpv6ExtensionHeaders; ++n) {
    std::size_t len = 0;
    bool later_fragment = false;
    switch (u.protocol) {
      case kIpv6HopByHop:
      case kIpv6Routing:
      case kIpv6DestOpts:
        if (!fits(frame.size(), u.offset, 2)) {
          return u;
        }
        len = (std::size_t{frame[u.offset + 1]} + 1) * 8;  // Hdr Ext Len in 8-octet units, minus 1
        break;
      case kIpv6Ah:
        if (!fits(frame.size(), u.offset, 2)) {
          return u;
        }
        len = (std::size_t{frame[u.offset + 1]} + 2) * 4;  // Payload Len in 4-octet units, minus 2
        break;
      case kIpv6Fragment:
        len = 8;
        if (!fits(frame.size(), u.offset, len)) {
          return u;
        }
        later_fragment = (be16(frame, u.offset + 2) >> 3) != 0;  // Fragment Offset (13 bits)
        break;
      default:
        u.has_l4 = true;  // an upper-layer (or unknown) header starts here
        return u;
    }
    if (!fits(frame.size(), u.offset, len)) {
      return u;  // truncated extension header: protocol stays its type, no L4
    }
    u.protocol = frame[u.offset];  // Next Header
    u.offset += len;
    if (later_fragment) {
      return u;  // only the first fragment carries the upper-layer header
    }
  }
  return u;
}

void parse_l4(std::span<const std::uint8_t> frame, std::size_t off, PacketHeaders& h) {
  if (h.protocol == kProtoTcp) {
    if (fits(frame.size(), off, kTcpMinHeaderBytes)) {
      h.src_port = be16(frame, off);
      h.dst_port = be16(frame, off + 2);
      h.valid_l4 = true;
    }
    return;
  }
  if (h.protocol != kProtoUdp || !fits(frame.size(), off, kUdpHeaderBytes)) {
    return;
  }
  h.src_port = be16(frame, off);
  h.dst_port = be16(frame, off + 2);
  h.valid_l4 = true;
  const std::size_t bth = off + kUdpHeaderBytes;
  if (h.dst_port == kRoceV2Port && fits(frame.size(), bth, kBthBytes)) {
    // BTH: opcode 8 | SE M PadCnt TVer 8 | P_Key 16 | FECN BECN resv 8 | DestQP 24 |
    // AckReq resv 8 | PSN 24.
    h.roce = true;
    h.roce_opcode = frame[bth];
    h.roce_dest_qp = be24(frame, bth + 5);
    h.roce_psn = be24(frame, bth + 9);
  }
}

}  // namespace

std::optional<L3Location> locate_l3(std::span<const std::uint8_t> frame) {
  const std::optional<L2Payload> l2 = walk_l2(frame);
  if (!l2) {
    return std::nullopt;
  }
  const std::size_t off = l2->offset;
  if (l2->ethertype == kEtherTypeIpv4) {
    if (!fits(frame.size(), off, kIpv4MinHeaderBytes) || (frame[off] >> 4) != 4) {
      return std::nullopt;
    }
    const std::size_t ihl_bytes = std::size_t{frame[off] & 0x0fU} * 4;
    if (ihl_bytes < kIpv4MinHeaderBytes || !fits(frame.size(), off, ihl_bytes)) {
      return std::nullopt;
    }
    return L3Location{off, false};
  }
  if (l2->ethertype == kEtherTypeIpv6) {
    if (!fits(frame.size(), off, kIpv6HeaderBytes) || (frame[off] >> 4) != 6) {
      return std::nullopt;
    }
    return L3Location{off, true};
  }
  return std::nullopt;
}

PacketHeaders parse_headers(std::span<const std::uint8_t> frame) {
  PacketHeaders h;
  const std::optional<L3Location> l3 = locate_l3(frame);
  if (!l3) {
    return h;
  }
  const std::size_t ip = l3->offset;
  h.valid_l3 = true;
  h.ipv6 = l3->ipv6;
  std::uint8_t traffic_class = 0;
  std::size_t l4 = 0;
  bool has_l4 = false;
  if (!l3->ipv6) {
    traffic_class = frame[ip + 1];
    h.protocol = frame[ip + 9];
    // IPv4-mapped IPv6 (RFC 4291 §2.5.5.2): ::ffff:a.b.c.d
    h.src.bytes[10] = h.src.bytes[11] = 0xff;
    h.dst.bytes[10] = h.dst.bytes[11] = 0xff;
    std::copy_n(frame.begin() + static_cast<std::ptrdiff_t>(ip + 12), 4, h.src.bytes.begin() + 12);
    std::copy_n(frame.begin() + static_cast<std::ptrdiff_t>(ip + 16), 4, h.dst.bytes.begin() + 12);
    l4 = ip + std::size_t{frame[ip] & 0x0fU} * 4;
    has_l4 = (be16(frame, ip + 6) & 0x1fffU) == 0;  // Fragment Offset 0: first (or only) fragment
  } else {
    traffic_class = static_cast<std::uint8_t>(((frame[ip] & 0x0fU) << 4) | (frame[ip + 1] >> 4));
    std::copy_n(frame.begin() + static_cast<std::ptrdiff_t>(ip + 8), 16, h.src.bytes.begin());
    std::copy_n(frame.begin() + static_cast<std::ptrdiff_t>(ip + 24), 16, h.dst.bytes.begin());
    const Ipv6Upper upper = walk_ipv6(frame, ip);
    h.protocol = upper.protocol;
    l4 = upper.offset;
    has_l4 = upper.has_l4;
  }
  h.dscp = static_cast<std::uint8_t>(traffic_class >> 2);
  h.ecn = static_cast<Ecn>(traffic_class & 0x03U);
  if (has_l4) {
    parse_l4(frame, l4, h);
  }
  return h;
}

bool apply_ce(std::span<std::uint8_t> frame) {
  const std::optional<L3Location> l3 = locate_l3(frame);
  if (!l3) {
    return false;
  }
  std::uint8_t* ip = frame.data() + l3->offset;
  const auto ce = static_cast<std::uint8_t>(Ecn::kCe);
  if (l3->ipv6) {
    // Traffic class spans the low nibble of byte 0 and the high nibble of byte 1; its ECN
    // bits are 0x30 of byte 1.
    const auto ecn = static_cast<Ecn>((ip[1] >> 4) & 0x03U);
    if (!ecn_capable(ecn)) {
      return false;
    }
    ip[1] = static_cast<std::uint8_t>(ip[1] | (ce << 4));
    return true;
  }
  const auto ecn = static_cast<Ecn>(ip[1] & 0x03U);
  if (!ecn_capable(ecn)) {
    return false;
  }
  if (ecn == Ecn::kCe) {
    return true;
  }
  // RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), m the 16-bit word holding version/IHL and TOS.
  const std::uint16_t old_word = static_cast<std::uint16_t>((ip[0] << 8) | ip[1]);
  ip[1] = static_cast<std::uint8_t>(ip[1] | ce);
  const std::uint16_t new_word = static_cast<std::uint16_t>((ip[0] << 8) | ip[1]);
  const std::uint16_t old_sum = static_cast<std::uint16_t>((ip[10] << 8) | ip[11]);
  const std::uint32_t sum =
      std::uint32_t{static_cast<std::uint16_t>(~old_sum)} + static_cast<std::uint16_t>(~old_word) + new_word;
  const auto new_sum = static_cast<std::uint16_t>(~fold(sum));
  ip[10] = static_cast<std::uint8_t>(new_sum >> 8);
  ip[11] = static_cast<std::uint8_t>(new_sum & 0xffU);
  return true;
}

bool flip_bit(std::span<std::uint8_t> frame, std::uint32_t bit) {
  const std::size_t byte = bit / 8;
  if (byte >= frame.size()) {
    return false;
  }
  frame[byte] = static_cast<std::uint8_t>(frame[byte] ^ (0x80U >> (bit % 8)));
  return true;
}

std::uint16_t ipv4_header_checksum(std::span<const std::uint8_t> header) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < header.size(); i += 2) {
    if (i == 10) {
      continue;  // the checksum field itself counts as zero
    }
    const std::uint32_t hi = header[i];
    const std::uint32_t lo = i + 1 < header.size() ? header[i + 1] : 0U;
    sum += (hi << 8) | lo;
    sum = (sum & 0xffffU) + (sum >> 16);  // keep it folded: no overflow for any length
  }
  return static_cast<std::uint16_t>(~fold(sum));
}

Packet packet_from_frame(std::span<const std::uint8_t> frame, std::uint64_t handle, Instant arrival,
                         std::uint32_t wire_bytes) {
  Packet p;
  p.handle = handle;
  const std::size_t captured = std::min<std::size_t>(frame.size(), std::numeric_limits<std::uint32_t>::max());
  p.size_bytes = wire_bytes != 0 ? wire_bytes : static_cast<std::uint32_t>(captured);
  p.arrival = arrival;
  p.time = arrival;
  p.headers = parse_headers(frame);
  return p;
}

}  // namespace gw
