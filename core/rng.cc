#include "core/rng.h"

#include <cmath>
#include <numbers>

namespace gw {
namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t rotl64(std::uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

}  // namespace

std::uint64_t hash_name(std::string_view name) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

Rng::Rng(std::uint64_t seed, std::string_view stream) {
  std::uint64_t x = seed ^ rotl64(hash_name(stream), 17);
  for (auto& word : s_) {
    word = splitmix64(x);
  }
}

Rng::Rng(std::uint64_t seed, std::uint64_t stream_hash, std::uint64_t flow) {
  // The flow goes through one splitmix64 step first, so that keys that differ in a few bits
  // give unrelated starting points; then as a named stream.
  std::uint64_t f = flow;
  std::uint64_t x = seed ^ rotl64(stream_hash ^ splitmix64(f), 17);
  for (auto& word : s_) {
    word = splitmix64(x);
  }
}

std::uint64_t Rng::below(std::uint64_t n) {
  __extension__ typedef unsigned __int128 Wide;
  const Wide m = static_cast<Wide>(next_u64()) * n;
  return static_cast<std::uint64_t>(m >> 64);
}

double Rng::normal() {
  double u1 = uniform();
  while (u1 <= 0.0) {
    u1 = uniform();
  }
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace gw
