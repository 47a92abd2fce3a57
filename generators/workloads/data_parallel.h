// Data-parallel training: DDP (gradient all-reduce in buckets overlapped with backward) and
// FSDP (ZeRO-3: per-layer parameter all-gather and gradient reduce-scatter, prefetching one
// layer ahead). Every rank computes the same thing, so compute items run on all ranks.
#pragma once

#include <cstdint>
#include <vector>

#include "generators/workloads/workload.h"

namespace gw::wl {

struct DdpConfig {
  ModelSpec model;
  ComputeSpec compute;
  std::uint64_t bucket_bytes = 25ull << 20;       // PyTorch DDP bucket_cap_mb = 25
  std::uint64_t first_bucket_bytes = 1ull << 20;  // PyTorch reducer kDefaultFirstBucketBytes; 0 = none
  coll::Algorithm algorithm = coll::Algorithm::kRing;
  std::uint32_t channels = 1;
  std::uint32_t iterations = 1;
};

// Gradient bytes cut into buckets in the order backward produces them (last layer first):
// first_bucket_bytes, then bucket_bytes each, the last one the remainder. Sums to the input.
std::vector<std::uint64_t> ddp_buckets(std::uint64_t gradient_bytes, std::uint64_t bucket_bytes,
                                       std::uint64_t first_bucket_bytes);
// When each bucket is ready, counted from the start of backward, with backward time spread
// over the buckets in proportion to their bytes (the last one ready at `backward`).
std::vector<Duration> ddp_ready_times(const std::vector<std::uint64_t>& buckets, Duration backward);

// Per iteration: "fwd", then "bwd[i]" (bucket i's share of backward) each followed by
// "all_reduce[i]" of bucket i, which waits for bwd[i] and all_reduce[i-1] (one NCCL stream:
// the recurrence of ddp_overlap). The next iteration's forward waits for the last all-reduce.
Workload ddp_workload(const DdpConfig& config, std::uint32_t ranks);

struct FsdpConfig {
  ModelSpec model;  // parameters split evenly over model.layers (one FSDP unit per layer)
  ComputeSpec compute;
  coll::Algorithm algorithm = coll::Algorithm::kRing;
  std::uint32_t channels = 1;
  std::uint32_t iterations = 1;
};

// The bytes of each layer's parameters (and gradients): parameters × bytes_per_param split
// over the layers, the first ones a byte larger.
std::vector<std::uint64_t> fsdp_layer_bytes(const ModelSpec& model);

// Per iteration, layers 0..L-1 forward then L-1..0 backward:
//   "ag_fwd[l]" (all-gather of layer l's parameters, S = layer bytes) -> "fwd[l]";
//   "ag_bwd[l]" (re-gather: parameters are freed after forward) -> "bwd[l]" -> "rs[l]"
//   (reduce-scatter of layer l's gradients, S = layer bytes).
// Prefetch one layer ahead: the gather of the next layer waits only for the previous gather
// and for the compute two layers back (so at most two layers are gathered at a time).
Workload fsdp_workload(const FsdpConfig& config, std::uint32_t ranks);

}  // namespace gw::wl
