// How many mbufs `gradwall emu` needs for a profile: what the profile can hold in flight at
// the line rate, plus what the ports and lcore caches hold. Plain arithmetic (no DPDK), so it
// is unit-tested and `--help`-free to reason about:
//   per direction, over the direction, every class and every phase (the largest):
//     rate x (delay + 4 x jitter + slot max delay + queue sojourn limit) / 1538 B
//       rate = the stage's rate (a trace's highest point), else the link speed;
//       1538 B = a full 1500-byte-MTU frame on the wire (with preamble, IFG): the pool is sized
//       for full-size frames; minimum-size frames at line rate need up to 18x more (--mbufs);
//       jitter x 4 covers a normal distribution to 99.997 %, and every uniform one;
//     + the queue's limit (limit_packets, or limit_bytes / 1538, or netem `limit`)
//     x (1 + duplicate p)
//   + fixed: 2 ports x (rx + tx descriptors) + one burst per lane + the per-lcore caches.
// The result never goes below kMinMbufs (the first slice's default, ~75 MiB).
#pragma once

#include <cstdint>
#include <string>

#include "core/rate.h"
#include "emulator/engine/spec.h"

namespace gw {

inline constexpr std::uint32_t kMinMbufs = 32767;
inline constexpr std::uint64_t kFullFrameWireBytes = 1538;

struct PoolSizing {
  std::uint64_t in_flight_a_to_b = 0;  // frames the direction may hold (profile share)
  std::uint64_t in_flight_b_to_a = 0;
  std::uint64_t fixed = 0;  // rings, bursts, caches
  std::uint32_t mbufs = 0;  // max(kMinMbufs, sum), capped at 2^32 - 1
};

// `link`: the ports' speed, for directions without a rate (0 = 10 Gbit/s assumed).
// `fixed`: frames the ports and lcore caches hold regardless of the profile.
PoolSizing size_mbuf_pool(const Profile& profile, BitRate link, std::uint64_t fixed);

// MiB of EAL memory `mbufs` objects of `object_bytes` need, with 16 MiB for the mempool's
// headers and the PMDs' own allocations, rounded up.
std::uint64_t pool_mib(std::uint64_t mbufs, std::uint64_t object_bytes);

}  // namespace gw
