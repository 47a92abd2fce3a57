// Time with its unit in the type. Per-packet and per-event code takes `Instant now` as an
// argument and never reads a clock: the DPDK data plane converts TSC ticks once, the
// simulator advances virtual time, and both drive the same code.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>

namespace gw {

// A clock that cannot be read: it only names the time base (nanoseconds since the start of a
// run, emulator or simulation). There is deliberately no now().
struct RunClock {
  using rep = std::int64_t;
  using period = std::nano;
  using duration = std::chrono::duration<rep, period>;
  using time_point = std::chrono::time_point<RunClock>;
  static constexpr bool is_steady = true;
};

using Duration = std::chrono::nanoseconds;
using Instant = RunClock::time_point;

inline constexpr Instant kNever = Instant::max();
inline constexpr Instant kEpoch = Instant{};

constexpr Instant at_ns(std::int64_t ns) {
  return Instant{Duration{ns}};
}
constexpr std::int64_t ns_of(Instant t) {
  return t.time_since_epoch().count();
}
constexpr std::int64_t ns_of(Duration d) {
  return d.count();
}

}  // namespace gw
