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

// Local SGD / DiLoCo (Douillard et al., "DiLoCo: Distributed Low-Communication Training of
// Language Models", arXiv:2311.08105, 2023): every replica takes `inner_steps` (H) optimizer
// steps on its own, compute only, then the replicas all-reduce their outer gradients (the
// parameter change since the last sync) once. Per step that is 1/H of DDP's gradient bytes;
// `outer_bits` < 8 x bytes_per_param quantizes the outer gradients (Streaming DiLoCo,
// arXiv:2501.18512, sends them in 4 bits) and shrinks them further.
struct DilocoConfig {
  ModelSpec model;
  ComputeSpec compute;
  std::uint32_t inner_steps = 1;  // H
  std::uint32_t outer_bits = 0;   // bits per parameter on the wire; 0 = 8 x bytes_per_param
  std::uint64_t bucket_bytes = 25ull << 20;
  coll::Algorithm algorithm = coll::Algorithm::kRing;
  std::uint32_t channels = 1;
  std::uint32_t iterations = 1;  // inner steps in all
};

// The outer all-reduce's bytes: parameters x outer_bits / 8, rounded up.
std::uint64_t diloco_outer_bytes(const DilocoConfig& config);

// Per iteration k: "fwd", "bwd" (compute only); when k + 1 is a multiple of H, "outer[i]"
// all-reduces of the outer gradients in buckets, chained on one stream after bwd. The next
// iteration waits for them (the outer optimizer step needs the averaged gradient).
Workload diloco_workload(const DilocoConfig& config, std::uint32_t ranks);

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
