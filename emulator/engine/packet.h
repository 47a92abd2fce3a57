// What the impairment engine knows about a packet. The engine never touches packet bytes: the
// owner (DPDK data plane, pcap replay, simulator) parses headers into this record on entry and
// applies the recorded modifications (CE mark, flipped bit, duplicate copy) to its own buffer
// on exit. That keeps the engine free of I/O and of any buffer type.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/time.h"

namespace gw {

// ECN codepoints (RFC 3168 §5): the two low bits of the IPv4 TOS / IPv6 traffic class.
enum class Ecn : std::uint8_t { kNotEct = 0, kEct1 = 1, kEct0 = 2, kCe = 3 };

constexpr bool ecn_capable(Ecn e) {
  return e != Ecn::kNotEct;
}

// An IPv4 (mapped as ::ffff:a.b.c.d) or IPv6 address, network byte order.
struct IpAddress {
  std::array<std::uint8_t, 16> bytes{};
  friend constexpr bool operator==(const IpAddress&, const IpAddress&) = default;
};

// One hop of in-band network telemetry as the queue stage stamps it (P4.org INT v2.1 per-hop
// metadata, docs/references.md §4, in a compact 32-byte form close to HPCC's). Units: bytes,
// nanoseconds, parts per million of link rate, Mbit/s. tx_bytes wraps at 2^32 (HPCC's
// txBytes is a wrapping counter too: consumers take differences).
struct IntHop {
  std::uint32_t node_id = 0;
  std::uint32_t queue_bytes = 0;         // queue occupancy when the packet left
  std::uint32_t hop_latency_ns = 0;      // time spent in this hop's queue + serialization
  std::uint32_t tx_utilization_ppm = 0;  // egress rate over link rate, smoothed
  std::uint32_t link_rate_mbps = 0;
  std::uint32_t tx_bytes = 0;      // bytes sent by the hop so far, mod 2^32
  std::uint64_t egress_ts_ns = 0;  // when the packet left the hop (run time)
};

// Three hops cover a path through the emulator's own queues (NIC, bottleneck, egress port).
// A packet does not carry the stack itself: it points to one its owner keeps (Packet::telemetry),
// so the 104 bytes are neither cleared for every packet nor copied by every stage.
struct IntStack {
  static constexpr std::size_t kMaxHops = 3;
  std::uint8_t hops = 0;
  std::array<IntHop, kMaxHops> hop{};
};

// Header fields the engine classifies on. `valid_l3`/`valid_l4` say what parsing found.
struct PacketHeaders {
  bool valid_l3 = false;
  bool ipv6 = false;
  bool valid_l4 = false;
  bool roce = false;  // UDP destination port 4791 with a BTH
  std::uint8_t protocol = 0;
  std::uint8_t dscp = 0;
  Ecn ecn = Ecn::kNotEct;
  IpAddress src{};
  IpAddress dst{};
  std::uint16_t src_port = 0;
  std::uint16_t dst_port = 0;
  std::uint8_t roce_opcode = 0;
  std::uint32_t roce_dest_qp = 0;
  std::uint32_t roce_psn = 0;
};

inline constexpr std::uint32_t kNoCorruption = std::numeric_limits<std::uint32_t>::max();

struct Packet {
  std::uint64_t id = 0;          // order of entry into the pipeline, per direction
  std::uint64_t handle = 0;      // the owner's buffer reference; the engine never reads it
  std::uint32_t size_bytes = 0;  // frame length as serialized (without preamble/IFG)
  Instant arrival{};             // when it entered the pipeline
  Instant time{};                // when it leaves the stage that holds it (set by that stage)
  PacketHeaders headers{};
  bool ce_marked = false;                     // set CE when delivering (headers.ecn was ECT)
  bool duplicate = false;                     // an extra copy made by the duplicate stage
  bool synthetic = false;                     // cross traffic made by the engine; never reaches the owner
  std::uint32_t corrupt_bit = kNoCorruption;  // bit index (from frame start) to flip
  // Where a queue stage with INT on stamps its hop: a stack the owner keeps until the packet
  // is delivered or dropped (IntPool), shared by nobody else (a duplicate's copy gets its own
  // in PacketSink::duplicated). nullptr: the packet carries no telemetry and nothing is stamped.
  IntStack* telemetry = nullptr;
};
static_assert(std::is_trivially_copyable_v<Packet> && sizeof(Packet) <= 112,
              "every stage copies packets: keep the record small (telemetry lives apart)");

// Why a packet did not come out. Every drop has exactly one cause; counters are per cause.
enum class DropCause : std::uint8_t {
  kLoss,          // loss model (random, state, gemodel)
  kLimit,         // the pipeline's packet limit (netem `limit`)
  kQueuePackets,  // bottleneck queue: packet limit
  kQueueBytes,    // bottleneck queue: byte limit
  kQueueTime,     // bottleneck queue: sojourn-time limit
  kAqm,           // dropped by the AQM (RED, CoDel, PIE, DualPI2) on a non-ECT packet or overload
  kIncastBuffer,  // shared-buffer egress port: over its dynamic threshold or the buffer is full
  kShutdown,      // held when the owner stopped and the drain policy said drop
  kCount
};

const char* drop_cause_name(DropCause c);

}  // namespace gw
