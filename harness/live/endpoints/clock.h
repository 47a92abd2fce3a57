// The one place a live endpoint reads a clock. CLOCK_MONOTONIC is shared by every network
// namespace of a host (time namespaces aside), so processes in gw-a and gw-b and the
// coordinator in the root namespace agree on it: one-way delays from send timestamps carried
// in packets are exact to the clock's resolution on the namespace bench. Two hosts would need
// their clocks synchronised (PTP, IEEE 1588) for the same to hold.
#pragma once

#include <time.h>

#include <cstdint>

#include "core/time.h"

namespace gw::endpoints {

// CLOCK_MONOTONIC in nanoseconds.
inline std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The run's time: nanoseconds since `epoch_ns` (a CLOCK_MONOTONIC reading every process of
// the run was given).
class RunTime {
 public:
  explicit RunTime(std::int64_t epoch_ns) : epoch_ns_(epoch_ns) {}
  Instant now() const { return at_ns(monotonic_ns() - epoch_ns_); }
  std::int64_t epoch_ns() const { return epoch_ns_; }
  // The CLOCK_MONOTONIC reading of run time `t`.
  std::int64_t monotonic_of(Instant t) const { return epoch_ns_ + ns_of(t); }

 private:
  std::int64_t epoch_ns_;
};

}  // namespace gw::endpoints
