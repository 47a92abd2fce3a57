// Collective operations as schedules of point-to-point steps (docs/architecture.md "Key
// shapes"): for each rank, the sends and receives it performs, in order, with the
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
  std::uint64_t bytes = 0;     // S: the array size per rank as nccl-tests counts it (docs/references.md §5)
  std::uint32_t channels = 1;  // parallel rings/trees, each carrying bytes/channels
  // Ring only: each step's block is cut into pieces of at most this many bytes, each piece
  // forwarded as soon as it has arrived (NCCL's chunked, pipelined ring: a rank sends piece
  // k+1 of a step while piece k is still crossing the link). 0: whole blocks.
  std::uint64_t chunk_bytes = 0;
  std::uint32_t root = 0;  // broadcast / reduce
  // All-to-all with uneven splits (MoE): send_matrix[i][j] bytes from rank i to rank j; empty =
  // even (bytes / p each).
  std::vector<std::vector<std::uint64_t>> send_matrix;
};

// What the receiver does with a step's bytes: add them into its own partial result (reduce)
// or store them (copy). Lets tests (and traces) replay a schedule's data flow.
enum class Combine : std::uint8_t { kCopy, kReduce };

// A byte range [offset, offset + bytes) of a rank's buffer.
struct ByteRange {
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
};

// One point-to-point transfer of a schedule. A step can start once every step in `after`
// (indices into the same schedule's `steps`) has completed; the step completes when its bytes
// have arrived at `dst` (the receiver's reduction, if any, is modelled as free).
// Every step in `after` is either an arrival at `src` (data or a go-ahead it needs) or an
// earlier send of `src` (pairwise all-to-all's send-receive rounds); never a third rank's step.
struct Step {
  std::uint32_t src = 0;
  std::uint32_t dst = 0;
  std::uint64_t bytes = 0;
  std::uint32_t channel = 0;
  std::vector<std::uint32_t> after;
  // The bytes carried are [offset, offset + bytes) of the array (for all-to-all: of src's send
  // buffer, the pieces for ranks 0..p-1 laid end to end), combined at dst as `combine`.
  std::uint64_t offset = 0;
  Combine combine = Combine::kCopy;
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

// Throws CollectiveError for an impossible spec (unsupported op for the algorithm, no ranks,
// zero channels, root out of range, a send_matrix that is not ranks x ranks, ...).
Schedule build_schedule(const CollectiveSpec& spec, const Placement& placement);

// The layout every algorithm shares: the array of `bytes` is cut into `channels` contiguous
// slices (channel c carries slice c) and each slice into `ranks` contiguous blocks, the first
// `size % parts` parts one byte larger. The all-gather input and the reduce-scatter output of
// rank r is block r of every slice.
ByteRange channel_slice(std::uint64_t bytes, std::uint32_t channels, std::uint32_t channel);
ByteRange block_range(std::uint64_t bytes, std::uint32_t channels, std::uint32_t ranks, std::uint32_t channel,
                      std::uint32_t block);

// nccl-tests bus-bandwidth factor (docs/references.md §5): busbw = algbw × factor.
double busbw_factor(Op op, std::uint32_t ranks);

// The α-β model of the algorithm (Thakur, Rabenseifner & Gropp 2005; docs/references.md §5):
// alpha = per-message latency (one-way path delay + per-message overhead), beta = seconds per
// byte at the bottleneck (1 / rate). Returns the predicted completion time.
struct AlphaBeta {
  Duration alpha{0};
  double beta_ns_per_byte = 0;
  // The path's round trip (both directions' base delay), for window bounds (nccl.h); 0: 2·α.
  Duration rtt{0};
};
// Channels change neither term: they split the bytes but share the bottleneck, and run their
// α-bound steps in parallel. Hierarchical needs the regions: use the overload below (this one
// throws CollectiveError for it). Formulas per algorithm: docs/collectives.md.
Duration predicted_time(const CollectiveSpec& spec, std::uint32_t ranks, const AlphaBeta& model);
// Placement-aware: α and β per ordered pair of regions (the one-way path delay between them and
// their bottleneck rate). `pair[a * regions + b]` is the path from region a to region b; the
// diagonal is the path inside a region.
struct LinkModel {
  std::uint32_t regions = 0;
  std::vector<AlphaBeta> pair;
  const AlphaBeta& at(std::uint32_t from, std::uint32_t to) const { return pair[from * regions + to]; }
  static LinkModel uniform(std::uint32_t regions, const AlphaBeta& model);
  // `intra` on the diagonal, `inter` between any two different regions.
  static LinkModel two_level(std::uint32_t regions, const AlphaBeta& intra, const AlphaBeta& inter);
};
// Ranks all in one region, or every pair of the placement's regions with the same α and β: the
// closed form above (hierarchical: its two-level formula). Otherwise the α-β cost of the
// algorithm's own schedule with each step priced by its path (docs/collectives.md "Placement"):
// a step starts once its `after` steps are done and its sender's port, its receiver's port and
// (between regions) the region pair's path are free; it holds them for bytes·β and completes
// α + bytes·β after it starts. The completion time is the last step's.
// `fold_regions`: a ring's hops inside a region are priced as pure delays of α + bytes·β, as
// the simulator's analytic intra-region fabric times them (FoldedRing, step_graph.h), and only
// its hops between regions contend for ports and paths.
Duration predicted_time(const CollectiveSpec& spec, const Placement& placement, const LinkModel& links,
                        bool fold_regions = false);
// The same with `intra` inside regions and `inter` between any two (LinkModel::two_level).
Duration predicted_time(const CollectiveSpec& spec, const Placement& placement, const AlphaBeta& intra,
                        const AlphaBeta& inter);

}  // namespace gw::coll
