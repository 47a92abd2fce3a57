// A frame held in an mbuf, possibly chained (jumbo frames on PMDs that scatter rx): what the
// engine classifies it on, and the engine's changes applied to its bytes across segments.
// No rte header here: callers outside emulator/dpdk (tests) need none.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/time.h"
#include "emulator/dpdk/stats.h"
#include "emulator/engine/packet.h"

struct rte_mbuf;
struct rte_mempool;

namespace gw {

// Bytes at the start of a frame that hold every header the engine classifies on (two VLAN
// tags, IPv6 with extension headers and an SRH of a few segments, TCP or UDP + BTH). A frame
// whose first segment is shorter has them copied out of the chain to be parsed and, when the
// engine changed them, copied back.
inline constexpr std::uint32_t kHeaderBytes = 256;

// The engine's record of the frame in `m`, received at `now` (handle = the mbuf); counts a
// chained frame in s.multi_segment.
Packet packet_of(rte_mbuf* m, Instant now, DirectionStats& s);

// Runs `change` over the frame's first min(pkt_len, kHeaderBytes) bytes as one span: in place
// when the first segment holds them, else on a copy written back across the chain. Returns
// what `change` returned (nothing is written back when it returns false).
bool change_headers(rte_mbuf* m, bool (*change)(std::span<std::uint8_t>));

// flip_bit() (headers.h) over a chain: bit `bit` counted from the frame's first byte.
bool flip_frame_bit(rte_mbuf* m, std::uint32_t bit);

// A frame's bytes copied into a chain of mbufs from `pool`, segment i holding seg_bytes[i]
// bytes (the last takes the rest), or nullptr when the pool is empty. For tests and tools
// that build frames the way a scattering PMD delivers them.
rte_mbuf* chain_from_bytes(rte_mempool* pool, std::span<const std::uint8_t> frame,
                           std::span<const std::uint32_t> seg_bytes);

// All bytes of a (chained) frame.
std::vector<std::uint8_t> bytes_of(const rte_mbuf* m);

// rte_pktmbuf_free for callers without rte headers.
void free_chain(rte_mbuf* m);

}  // namespace gw
