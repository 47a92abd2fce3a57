// What the workload readers (one per kind, workload_kind.h) share with the scenario loader:
// facts about the topology, the limits on inputs, and the readers of settings that several
// kinds take (flows, controller parameters, NCCL's settings).
#pragma once

#include <cstdint>
#include <string>

#include "core/json_reader.h"
#include "emulator/fabric/network.h"
#include "generators/cc/congestion_control.h"
#include "generators/collectives/collective.h"
#include "generators/collectives/nccl.h"
#include "harness/run/workloads/workload_spec.h"

namespace gw {

// Inputs whose work would not fit any machine are refused while reading, before anything is
// built: work items of a training run (DDP buckets, FSDP layers, pipeline micro-batches, over
// all iterations), DDP buckets per iteration and MoE's all-to-all matrices. A schedule is built
// to validate the collective's settings only up to kMaxValidatedSteps (the ring, generated from
// formulas, at any size); bigger ones are left to the cost check (harness/cli/run_cost.h),
// which estimates them without building.
inline constexpr std::uint64_t kMaxWorkItems = 2'000'000;
inline constexpr std::uint64_t kMaxBucketsPerIteration = 65'536;
inline constexpr double kMaxValidatedSteps = 1e6;
inline constexpr double kMaxMatrixEntries = 1.25e8;  // 1 GB of MoE all-to-all matrices

std::uint32_t total_hosts(const fabric::TopologySpec& topo);
// The hosts of the region `name` (0 when there is none).
std::int64_t hosts_of(const fabric::TopologySpec& topo, const std::string& name);
// A region `name` with hosts (not a relay).
bool has_region(const fabric::TopologySpec& topo, const std::string& name);
// Every rank's region: ranks are the hosts in region order, as sim and live place them.
coll::Placement placement_of(const fabric::TopologySpec& topo);
// Builds `cs`'s schedule on the topology's ranks (when it is small enough to build now), so a
// setting the algorithm cannot run fails at `key` of `w` while reading, not mid-run.
void check_schedule(const JsonReader& w, const std::string& key, const coll::CollectiveSpec& cs,
                    const fabric::TopologySpec& topo);

// `key`: a congestion controller's parameters, name -> number; empty when absent.
// `cc_params` (numbers by name; `policy`, the learned controller's policy file, is loaded and
// registered and becomes its id: generators/cc/learned.h).
cc::CcParams read_cc_params(const JsonReader& r, const std::string& key);
// The shipped policy (profiles/policies), for `cc: "learned"` with no cc_params.policy.
inline constexpr const char* kDefaultPolicy = "learned-default.json";
void default_learned_policy(const JsonReader& r, const std::string& cc, cc::CcParams& params);
// `nccl`: false (no NCCL buffers: each step one message) or NCCL's settings, each with the
// environment variable it stands for (docs/scenarios.md "nccl").
coll::NcclConfig read_nccl(const JsonReader& w);
// One entry of workload.flows or of background: endpoints, count, controller, start, size.
// Leaves `f` open (the caller may read more keys, then finishes it).
FlowSpec read_flow(const JsonReader& f, const fabric::TopologySpec& topo);

}  // namespace gw
