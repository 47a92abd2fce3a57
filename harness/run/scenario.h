// The typed model of a scenario file (`"gradwall": "scenario/v1"`, docs/scenarios.md): the
// topology (regions, WAN links from profiles or netem strings, relays, routes), the workload,
// the transport and its congestion control, and what to record. The loader validates
// everything once; errors name the file, the JSON path and the reason.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/time.h"
#include "emulator/fabric/network.h"
#include "generators/cc/congestion_control.h"
#include "generators/steering/path_controller.h"
#include "generators/transport/transport_config.h"
#include "harness/run/workloads/workload_spec.h"

namespace gw {

struct CostSpec {
  double gpus = 0;  // GPUs the simulated ranks stand for (0: one per rank)
  double usd_per_gpu_hour = 0;
  double gpu_watts = 0;
  double run_hours = 0;
  double usd_per_gbps_month = 0;  // WAN capacity's price (advise weighs it against idle GPUs)
};

struct TransportSpec {
  std::string cc = "cubic";
  cc::CcParams cc_params;
  // `max_pacing_rate`: SO_MAX_PACING_RATE of the kernel TCP baselines of a live run
  // (`--baselines`, docs/guide/live.md); 0: none. The simulated transport does not use it.
  BitRate max_pacing_rate{};
  // Scenario defaults differ from the queue pair's in one place: selective repeat, because a
  // WAN window holds thousands of packets and go-back-N would resend all of them per loss.
  transport::TransportConfig config = [] {
    transport::TransportConfig c;
    c.recovery = transport::Recovery::kSelectiveRepeat;
    return c;
  }();
};

struct Scenario {
  std::string file;
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  fabric::TopologySpec topology;
  WorkloadSpec workload;
  TransportSpec transport;
  // The path policy where a route has several paths (`controller`; absent: static, equal shares).
  steering::Settings controller;
  // `controller.compare`: policies the run also simulates on the same scenario, for a side by
  // side table in the reports (docs/steering.md "Comparing policies").
  std::vector<std::string> compare_policies;
  Duration interval{100'000'000};  // time-series sampling
  // Iterations at the start of a collective or training run left out of the reports'
  // percentiles and GPU idle (connections opening, slow start): `results.warmup_iterations`.
  std::uint32_t warmup_iterations = 1;       // default: one period of the workload (WorkloadSpec::period)
  std::map<std::string, double> thresholds;  // pass/fail limits by name (docs/reports.md)
  CostSpec cost;
  nlohmann::json source;  // the document as read, kept in results
};

// A WAN profile named in a scenario: a path relative to the scenario's folder, or the name of
// a shipped profile ("cross-continent" -> profiles/wan/cross-continent.json); the name itself
// when none exists (loading it then reports the file as missing).
std::string resolve_profile(const std::string& name, const std::string& scenario_file);

Scenario load_scenario(const std::string& file);
Scenario parse_scenario(const nlohmann::json& doc, const std::string& file);

// A JSON document's kind from its "gradwall" key ("profile/v1", "scenario/v1"), or empty.
std::string document_kind(const nlohmann::json& doc);

}  // namespace gw
