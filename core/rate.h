// Bit rates with their unit, and the serialization time of a frame at a rate.
#pragma once

#include <cstdint>

#include "core/time.h"

namespace gw {

__extension__ typedef unsigned __int128 u128;  // GCC/Clang: exact products of rate x time

struct BitRate {
  std::uint64_t bps = 0;  // bits per second; 0 means "unlimited" where a stage allows it

  constexpr bool unlimited() const { return bps == 0; }

  // Time to serialize `bytes` at this rate, rounded up to the next nanosecond so that a link
  // never sends faster than its rate. Exact for any rate up to 2^64 bit/s and frames < 2^31 B.
  constexpr Duration transmit_time(std::uint64_t bytes) const {
    if (bps == 0) {
      return Duration{0};
    }
    if (bytes < (std::uint64_t{1} << 31)) {  // the per-packet case: one 64-bit division
      const std::uint64_t bits_ns = bytes * 8'000'000'000ULL;
      return Duration{static_cast<std::int64_t>((bits_ns + bps - 1) / bps)};
    }
    const u128 num = static_cast<u128>(bytes) * 8U * 1'000'000'000U;
    const u128 q = (num + bps - 1) / bps;
    return Duration{static_cast<std::int64_t>(q)};
  }

  // Bytes this rate carries in `d` (rounded down).
  constexpr std::uint64_t bytes_in(Duration d) const {
    const u128 num = static_cast<u128>(bps) * static_cast<std::uint64_t>(d.count());
    return static_cast<std::uint64_t>(num / 8U / 1'000'000'000U);
  }

  friend constexpr bool operator==(BitRate, BitRate) = default;
};

}  // namespace gw
