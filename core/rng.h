// Seeded random streams. Every stage owns one stream derived from the profile seed and the
// stage's name, so adding a stage never changes the draws of another, and the same seed gives
// the same packets. Generator: xoshiro256** (Blackman & Vigna 2018), seeded by SplitMix64.
#pragma once

#include <cstdint>
#include <string_view>

namespace gw {

class Rng {
 public:
  // A stream named `stream` under `seed`; distinct names give independent streams.
  Rng(std::uint64_t seed, std::string_view stream);
  // The stream of flow `flow` (a non-zero key) within the stream whose name hashes to
  // `stream_hash` (hash_name): per-flow streams (emulator/engine/flow_streams.h).
  Rng(std::uint64_t seed, std::uint64_t stream_hash, std::uint64_t flow);
  // Stream "" under seed 0: a placeholder to be assigned over.
  Rng() : Rng(0, std::string_view{}) {}

  // Inline: the engine draws one to three words per packet.
  std::uint64_t next_u64() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  std::uint32_t next_u32() { return static_cast<std::uint32_t>(next_u64() >> 32); }
  // Uniform in [0, 1) with 53 bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n); n > 0. Lemire's multiply-shift (bias < 2^-32 for n < 2^32).
  std::uint64_t below(std::uint64_t n);
  // Standard normal (mean 0, sigma 1), Box-Muller without caching so draws stay one per call.
  double normal();

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

// FNV-1a over a name, used to derive stream ids.
std::uint64_t hash_name(std::string_view name);

}  // namespace gw
