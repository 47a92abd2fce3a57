// Pipeline parallelism: the model's layers split over `stages` ranks (rank s = stage s), the
// batch over micro-batches; activations go forward and their gradients back as point-to-point
// transfers between neighbouring stages (GPipe, Huang et al. 2019; 1F1B / PipeDream-Flush,
// Narayanan et al. 2021 §2.2).
#pragma once

#include <cstdint>
#include <vector>

#include "generators/workloads/workload.h"

namespace gw::wl {

enum class PipelineSchedule : std::uint8_t {
  kGpipe,     // every forward, then every backward (micro-batches in order)
  kOneFOneB,  // stage s: S-s-1 warm-up forwards, then one forward one backward, then the rest
};

// One forward or backward of a micro-batch on a stage.
struct PipelineOp {
  bool forward;
  std::uint32_t micro;
};

// The order stage s of `stages` runs its forwards and backwards of m micro-batches in.
std::vector<PipelineOp> pipeline_stage_order(PipelineSchedule schedule, std::uint32_t stages, std::uint32_t s,
                                             std::uint32_t m);

struct PipelineConfig {
  ModelSpec model;      // tokens_per_iteration per pipeline (the whole batch)
  ComputeSpec compute;  // the whole model for the whole batch; split evenly over stages and micro-batches
  std::uint32_t micro_batches = 4;
  PipelineSchedule schedule = PipelineSchedule::kOneFOneB;
  std::uint32_t iterations = 1;
};

// Bytes of activations (and of their gradients) of micro-batch m crossing a stage boundary:
// its share of tokens_per_iteration × hidden × bytes_per_activation.
std::uint64_t pipeline_activation_bytes(const ModelSpec& model, std::uint32_t micro_batches, std::uint32_t m);

// Per iteration, for stage s and micro-batch m: "F[s][m]" (compute on rank s; waits for the
// stage's previous op and for "act[s-1][m]"), "act[s][m]" (p2p s -> s+1 after F[s][m]),
// "B[s][m]" (waits for the previous op and "grad[s+1][m]", or on the last stage for its
// F[s][m]), "grad[s][m]" (p2p s -> s-1 after B[s][m]). Each stage's ops run in the schedule's
// order; F and B take forward / (S·M) and backward / (S·M).
Workload pipeline_workload(const PipelineConfig& config, std::uint32_t stages);

}  // namespace gw::wl
