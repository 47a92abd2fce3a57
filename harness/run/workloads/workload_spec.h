// What a scenario's `workload` (and its `background`) says, as read (docs/scenarios.md): the
// kind (workload_kind.h), its flows, or its collective or training job.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/time.h"
#include "generators/cc/congestion_control.h"
#include "generators/collectives/collective.h"
#include "generators/collectives/nccl.h"
#include "generators/workloads/workload.h"

namespace gw {

struct FlowSpec {
  std::string from;  // region names
  std::string to;
  std::uint32_t count = 1;
  std::string cc;  // empty: the transport's
  cc::CcParams cc_params;
  Duration start{0};
  std::uint64_t bytes = 0;  // 0: send for the whole run (bulk)
  // Fixed hosts (index within the region); otherwise the flows of the entry take the
  // region's hosts in turn.
  std::optional<std::uint32_t> from_host;
  std::optional<std::uint32_t> to_host;
  // Background traffic (scenario "background", docs/scenarios.md): "storage" (checkpoint /
  // NVMe-oF-like bulk), "tenant" (other tenants' flows) or "microburst"; empty for the
  // workload's own flows.
  std::string traffic_class;
  // microburst: `bytes` sent every `period` from `start` (on/off), each burst one message.
  Duration period{0};
};

struct WorkloadSpec {
  std::string kind = "flows";  // a name in the registry (workload_kind.h)
  // flows: simulated time. Collective workloads: a limit; the run ends when the iterations
  // are done (a run that reaches the limit first reports what it measured and fails).
  Duration duration{0};
  std::vector<FlowSpec> flows;
  // collective: `iterations` times (compute for `compute`, then the collective).
  std::uint32_t iterations = 1;
  // Iterations in one period of the job's pattern (diloco: its H inner steps); the warm-up
  // that statistics leave out is one period unless `results.warmup_iterations` says otherwise.
  std::uint32_t period = 1;
  Duration compute{0};
  coll::CollectiveSpec collective;
  // ddp, fsdp, moe, pipeline: the training job's work items over all iterations (generators/workloads).
  wl::Workload training;
  // Collective workloads: NCCL's buffers and settings (`nccl`, docs/scenarios.md).
  coll::NcclConfig nccl;
  // Background traffic beside the workload on the same network (any kind).
  std::vector<FlowSpec> background;
};

}  // namespace gw
