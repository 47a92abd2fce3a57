// Runs a scenario in virtual time: the fabric (emulator/fabric) carries the packets of queue
// pairs (generators/transport) driven by congestion controllers (generators/cc), on one
// discrete-event loop. Deterministic: the same scenario and seed give the same result, byte
// for byte.
#pragma once

#include "harness/run/scenario.h"
#include "harness/run/sim_result.h"

namespace gw {

struct SimOptions {
  bool keep_series = true;
};

SimResult run_sim(const Scenario& scenario, const SimOptions& options = {});

}  // namespace gw
