// The analytic model advise prunes with (docs/guide/advise.md): each iteration of a scenario's
// workload timed with no network but the α-β model of its paths (docs/collectives.md), NCCL's
// window bound included when the scenario models NCCL. It knows nothing of congestion control,
// queues or loss: it says which settings can be good, the simulator says which are.
#pragma once

#include "core/time.h"
#include "harness/run/scenario.h"

namespace gw::advise {

struct Prediction {
  Duration iteration{0};  // mean over the iterations after the warm-up
  Duration compute{0};    // the GPUs' busy time per iteration
  Duration idle() const { return iteration > compute ? iteration - compute : Duration{0}; }
};

// Throws InputError for a workload the model cannot time (flows).
Prediction predict(const Scenario& s);

// Each ordered pair of regions with hosts: its base round trip and bottleneck rate (the
// topology hints a scheduler gets).
struct RegionPath {
  std::string from;
  std::string to;
  Duration rtt{0};
  double bps = 0;  // 0: unlimited
};
std::vector<RegionPath> region_paths(const Scenario& s);

}  // namespace gw::advise
