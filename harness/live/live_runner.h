// Live mode (`gradwall run SCENARIO --mode live`, docs/guide/live.md): the scenario's
// collective workload on real packets. The coordinator (this process, root namespace) runs the
// same CollectiveDriver as the simulator on a real-time loop; its MessageService tells two
// endpoint processes (`gradwall endpoint`, one per side, in namespaces gw-a and gw-b) what to
// send; the packets cross `gradwall emu`, which applies the scenario's WAN profile between the
// sides. The runner brings the namespace bench up, starts and supervises the processes, and
// tears everything down again, whatever happened.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/time.h"
#include "harness/live/hostpace/host_pacer.h"
#include "harness/run/scenario.h"
#include "harness/run/sim_result.h"

namespace gw {

struct LiveOptions {
  std::string bench = "netns";             // the only bench so far: ci/bench-netns
  std::string work_dir;                    // logs, the emulator's profile and stats (e.g. OUT/live)
  Duration start_timeout{20'000'000'000};  // emulator forwarding, endpoints connected
  // Kernel TCP baseline (docs/guide/live.md "Kernel TCP baselines"): when set, the endpoints
  // carry the messages on kernel TCP sockets with this TCP_CONGESTION (`gradwall
  // endpoint-tcp`) instead of gradwall's transport; empty: the user-space stack.
  std::string tcp_cc;
  std::uint64_t max_pacing_rate_bps = 0;  // SO_MAX_PACING_RATE of the TCP sockets; 0: none
  // Who paces the kernel TCP baselines' sending hosts (`--host-pacer`, host_pacer.h); with
  // edt-bpf, max_pacing_rate_bps is each connection's rate in the EDT program.
  hostpace::HostPacerOptions host_pacer;
  // `--ports IF_A,IF_B` (bench "ports"): the emulator forwards between these interfaces of this
  // host instead of the namespace bench's veths, and the endpoints run in the namespaces
  // `endpoint_netns` (live_ports.h). Empty: the namespace bench.
  std::array<std::string, 2> ports;
  std::array<std::string, 2> endpoint_netns;
  // The user-space stack's endpoints (`gradwall endpoint --io`): "udp" (UDP sockets) or "dpdk"
  // (a DPDK af_packet port on each side's veth; docs/guide/live.md "Endpoints").
  std::string endpoints = "udp";
  // How many times an emulator that dies mid-run is started again (`--emu-restarts`); each
  // death is a fault of the run. 0: the first death ends the run.
  int emu_restarts = 1;
};

struct LiveRun {
  SimResult result;  // mode "live"
  // Each names a process and what happened to it ("endpoint b (pid 123, netns gw-b) was
  // killed by signal 9 (Killed) 1.2 s into the run"); empty when every process behaved.
  std::vector<std::string> faults;
  nlohmann::json live;  // result.json's "live" section: bench, processes, endpoint counters, emu stats
  // Per flow of result.series (a sending queue pair each): side, qp, peer, srtt_ns samples.
  nlohmann::json series_flows = nlohmann::json::array();
};

// Throws InputError for a scenario live mode cannot run (exit 2): not exactly two regions
// joined by one WAN link, a `flows` workload, or packets larger than the bench's 1500-byte MTU.
void check_live_scenario(const Scenario& scenario);

// Runs it. Throws EnvironmentError when the bench cannot be set up (not root, emulator not
// forwarding, endpoints not starting): exit 3. A process failing mid-run is not thrown: it is
// a fault in the result, which keeps what was measured up to then.
LiveRun run_live(const Scenario& scenario, const LiveOptions& options);

// Adds result.json's "live" section.
void add_live_result(nlohmann::json& result_json, const LiveRun& run);
// Adds a `live_processes` check (failed when there are faults, naming them) to a report.
void add_live_checks(nlohmann::json& report, const LiveRun& run);

// `gradwall run SCENARIO --mode both`: the scenario in virtual time (OUT/sim) and live
// (OUT/live), each by a `gradwall run` of its own, then their agreement (OUT/agreement.json):
// live/sim ratios of the CCT p50 and p99 and of the collective goodput (Σ op bytes × 8 /
// Σ CCT). `extra_args` are passed to both runs (not --seed). `seed`: the runs' seed; the
// simulator also runs seeds seed + 1 .. seed + sim_seeds - 1 (OUT/sim-seeds/seed-K) so that the
// agreement can say where the live run falls in the simulator's spread over seeds, and names
// what it measured of the bench (twin_causes). Returns run's exit code: the larger of the two
// runs' codes.
int run_twin(const std::string& scenario_file, const std::string& out,
             const std::vector<std::string>& extra_args, std::uint64_t seed, std::uint32_t sim_seeds);

// The agreement's `causes`: what could make live and sim differ, as measured (the simulator's
// spread over seeds, the host's load during the live run, the emulator's delay error, packets
// the hosts dropped, retransmission timeouts live and not in sim) and a verdict naming the
// likeliest. `sim_seeds`: the other seeds' result.json files (may be empty).
nlohmann::json twin_causes(const nlohmann::json& sim, const nlohmann::json& live,
                           const std::vector<nlohmann::json>& sim_seeds);

// One row of result.json's `tcp_baselines` table from a run's result.json (with its live
// section): CCT p50/p99 over the completed ops (nearest rank), collective goodput (Σ op bytes
// × 8 / Σ CCT), retransmits, and for TCP the controllers TCP_INFO named and the byte balance.
nlohmann::json stack_summary(const std::string& stack, const nlohmann::json& result);

// Throws InputError (exit 2) unless the kernel accepts `name` as TCP_CONGESTION (a probe
// socket): an unknown name or one the kernel does not allow, with what it offers.
void check_tcp_congestion_control(const std::string& option, const std::string& name);

// The agreement of two result.json documents (sim, live), as written to agreement.json.
nlohmann::json twin_agreement(const nlohmann::json& sim, const nlohmann::json& live);

}  // namespace gw
