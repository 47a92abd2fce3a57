// INT stamping into packet bytes: the per-hop metadata the engine's queue stage recorded on a
// Packet (IntStack, packet.h) written into frames that carry an INT-MD header, as an INT
// transit hop does (P4.org In-band Network Telemetry v2.1, "INT over TCP/UDP" and INT-MD;
// docs/references.md §4). Pure functions over a byte buffer: no DPDK, no clock.
//
// Which frames carry INT (v2.1 §5.7: "a DSCP value ... indicates the existence of INT after
// TCP/UDP"): IPv4 or IPv6 (no extension headers), TCP or UDP, whose DSCP equals the INT DSCP
// (default 0x17, the value the P4.org INT examples use), followed right after the TCP header
// (with its options) or the 8-byte UDP header by
//   shim (4 B):      type 4 bits (1 = INT-MD) | NPT 2 | reserved 2 | length 8 (words of shim +
//                    INT-MD header + metadata stack) | 16 bits NPT-specific (left alone)
//   INT-MD (12 B):   ver 4 (= 2) | D 1 | E 1 | M 1 | reserved 12 | Hop ML 5 (words per hop) |
//                    remaining hop count 8 | instruction bitmap 16 | domain id 16 |
//                    DS instruction 16 | DS flags 16
//   metadata stack:  one entry of Hop ML words per hop, the newest first.
// A transit hop with remaining hop count 0 sets E and adds nothing; otherwise it decrements the
// count and inserts its entry right after the INT-MD header: the words the bitmap asks for, in
// bit order (bit 0 = the MSB of the bitmap):
//   0 node id (4 B)                        1 level-1 ingress id 2 B + egress id 2 B (DPDK ports)
//   2 hop latency (4 B, ns)                3 queue id 1 B (0) + queue occupancy 3 B (bytes,
//   4 ingress timestamp (8 B, ns)            saturating at 2^24 - 1)
//   5 egress timestamp (8 B, ns)           6 level-2 ingress id 4 B + egress id 4 B (ports)
//   7 egress tx utilization (4 B, ppm)     8 buffer id 1 B (0) + buffer occupancy 3 B (bytes)
//   9-14 reserved: 4 B of 0xFFFFFFFF each  15 checksum complement: no metadata word
// Timestamps are the emulator's run time (ns since it started), as the engine keeps them.
// Then the lengths (shim length, IPv4 total length / IPv6 payload length, UDP length) and
// checksums (IPv4 header; TCP; UDP unless it was 0 over IPv4) are updated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "emulator/engine/packet.h"

namespace gw {

inline constexpr std::uint8_t kIntDefaultDscp = 0x17;
inline constexpr std::size_t kIntShimBytes = 4;
inline constexpr std::size_t kIntMdHeaderBytes = 12;

enum class IntOutcome : std::uint8_t {
  kNoInt,      // the frame carries no INT-MD header: nothing to do
  kStamped,    // at least one hop entry inserted
  kExceeded,   // remaining hop count was 0: E set, nothing inserted
  kMalformed,  // it claims INT (DSCP) but the shim/header is not a valid INT-MD v2 one
  kNoRoom,     // not enough headroom in the buffer for the entries
};

// Where a frame's INT headers are, found by locate_int().
struct IntLocation {
  std::size_t l3 = 0;  // IP header offset
  bool ipv6 = false;
  std::size_t l4 = 0;  // TCP/UDP header offset
  bool udp = false;
  std::size_t shim = 0;  // INT shim offset
};

// kNoInt, kMalformed, or kStamped with `where` filled (the frame has a valid INT-MD header).
IntOutcome locate_int(std::span<const std::uint8_t> frame, std::uint8_t int_dscp, IntLocation* where);

struct IntPorts {
  std::uint16_t ingress = 0;
  std::uint16_t egress = 0;
};

struct IntStampResult {
  IntOutcome outcome = IntOutcome::kNoInt;
  std::size_t inserted = 0;  // bytes inserted (the frame now starts `inserted` bytes earlier)
};

// Stamps `hops` into the frame at buf[headroom, headroom + len): the headers up to the end of
// the INT-MD header move `inserted` bytes toward the buffer start (into the headroom), the new
// entries go in between. Never touches bytes outside `buf`; on any outcome but kStamped and
// kExceeded the frame is unchanged.
IntStampResult stamp_int(std::span<std::uint8_t> buf, std::size_t headroom, std::size_t len,
                         const IntStack& hops, IntPorts ports, std::uint8_t int_dscp);

// RFC 1071 one's-complement sum of `bytes` added to `sum` (not folded, not inverted).
std::uint32_t ones_sum(std::span<const std::uint8_t> bytes, std::uint32_t sum);

}  // namespace gw
