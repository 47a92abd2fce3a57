// The sim-only build (CMake GW_SIM_ONLY, docs/install.md) has no DPDK, libibverbs or
// prometheus-cpp: `emu` and the live endpoints are not in it. Their commands stay, so that a
// script or a user typing them learns why they cannot run here instead of "unknown command".
#include <string>

#include "core/errors.h"
#include "harness/cli/commands.h"

namespace gw {

std::string sim_only_message() {
  return "this gradwall is the sim-only build (no DPDK data plane, no RDMA verbs, no Prometheus "
         "endpoint): it simulates (gradwall run, sweep, advise, compare, replay, profile) but cannot "
         "emulate on ports or run live; install the full build for that (docs/install.md)";
}

int cmd_emu(const Args& /*args*/) {
  throw EnvironmentError("emu: " + sim_only_message());
}

int cmd_endpoint(const Args& /*args*/) {
  throw EnvironmentError("endpoint: " + sim_only_message());
}

}  // namespace gw
