// Mixture-of-experts with expert parallelism: one expert group per rank; every layer sends
// each token to its top_k experts (dispatch all-to-all), runs the experts, and sends the
// results back (combine all-to-all). Hot experts make the splits uneven.
#pragma once

#include <cstdint>
#include <vector>

#include "generators/workloads/workload.h"

namespace gw::wl {

struct MoeConfig {
  ModelSpec model;            // tokens_per_iteration per rank, hidden and bytes_per_activation size a token
  ComputeSpec compute;        // the whole iteration; split evenly over layers
  double expert_share = 0.5;  // fraction of each layer's compute spent in the experts
  std::uint32_t top_k = 1;
  double skew = 0;  // Zipf exponent of expert popularity: 0 = even, 1 = the hottest twice the second
  std::uint64_t seed = 1;
  coll::Algorithm algorithm = coll::Algorithm::kPairwise;
  std::uint32_t channels = 1;
  std::uint32_t iterations = 1;
};

// Bytes rank i dispatches to rank j for one layer: each rank sends tokens × top_k token copies
// of bytes_per_token, split over the ranks' experts in proportion to a popularity 1/(1+q)^skew
// where q is the expert's place in a random order drawn from (seed, layer) (largest-remainder
// rounding, so every row sums to exactly tokens × top_k × bytes_per_token). The same popularity
// holds for every sender: hot experts are hot for everyone (an incast at their rank).
std::vector<std::vector<std::uint64_t>> moe_dispatch_matrix(std::uint32_t ranks, std::uint64_t tokens,
                                                            std::uint32_t top_k,
                                                            std::uint64_t bytes_per_token, double skew,
                                                            std::uint64_t seed, std::uint32_t layer);

// Per iteration, layers 0..L-1 forward: "dense_fwd[l]" -> "dispatch[l]" (send_matrix M_l) ->
// "expert_fwd[l]" -> "combine[l]" (M_l transposed); then L-1..0 backward: "combine_bwd[l]"
// (M_l) -> "expert_bwd[l]" -> "dispatch_bwd[l]" (M_l transposed) -> "dense_bwd[l]". Strictly
// sequential (no overlap of all-to-all with compute). Each layer gets forward/L and backward/L
// of compute, expert_share of it in the experts. Dense-parameter gradient sync is not modelled
// (combine with a DDP workload for it).
Workload moe_workload(const MoeConfig& config, std::uint32_t ranks);

}  // namespace gw::wl
