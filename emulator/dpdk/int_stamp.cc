#include "emulator/dpdk/int_stamp.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "emulator/engine/headers.h"

namespace gw {
namespace {

std::uint16_t get16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>((p[0] << 8) | p[1]);
}

void put16(std::uint8_t* p, std::uint16_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 8);
  p[1] = static_cast<std::uint8_t>(v);
}

void put32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) {
    p[i] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
  }
}

void put64(std::uint8_t* p, std::uint64_t v) {
  put32(p, static_cast<std::uint32_t>(v >> 32));
  put32(p + 4, static_cast<std::uint32_t>(v));
}

std::uint16_t fold(std::uint32_t sum) {
  while (sum >> 16) {
    sum = (sum & 0xFFFF) + (sum >> 16);
  }
  return static_cast<std::uint16_t>(sum);
}

// Bytes of one hop entry for an instruction bitmap (bit 0 = MSB), or -1 for bits this
// implementation cannot fill (none today: reserved bits get 0xFFFFFFFF as v2.1 asks).
std::size_t entry_bytes(std::uint16_t bitmap) {
  static constexpr std::array<std::uint8_t, 16> kBytes{4, 4, 4, 4, 8, 8, 8, 4, 4, 4, 4, 4, 4, 4, 4, 0};
  std::size_t n = 0;
  for (std::size_t bit = 0; bit < 16; ++bit) {
    if (bitmap & (0x8000U >> bit)) {
      n += kBytes[bit];
    }
  }
  return n;
}

void write_entry(std::uint8_t* p, std::uint16_t bitmap, const IntHop& h, IntPorts ports) {
  const std::uint32_t occupancy = std::min<std::uint32_t>(h.queue_bytes, 0xFFFFFF);
  for (std::size_t bit = 0; bit < 16; ++bit) {
    if (!(bitmap & (0x8000U >> bit))) {
      continue;
    }
    switch (bit) {
      case 0:
        put32(p, h.node_id);
        p += 4;
        break;
      case 1:
        put16(p, ports.ingress);
        put16(p + 2, ports.egress);
        p += 4;
        break;
      case 2:
        put32(p, h.hop_latency_ns);
        p += 4;
        break;
      case 3:
      case 8:
        put32(p, occupancy);  // id 0 in the top byte
        p += 4;
        break;
      case 4:
        put64(p, h.egress_ts_ns - std::min<std::uint64_t>(h.egress_ts_ns, h.hop_latency_ns));
        p += 8;
        break;
      case 5:
        put64(p, h.egress_ts_ns);
        p += 8;
        break;
      case 6:
        put32(p, ports.ingress);
        put32(p + 4, ports.egress);
        p += 8;
        break;
      case 7:
        put32(p, h.tx_utilization_ppm);
        p += 4;
        break;
      case 15:
        break;  // checksum complement: no metadata
      default:
        put32(p, 0xFFFFFFFFU);  // reserved bits 9-14
        p += 4;
        break;
    }
  }
}

// The L4 checksum over the pseudo-header and the segment [l4, ip_end), with the checksum field
// at `field` taken as zero. Host order, ready to store.
std::uint16_t l4_checksum(const std::uint8_t* f, const IntLocation& at, std::size_t ip_end,
                          std::size_t field) {
  std::uint32_t sum = 0;
  const std::size_t l4_len = ip_end - at.l4;
  if (at.ipv6) {
    sum = ones_sum({f + at.l3 + 8, 32}, sum);
  } else {
    sum = ones_sum({f + at.l3 + 12, 8}, sum);
  }
  sum += at.udp ? kProtoUdp : kProtoTcp;
  sum += static_cast<std::uint32_t>(l4_len >> 16) + static_cast<std::uint32_t>(l4_len & 0xFFFF);
  sum = ones_sum({f + at.l4, field - at.l4}, sum);
  sum = ones_sum({f + field + 2, ip_end - field - 2}, sum);
  const std::uint16_t c = static_cast<std::uint16_t>(~fold(sum));
  return (at.udp && c == 0) ? 0xFFFF : c;
}

}  // namespace

std::uint32_t ones_sum(std::span<const std::uint8_t> b, std::uint32_t sum) {
  std::uint64_t s = sum;
  std::size_t i = 0;
  for (; i + 1 < b.size(); i += 2) {
    s += static_cast<std::uint32_t>((b[i] << 8) | b[i + 1]);
  }
  if (i < b.size()) {
    s += static_cast<std::uint32_t>(b[i] << 8);
  }
  while (s >> 32) {
    s = (s & 0xFFFFFFFFULL) + (s >> 32);
  }
  // Fold to 17 bits at most so callers may keep adding.
  return static_cast<std::uint32_t>((s & 0xFFFF) + ((s >> 16) & 0xFFFF) + (s >> 32));
}

IntOutcome locate_int(std::span<const std::uint8_t> frame, std::uint8_t int_dscp, IntLocation* where) {
  const auto l3 = locate_l3(frame);
  if (!l3) {
    return IntOutcome::kNoInt;
  }
  const std::uint8_t* f = frame.data();
  IntLocation at;
  at.l3 = l3->offset;
  at.ipv6 = l3->ipv6;
  std::uint8_t dscp = 0;
  std::uint8_t proto = 0;
  std::size_t ip_end = 0;
  if (at.ipv6) {
    dscp = static_cast<std::uint8_t>(((f[at.l3] & 0x0F) << 2) | (f[at.l3 + 1] >> 6));
    proto = f[at.l3 + 6];
    at.l4 = at.l3 + 40;
    ip_end = at.l4 + get16(f + at.l3 + 4);
  } else {
    dscp = static_cast<std::uint8_t>(f[at.l3 + 1] >> 2);
    proto = f[at.l3 + 9];
    at.l4 = at.l3 + static_cast<std::size_t>(f[at.l3] & 0x0F) * 4;
    ip_end = at.l3 + get16(f + at.l3 + 2);
    if ((get16(f + at.l3 + 6) & 0x3FFF) != 0) {
      return dscp == int_dscp ? IntOutcome::kMalformed : IntOutcome::kNoInt;  // a fragment
    }
  }
  if (dscp != int_dscp) {
    return IntOutcome::kNoInt;
  }
  if (ip_end > frame.size() || (proto != kProtoUdp && proto != kProtoTcp)) {
    return IntOutcome::kMalformed;
  }
  at.udp = proto == kProtoUdp;
  std::size_t l4_len = 8;
  if (!at.udp) {
    if (at.l4 + 20 > ip_end) {
      return IntOutcome::kMalformed;
    }
    l4_len = static_cast<std::size_t>(f[at.l4 + 12] >> 4) * 4;
    if (l4_len < 20) {
      return IntOutcome::kMalformed;
    }
  }
  at.shim = at.l4 + l4_len;
  if (at.shim + kIntShimBytes + kIntMdHeaderBytes > ip_end) {
    return IntOutcome::kMalformed;
  }
  const std::uint8_t* shim = f + at.shim;
  const std::uint8_t* md = shim + kIntShimBytes;
  const std::size_t int_bytes = static_cast<std::size_t>(shim[1]) * 4;
  const std::size_t hop_bytes = static_cast<std::size_t>(md[2] & 0x1F) * 4;
  if ((shim[0] >> 4) != 1 || (md[0] >> 4) != 2 || int_bytes < kIntShimBytes + kIntMdHeaderBytes ||
      at.shim + int_bytes > ip_end ||
      (hop_bytes > 0 && (int_bytes - kIntShimBytes - kIntMdHeaderBytes) % hop_bytes != 0)) {
    return IntOutcome::kMalformed;
  }
  *where = at;
  return IntOutcome::kStamped;
}

IntStampResult stamp_int(std::span<std::uint8_t> buf, std::size_t headroom, std::size_t len,
                         const IntStack& hops, IntPorts ports, std::uint8_t int_dscp) {
  IntStampResult r;
  if (hops.hops == 0 || headroom > buf.size() || len > buf.size() - headroom) {
    return r;
  }
  IntLocation at;
  r.outcome = locate_int(buf.subspan(headroom, len), int_dscp, &at);
  if (r.outcome != IntOutcome::kStamped) {
    return r;
  }
  std::uint8_t* f = buf.data() + headroom;
  std::uint8_t* md = f + at.shim + kIntShimBytes;
  const std::size_t hop_bytes = static_cast<std::size_t>(md[2] & 0x1F) * 4;
  const std::uint16_t bitmap = get16(md + 4);
  if (entry_bytes(bitmap) != hop_bytes) {
    r.outcome = IntOutcome::kMalformed;
    return r;
  }
  const std::size_t n = std::min<std::size_t>({hops.hops, IntStack::kMaxHops, md[3]});
  const std::size_t k = n * hop_bytes;
  if (k > headroom || f[at.shim + 1] + k / 4 > 0xFF || (!at.ipv6 && get16(f + at.l3 + 2) + k > 0xFFFF) ||
      (at.ipv6 && get16(f + at.l3 + 4) + k > 0xFFFF)) {
    r.outcome = IntOutcome::kNoRoom;
    return r;
  }
  const bool exceeded = n < hops.hops;
  const std::size_t md_end = at.shim + kIntShimBytes + kIntMdHeaderBytes;
  std::uint8_t* g = f - k;  // the new frame start
  std::memmove(g, f, md_end);
  // Newest entry first: the engine's hop[0] was stamped first.
  for (std::size_t i = 0; i < n; ++i) {
    write_entry(g + md_end + i * hop_bytes, bitmap, hops.hop[n - 1 - i], ports);
  }
  md = g + at.shim + kIntShimBytes;
  md[3] = static_cast<std::uint8_t>(md[3] - n);
  if (exceeded) {
    md[0] = static_cast<std::uint8_t>(md[0] | 0x04);  // E: hop count exceeded
  }
  g[at.shim + 1] = static_cast<std::uint8_t>(g[at.shim + 1] + k / 4);
  std::size_t ip_end = 0;
  if (at.ipv6) {
    put16(g + at.l3 + 4, static_cast<std::uint16_t>(get16(g + at.l3 + 4) + k));
    ip_end = at.l3 + 40 + get16(g + at.l3 + 4);
  } else {
    put16(g + at.l3 + 2, static_cast<std::uint16_t>(get16(g + at.l3 + 2) + k));
    ip_end = at.l3 + get16(g + at.l3 + 2);
    const std::size_t ihl = static_cast<std::size_t>(g[at.l3] & 0x0F) * 4;
    put16(g + at.l3 + 10, ipv4_header_checksum({g + at.l3, ihl}));
  }
  if (at.udp) {
    put16(g + at.l4 + 4, static_cast<std::uint16_t>(get16(g + at.l4 + 4) + k));
    if (at.ipv6 || get16(g + at.l4 + 6) != 0) {
      put16(g + at.l4 + 6, l4_checksum(g, at, ip_end, at.l4 + 6));
    }
  } else {
    put16(g + at.l4 + 16, l4_checksum(g, at, ip_end, at.l4 + 16));
  }
  r.outcome = n > 0 ? IntOutcome::kStamped : IntOutcome::kExceeded;
  r.inserted = k;
  return r;
}

}  // namespace gw
