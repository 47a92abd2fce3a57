// Runs a scenario in virtual time: the fabric (emulator/fabric) carries the packets of queue
// pairs (generators/transport) driven by congestion controllers (generators/cc), on one
// discrete-event loop. Deterministic: the same scenario and seed give the same result, byte
// for byte.
#pragma once

#include <functional>

#include "harness/run/scenario.h"
#include "harness/run/sim_result.h"

namespace gw {

struct SimOptions {
  bool keep_series = true;
  // Called now and then while the run goes (every 2^20 events, or every 1 % of a flows run's
  // duration) with the simulated time so far and its limit; the caller decides whether to
  // show it (`gradwall run` does on a terminal, for runs longer than a few seconds).
  std::function<void(Duration simulated, Duration limit)> progress;
};

SimResult run_sim(const Scenario& scenario, const SimOptions& options = {});

}  // namespace gw
