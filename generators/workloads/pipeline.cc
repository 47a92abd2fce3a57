// Pipeline-parallel workload (pipeline.h).
#include "generators/workloads/pipeline.h"

#include <algorithm>
#include <string>
#include <vector>

namespace gw::wl {

std::vector<PipelineOp> pipeline_stage_order(PipelineSchedule schedule, std::uint32_t stages, std::uint32_t s,
                                             std::uint32_t m) {
  std::vector<PipelineOp> ops;
  if (schedule == PipelineSchedule::kGpipe) {
    for (std::uint32_t i = 0; i < m; ++i) {
      ops.push_back({true, i});
    }
    for (std::uint32_t i = 0; i < m; ++i) {
      ops.push_back({false, i});
    }
    return ops;
  }
  const std::uint32_t warm = std::min(stages - s - 1, m);
  for (std::uint32_t i = 0; i < warm; ++i) {
    ops.push_back({true, i});
  }
  for (std::uint32_t i = 0; i + warm < m; ++i) {
    ops.push_back({true, warm + i});
    ops.push_back({false, i});
  }
  for (std::uint32_t i = m - warm; i < m; ++i) {
    ops.push_back({false, i});
  }
  return ops;
}

namespace {

constexpr std::uint32_t kNone = ~0u;

}  // namespace

std::uint64_t pipeline_activation_bytes(const ModelSpec& model, std::uint32_t micro_batches,
                                        std::uint32_t m) {
  const std::uint64_t tokens =
      model.tokens_per_iteration / micro_batches + (m < model.tokens_per_iteration % micro_batches ? 1 : 0);
  return tokens * model.hidden * model.bytes_per_activation;
}

Workload pipeline_workload(const PipelineConfig& config, std::uint32_t stages) {
  const std::uint32_t m = config.micro_batches;
  if (stages == 0 || m == 0 || config.iterations == 0) {
    throw WorkloadError{"pipeline: needs stages, micro_batches and iterations > 0"};
  }
  const PhaseTimes t = phase_times(config.model, config.compute);
  const Duration f = t.forward / (stages * m);
  const Duration bw = t.backward / (stages * m);
  WorkloadBuilder b("pipeline", stages);
  for (std::uint32_t k = 0; k < config.iterations; ++k) {
    b.begin_iteration();
    // item indices: F, B (compute) and act, grad (the p2p each one sends), per stage and micro-batch
    std::vector<std::vector<std::uint32_t>> fwd(stages, std::vector<std::uint32_t>(m, kNone));
    auto bwd = fwd;
    auto act = fwd;
    auto grad = fwd;
    std::vector<std::vector<PipelineOp>> order(stages);
    std::vector<std::size_t> next(stages, 0);
    std::vector<std::uint32_t> previous(stages, kNone);
    std::size_t left = 0;
    for (std::uint32_t s = 0; s < stages; ++s) {
      order[s] = pipeline_stage_order(config.schedule, stages, s, m);
      left += order[s].size();
    }
    // Emit, stage by stage, every op whose cross-stage input already exists (topological order).
    while (left > 0) {
      bool progress = false;
      for (std::uint32_t s = 0; s < stages; ++s) {
        while (next[s] < order[s].size()) {
          const PipelineOp op = order[s][next[s]];
          const std::string n = "[" + std::to_string(s) + "][" + std::to_string(op.micro) + "]";
          std::uint32_t input = kNone;
          if (op.forward && s > 0) {
            input = act[s - 1][op.micro];
          } else if (!op.forward) {
            input = s + 1 < stages ? grad[s + 1][op.micro] : fwd[s][op.micro];
          }
          const bool needs_input = op.forward ? s > 0 : true;
          if (needs_input && input == kNone) {
            break;
          }
          std::vector<std::uint32_t> after;
          for (std::uint32_t i : {previous[s], input}) {
            if (i != kNone && std::find(after.begin(), after.end(), i) == after.end()) {
              after.push_back(i);
            }
          }
          const std::uint64_t bytes = pipeline_activation_bytes(config.model, m, op.micro);
          if (op.forward) {
            previous[s] = fwd[s][op.micro] = b.compute("F" + n, f, after, s);
            if (s + 1 < stages) {
              act[s][op.micro] = b.p2p("act" + n, s, s + 1, bytes, {previous[s]});
            }
          } else {
            previous[s] = bwd[s][op.micro] = b.compute("B" + n, bw, after, s);
            if (s > 0) {
              grad[s][op.micro] = b.p2p("grad" + n, s, s - 1, bytes, {previous[s]});
            }
          }
          ++next[s];
          --left;
          progress = true;
        }
      }
      if (!progress) {
        throw WorkloadError{"pipeline: schedule deadlocks"};  // a bug in stage_order
      }
    }
  }
  return b.take();
}

}  // namespace gw::wl
