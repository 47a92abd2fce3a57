// Packet bytes <-> engine metadata. Pure functions over a frame held by the owner (DPDK mbuf,
// pcap record, simulator buffer): parse_headers() fills the PacketHeaders the engine classifies
// on; apply_ce() and flip_bit() apply the modifications the engine recorded on a Packet.
//
// Frames are Ethernet II, with up to two 802.1Q / 802.1ad tags (0x8100, 0x88a8), carrying
// IPv4 or IPv6 (extension headers walked), then TCP, UDP, and RoCEv2 (UDP 4791, BTH).
// Formats: IEEE 802.1Q; RFC 791; RFC 8200 §4 (extension headers); RFC 8754 (SRv6 SRH);
// RFC 4302 (AH); InfiniBand Annex A17 RoCEv2 (docs/references.md §4).
//
// Every function here is bounds-checked against the span: truncated or malformed input gives
// what could be parsed, with the valid_* flags false for the layers that could not, and never
// reads or writes outside the span.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "core/time.h"
#include "emulator/engine/packet.h"

namespace gw {

inline constexpr std::uint16_t kEtherTypeIpv4 = 0x0800;
inline constexpr std::uint16_t kEtherTypeIpv6 = 0x86dd;
inline constexpr std::uint16_t kEtherTypeVlan = 0x8100;  // 802.1Q C-tag
inline constexpr std::uint16_t kEtherTypeQinQ = 0x88a8;  // 802.1ad S-tag
inline constexpr std::uint16_t kRoceV2Port = 4791;
inline constexpr std::size_t kBthBytes = 12;
inline constexpr std::uint8_t kRoceCnpOpcode = 0x81;  // Congestion Notification Packet

inline constexpr std::uint8_t kProtoTcp = 6;
inline constexpr std::uint8_t kProtoUdp = 17;

// Where the IP header starts in a frame: the offset of its first byte, and its version.
// Found only when the whole fixed header is inside the frame (IPv4: 20 bytes and IHL*4 with
// IHL >= 5; IPv6: 40 bytes), so a modifier may touch any fixed-header field at that offset.
struct L3Location {
  std::size_t offset = 0;
  bool ipv6 = false;
};

// The IP header of an Ethernet II frame (up to two VLAN tags), or nullopt.
std::optional<L3Location> locate_l3(std::span<const std::uint8_t> frame);

// Header fields of an Ethernet frame. Sets
//  - valid_l3 when the IP header (IPv4 incl. options; IPv6 fixed 40 bytes) is complete:
//    addresses (IPv4 as ::ffff:a.b.c.d), dscp, ecn, ipv6;
//  - protocol: the upper-layer protocol (IPv4 protocol field; for IPv6 the Next Header after
//    the last extension header walked: hop-by-hop 0, routing 43, fragment 44, AH 51, dest
//    opts 60; the walk stops at any other value, which is then the protocol, or at a
//    truncated extension header, whose own type is then the protocol);
//  - valid_l4 when a complete TCP (20 B) or UDP (8 B) header was found in a first fragment
//    (IPv4 offset 0; IPv6 fragment header offset 0): src_port, dst_port;
//  - roce when UDP's destination port is 4791 and the 12-byte BTH is present: roce_opcode,
//    roce_dest_qp (24 bits), roce_psn (24 bits).
PacketHeaders parse_headers(std::span<const std::uint8_t> frame);

// A RoCEv2 Congestion Notification Packet (BTH opcode 0x81).
constexpr bool is_roce_cnp(const PacketHeaders& h) {
  return h.roce && h.roce_opcode == kRoceCnpOpcode;
}

// Sets ECN to CE (RFC 3168 §5) in the IPv4 TOS, updating the header checksum incrementally
// (RFC 1624 eqn. 3), or in the IPv6 traffic class. Returns false, and leaves the frame as it
// was, when the frame has no complete IP header or the packet is Not-ECT: a Not-ECT packet is
// never marked. A packet already CE is left as it is and true is returned.
bool apply_ce(std::span<std::uint8_t> frame);

// Flips bit `bit` of the frame, counted from the frame's first byte, most significant bit
// first within a byte (bit 0 = 0x80 of byte 0). Returns false, changing nothing, when `bit`
// lies past the end of the span (e.g. a snapshot-truncated capture record).
//
// netem (sch_netem.c, netem_enqueue) corrupts by XORing 1 << (random % 8) into a random byte
// of the skb's linear data. We follow the engine's uniformly drawn bit index over the whole
// frame instead: the same distribution (one uniform bit) when the frame is all linear, and it
// can also hit the payload that the kernel would hold in page fragments.
bool flip_bit(std::span<std::uint8_t> frame, std::uint32_t bit);

// The IPv4 header checksum (RFC 791 §3.1) to store in bytes 10-11 of `header` (the IHL*4
// header bytes), computed with the checksum field taken as zero. Host byte order.
std::uint16_t ipv4_header_checksum(std::span<const std::uint8_t> header);

// A Packet for a frame that arrived at `arrival`: size_bytes (= `wire_bytes` when non-zero,
// for a capture record cut by its snapshot length, else the span's size), headers, arrival
// and time set; id is left for the pipeline to assign.
Packet packet_from_frame(std::span<const std::uint8_t> frame, std::uint64_t handle, Instant arrival,
                         std::uint32_t wire_bytes = 0);

}  // namespace gw
