// When a phase starts (profiles' and scenario links' `phases`): its `at` (at_s, at_ms, ...),
// required and after the previous phase's. Errors name the phase's JSON path.
#pragma once

#include "core/json_reader.h"
#include "core/time.h"

namespace gw {

inline Duration phase_start(const JsonReader& phase, Duration previous) {
  const auto at = phase.duration("at");
  if (!at) {
    phase.fail("at_s", "is required (when the phase starts: at_s, at_ms, ...)");
  }
  if (*at <= previous) {
    phase.fail("at_s", "phases must be in increasing time order");
  }
  return *at;
}

}  // namespace gw
