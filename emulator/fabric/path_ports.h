// How a packet names its path between two regions with several (docs/steering.md "On the
// wire"): by its UDP source port, as RoCE v2 puts a queue pair's entropy there (IBTA RoCEv2
// Annex A17.3.3) and an SD-WAN edge steers flows by their 5-tuple. Path k owns the ports
// [0xC000 + k x 1024, 0xC000 + (k + 1) x 1024); the live emulator's classes match the same
// ranges, one class pipeline per path.
#pragma once

#include <cstdint>

namespace gw::fabric {

inline constexpr std::uint16_t kPathPortBase = 0xC000;
inline constexpr std::uint16_t kPathPortSpan = 1024;
inline constexpr std::uint32_t kMaxPaths = 16;  // the ports 0xC000-0xFFFF

// The source port of queue pair `qp` on path `path`.
constexpr std::uint16_t path_port(std::uint32_t path, std::uint32_t qp) {
  return static_cast<std::uint16_t>(kPathPortBase + (path % kMaxPaths) * kPathPortSpan + qp % kPathPortSpan);
}

// The path a source port names (ports below the range: path 0).
constexpr std::uint32_t path_of_port(std::uint16_t port) {
  return port < kPathPortBase ? 0 : static_cast<std::uint32_t>(port - kPathPortBase) / kPathPortSpan;
}

}  // namespace gw::fabric
