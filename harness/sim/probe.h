// `gradwall profile probe`: synthetic constant-rate traffic through one direction of a profile
// in virtual time, summarised as in ImpairmentSummary.
#pragma once

#include <cstdint>
#include <optional>

#include "core/rate.h"
#include "emulator/engine/engine.h"
#include "emulator/engine/spec.h"
#include "emulator/engine/summary.h"

namespace gw {

struct ProbeOptions {
  std::uint64_t packets = 10000;
  std::uint32_t size_bytes = 1500;  // Ethernet frame
  BitRate rate{100'000'000};        // offered load of all flows together
  std::uint32_t flows = 1;
  Ecn ecn = Ecn::kNotEct;
  std::optional<std::uint64_t> seed;  // overrides the profile's
  Direction direction = Direction::kAToB;
};

ImpairmentSummary run_probe(Profile profile, const ProbeOptions& o);

}  // namespace gw
