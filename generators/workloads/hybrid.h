// Hybrid (3D / 4D) parallelism: tensor parallel (TP) x pipeline parallel (PP) x data parallel
// (DP), with expert parallel (EP) carved out of DP for mixture-of-experts layers (Megatron-LM:
// Shoeybi et al. 2019, Narayanan et al. 2021; Megatron-Core's expert parallelism). Each group
// of ranks that talks together does so on its own communicator: the TP group of a replica's
// stage all-reduces activations twice per layer each way, neighbouring stages pass activations
// and their gradients point to point, the EP group all-to-alls tokens to its experts, and the
// DP group of a stage's shard all-reduces its gradients once the pipeline has drained.
// Compute jitter and stragglers scale each rank's compute per iteration.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "generators/workloads/pipeline.h"
#include "generators/workloads/workload.h"

namespace gw::wl {

enum class ParallelDim : std::uint8_t { kTp, kPp, kDp };

// Compute jitter and stragglers. Every iteration each rank draws a factor from a log-normal of
// mean 1 and coefficient of variation `jitter`; `slow_fraction` of the ranks (the same ranks
// every iteration, chosen from `seed`) also take `slow_factor` times as long.
struct StragglerSpec {
  double jitter = 0;
  double slow_fraction = 0;
  double slow_factor = 1;
  std::uint64_t seed = 1;
};

struct HybridConfig {
  // tokens_per_iteration: one data-parallel replica's batch (all its micro-batches);
  // activations per token = hidden x bytes_per_activation.
  ModelSpec model;
  // One replica's batch on one GPU; split evenly over the tp x pp GPUs, the micro-batches and
  // the layers (each layer's half in attention, half in the MLP or, with experts, expert_share
  // in the experts).
  ComputeSpec compute;
  std::uint32_t tp = 1;
  std::uint32_t pp = 1;
  std::uint32_t dp = 1;
  std::uint32_t ep = 1;  // divides dp: consecutive data-parallel replicas form an EP group
  // Rank layout, innermost first: the default puts a TP group on consecutive ranks (one host
  // or region), then the stages of a pipeline, and data-parallel replicas outermost (across
  // regions, since ranks are the hosts in region order).
  std::array<ParallelDim, 3> order{ParallelDim::kTp, ParallelDim::kPp, ParallelDim::kDp};
  std::uint32_t micro_batches = 1;
  PipelineSchedule schedule = PipelineSchedule::kOneFOneB;
  coll::Algorithm algorithm = coll::Algorithm::kRing;  // TP and DP all-reduces
  std::uint32_t channels = 1;
  std::uint64_t bucket_bytes = 25ull << 20;  // DP gradient buckets
  // Experts (ep > 1): as MoeConfig.
  std::uint32_t top_k = 1;
  double skew = 0;
  double expert_share = 0.5;
  std::uint64_t routing_seed = 1;
  StragglerSpec stragglers;
  std::uint32_t iterations = 1;
};

// The global rank of (replica d, stage s, tensor rank t) under config.order.
std::uint32_t hybrid_rank(const HybridConfig& config, std::uint32_t d, std::uint32_t s, std::uint32_t t);

// Per iteration, per rank: the compute factor (StragglerSpec), deterministic in the seed.
std::vector<std::vector<double>> straggler_slowdown(const StragglerSpec& spec, std::uint32_t ranks,
                                                    std::uint32_t iterations);

// The job on tp x pp x dp ranks (throws WorkloadError otherwise). Per iteration, per EP block
// (ep consecutive replicas, which move in lockstep through their all-to-alls) and stage, the
// micro-batches run in the pipeline schedule's order. A micro-batch's forward on a stage is,
// per layer: "attn" compute, a TP all-reduce per replica ("tp_ar"), the MLP ("mlp" compute, or
// "dispatch" all-to-all per tensor rank, "experts" compute, "combine" all-to-all), a second TP
// all-reduce; the backward mirrors it with twice the compute. With tp = ep = 1 a micro-batch's
// stage is one compute item. Stages pass "act" / "grad" point to point, one transfer per tensor
// rank carrying 1/tp of the activations (Megatron's scatter-gather). Once a stage's backwards
// are done in every replica, each tensor rank's DP group all-reduces its shard of the stage's
// gradients in buckets ("dp_ar"); with experts, the expert weights' share goes over the
// expert-data-parallel group (replicas d, d + ep, ...) instead ("edp_ar").
Workload hybrid_workload(const HybridConfig& config, std::uint32_t ranks);

}  // namespace gw::wl
