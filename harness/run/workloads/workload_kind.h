// The kinds of workload a scenario runs (`workload.kind`, docs/scenarios.md), as the
// congestion controllers' registry (generators/cc/registry.cc): one entry per kind with its
// name, how its JSON is read and what the collective driver runs of it. Adding a kind adds
// one entry and its reader beside it (kinds.h); sim, live, the cost estimate and the reports
// ask the entry, never the name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/json_reader.h"
#include "emulator/fabric/network.h"
#include "harness/run/collective_driver.h"
#include "harness/run/workloads/workload_spec.h"

namespace gw {

struct WorkloadKind {
  std::string_view name;
  // Runs iterations through the collective driver (collectives, transfers, compute), rather
  // than flows for a fixed time: every kind but "flows".
  bool iterations = false;
  // result.json's list of the timed operations ("collectives", or "transfers" for a
  // pipeline's point-to-point items); empty when there are none.
  std::string_view ops_key;
  // Reads the kind's own keys of `w` (the scenario's `workload`; "kind" and "duration" are
  // read) into `spec`. Errors name the file, the JSON path and the reason (InputError).
  void (*read)(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec) = nullptr;
  // The iterations the collective driver runs; nullptr for a kind without iterations.
  std::vector<IterationPlan> (*plans)(const WorkloadSpec& spec) = nullptr;
};

// The entry of `name`; nullptr when there is none.
const WorkloadKind* find_workload_kind(std::string_view name);
// The entry of a kind the loader accepted (throws std::logic_error for another name).
const WorkloadKind& workload_kind(std::string_view name);
std::vector<std::string_view> workload_kind_names();

// The scenario's `workload`: its kind, duration and the kind's own keys.
WorkloadSpec read_workload(const JsonReader& w, const fabric::TopologySpec& topo);
// What the collective driver runs of `w`: its iterations, dependencies local to each.
std::vector<IterationPlan> iteration_plans(const WorkloadSpec& w);

}  // namespace gw
