// Collective operations as schedules of point-to-point steps (ARCHITECTURE.md "Collective
// schedule"): for each rank, the sends and receives it performs, in order, with the
// dependencies between them. An algorithm turns (op, ranks, bytes, placement) into a
// schedule; the simulator (and, later, live endpoints) carries each step over the transport.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/time.h"

namespace gw::coll {

enum class Op : std::uint8_t {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kAllToAll,
  kBarrier,
};

enum class Algorithm : std::uint8_t {
  kRing,               // NCCL ring: 2(p-1) steps of S/p for all-reduce, per channel
  kHalvingDoubling,    // Rabenseifner: reduce-scatter by recursive halving + all-gather by doubling
  kRecursiveDoubling,  // all-gather / all-reduce of small messages, lg p rounds
  kDoubleBinaryTree,   // NCCL's two complementary binary trees
  kBinomialTree,       // broadcast / reduce
  kPairwise,           // all-to-all in p-1 rounds, one peer per round
  kDirect,             // all-to-all with every send at once (incast)
  kHierarchical,       // inside each region, then across regions, then inside again
};

std::string_view op_name(Op op);               // "all_reduce", "all_gather", ...
std::string_view algorithm_name(Algorithm a);  // "ring", "halving_doubling", ...
// Parse the names above; false for an unknown name.
bool parse_op(std::string_view name, Op& out);
bool parse_algorithm(std::string_view name, Algorithm& out);

// Where ranks live: rank r is in region region[r] (region index as in the scenario).
// Hierarchical algorithms group ranks by region.
struct Placement {
  std::vector<std::uint32_t> region;  // per rank
};

struct CollectiveSpec {
  Op op = Op::kAllReduce;
  Algorithm algorithm = Algorithm::kRing;
  std::uint64_t bytes = 0;     // S: the array size per rank as nccl-tests counts it (REFERENCES.md §5)
  std::uint32_t channels = 1;  // parallel rings/trees, each carrying bytes/channels
  std::uint32_t root = 0;      // broadcast / reduce
  // All-to-all with uneven splits (MoE): send_matrix[i][j] bytes from rank i to rank j; empty =
  // even (bytes / p each).
  std::vector<std::vector<std::uint64_t>> send_matrix;
};

// One point-to-point transfer of a schedule. A step can start once every step in `after`
// (indices into the same schedule's `steps`) has completed; the step completes when its bytes
// have arrived at `dst` (the receiver's reduction, if any, is modelled as free).
struct Step {
  std::uint32_t src = 0;
  std::uint32_t dst = 0;
  std::uint64_t bytes = 0;
  std::uint32_t channel = 0;
  std::vector<std::uint32_t> after;
};

struct Schedule {
  std::uint32_t ranks = 0;
  std::vector<Step> steps;  // in a topological order (every `after` index < own index)
};

// Thrown for a spec the algorithm cannot run (e.g. halving-doubling on 6 ranks when it needs
// a power of two, or a root >= ranks): `reason` is user-facing.
struct CollectiveError {
  std::string reason;
};

Schedule build_schedule(const CollectiveSpec& spec, const Placement& placement);

// nccl-tests bus-bandwidth factor (REFERENCES.md §5): busbw = algbw × factor.
double busbw_factor(Op op, std::uint32_t ranks);

// The α-β model of the algorithm (Thakur, Rabenseifner & Gropp 2005; REFERENCES.md §5):
// alpha = per-message latency (one-way path delay + per-message overhead), beta = seconds per
// byte at the bottleneck (1 / rate). Returns the predicted completion time.
struct AlphaBeta {
  Duration alpha{0};
  double beta_ns_per_byte = 0;
};
Duration predicted_time(const CollectiveSpec& spec, std::uint32_t ranks, const AlphaBeta& model);

}  // namespace gw::coll
