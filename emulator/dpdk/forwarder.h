// The inline emulator's data plane: one lcore forwarding both directions between two started
// ports through a profile's DirectionEngines, in the shape of DPDK's l2fwd loop:
//   read the TSC once and convert it to the engine's Instant ->
//   rx burst port A -> parse headers -> a_to_b engine; rx burst port B -> b_to_a engine ->
//   advance both engines to now -> tx burst what is due (CE and bit errors applied to the
//   mbuf bytes, duplicates as private mbuf copies; drops freed).
// It never prints: it returns the counters (stats.h).
#pragma once

#include <atomic>
#include <cstdint>

#include "core/time.h"
#include "emulator/dpdk/stats.h"
#include "emulator/engine/spec.h"

struct rte_mempool;

namespace gw {

struct ForwarderOptions {
  std::uint16_t port_a = 0;  // faces side A: its rx feeds a_to_b, its tx sends b_to_a
  std::uint16_t port_b = 1;
  rte_mempool* pool = nullptr;  // for the private copies of duplicated frames
  Duration duration{0};         // stop by itself after this long; 0 = only on `stop`
  // After stop: rx ends, what is held keeps being sent at its release time for up to this
  // long; what is still held then is freed and counted as DropCause::kShutdown.
  Duration drain{std::chrono::milliseconds(500)};
  // When nothing was received and nothing the engines hold is due within this long, sleep this
  // long before polling again (0 = busy poll). A frame arriving meanwhile waits at most this
  // long (plus the kernel's wakeup latency) in the rx ring; releases are not delayed by it.
  // Sleeping while holding matters on a shared machine: a thread that busy-polls through a
  // 20 ms delay uses up its CFS share and is then preempted for milliseconds.
  Duration idle_sleep{std::chrono::microseconds(100)};
};

// Runs on the calling lcore until `stop` becomes true or the duration has passed, then drains
// (above). `stop` is only read: a signal handler may set it.
EmuStats run_forwarder(const Profile& profile, const ForwarderOptions& o, const std::atomic<bool>& stop);

}  // namespace gw
