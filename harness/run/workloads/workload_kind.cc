#include "harness/run/workloads/workload_kind.h"

#include <array>
#include <stdexcept>

#include "harness/run/workloads/kinds.h"

namespace gw {
namespace {

// A fixed-time run of flows needs its duration; a job's duration is a limit, an hour unless set.
constexpr Duration kJobTimeLimit{3'600'000'000'000};

constexpr std::array kRegistry{
    WorkloadKind{"flows", false, "", kinds::read_flows, nullptr},
    WorkloadKind{"collective", true, "collectives", kinds::read_collective, kinds::collective_plans},
    WorkloadKind{"ddp", true, "collectives", kinds::read_ddp, kinds::training_plans},
    WorkloadKind{"diloco", true, "collectives", kinds::read_diloco, kinds::training_plans},
    WorkloadKind{"fsdp", true, "collectives", kinds::read_fsdp, kinds::training_plans},
    WorkloadKind{"moe", true, "collectives", kinds::read_moe, kinds::training_plans},
    WorkloadKind{"pipeline", true, "transfers", kinds::read_pipeline, kinds::training_plans},
    WorkloadKind{"hybrid", true, "collectives", kinds::read_hybrid, kinds::training_plans},
};

}  // namespace

const WorkloadKind* find_workload_kind(std::string_view name) {
  for (const WorkloadKind& k : kRegistry) {
    if (k.name == name) {
      return &k;
    }
  }
  return nullptr;
}

const WorkloadKind& workload_kind(std::string_view name) {
  const WorkloadKind* k = find_workload_kind(name);
  if (k == nullptr) {
    throw std::logic_error("no workload kind \"" + std::string(name) + "\"");
  }
  return *k;
}

std::vector<std::string_view> workload_kind_names() {
  std::vector<std::string_view> names;
  for (const WorkloadKind& k : kRegistry) {
    names.push_back(k.name);
  }
  return names;
}

WorkloadSpec read_workload(const JsonReader& w, const fabric::TopologySpec& topo) {
  WorkloadSpec spec;
  const std::vector<std::string_view> names = workload_kind_names();
  spec.kind = w.choice("kind", names, "");
  if (spec.kind.empty()) {
    std::string list;
    for (const std::string_view n : names) {
      list += (list.empty() ? "" : ", ") + std::string(n);
    }
    w.fail("kind", "missing (one of: " + list + ")");
  }
  const WorkloadKind& kind = workload_kind(spec.kind);
  const auto duration = w.duration("duration", Duration{1'000}, Duration{86'400'000'000'000});
  if (!duration && !kind.iterations) {
    w.fail("duration", "missing: how long to run (e.g. \"60s\")");
  }
  spec.duration = duration.value_or(kJobTimeLimit);
  kind.read(w, topo, spec);
  w.finish();
  return spec;
}

std::vector<IterationPlan> iteration_plans(const WorkloadSpec& w) {
  const WorkloadKind& kind = workload_kind(w.kind);
  return kind.plans != nullptr ? kind.plans(w) : std::vector<IterationPlan>{};
}

}  // namespace gw
