// Each kind's reader and plans, one file per family: flows.cc, collective.cc, training.cc.
// Only the registry (workload_kind.cc) calls them.
#pragma once

#include <vector>

#include "core/json_reader.h"
#include "emulator/fabric/network.h"
#include "harness/run/collective_driver.h"
#include "harness/run/workloads/workload_spec.h"

namespace gw::kinds {

void read_flows(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec);

void read_collective(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec);
std::vector<IterationPlan> collective_plans(const WorkloadSpec& spec);

void read_ddp(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec);
void read_diloco(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec);
void read_fsdp(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec);
void read_moe(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec);
void read_pipeline(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec);
void read_hybrid(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec);
// A training job's items (spec.training), split into iterations.
std::vector<IterationPlan> training_plans(const WorkloadSpec& spec);

}  // namespace gw::kinds
