// Training workloads as plain data the simulator executes (docs/architecture.md "Key shapes"): a DAG
// of work items over K iterations. An item is compute on a rank (or on every rank in
// lockstep), a collective over all the job's ranks, or a point-to-point transfer; it can start
// once every item in `after` has completed. Iteration k+1 starts where iteration k's sinks end
// (the optimizer step is modelled as free). Exposed communication is what the simulator
// measures: T_iter - T_compute_busy (docs/references.md §5).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/time.h"
#include "generators/collectives/collective.h"

namespace gw::wl {

inline constexpr std::uint32_t kAllRanks = std::numeric_limits<std::uint32_t>::max();

enum class WorkKind : std::uint8_t {
  kCompute,     // `rank` (or every rank) busy for `duration`
  kCollective,  // `collective` over ranks 0..ranks-1, or over `group` (its communicator)
  kP2p,         // `bytes` from `src` to `dst` (pipeline activations and gradients)
};

struct WorkItem {
  WorkKind kind = WorkKind::kCompute;
  std::string label;  // "fwd", "bwd[3]", "all_reduce bucket 0", ... (for traces and reports)
  std::uint32_t iteration = 0;
  std::uint32_t rank = kAllRanks;  // compute only
  // Compute: the ranks busy (empty: `rank`, or every rank). Collective: the communicator's
  // ranks, communicator rank i = group[i] (empty: every rank, the world communicator).
  std::vector<std::uint32_t> group;
  // Collective: which communicator `group` is (0: the world's). Each communicator has its own
  // connections, as NCCL opens them per communicator; two items with the same `comm` must have
  // the same `group`.
  std::uint32_t comm = 0;
  Duration duration{0};              // compute only
  coll::CollectiveSpec collective;   // collective only
  std::uint32_t src = 0;             // p2p only
  std::uint32_t dst = 0;             // p2p only
  std::uint64_t bytes = 0;           // p2p only
  std::vector<std::uint32_t> after;  // indices into Workload::items, all smaller than this one's
};

struct Workload {
  std::string name;  // "ddp", "fsdp", "moe", "pipeline"
  std::uint32_t ranks = 0;
  std::uint32_t iterations = 0;
  std::vector<WorkItem> items;  // in a topological order
  // Stragglers and compute jitter: per iteration, per rank, how much longer than nominal the
  // rank's compute takes (1 = nominal). Empty: every rank nominal. A compute item on several
  // ranks lasts its nominal duration times the largest factor among them (they wait for each
  // other: tensor-parallel ranks synchronise every layer).
  std::vector<std::vector<double>> slowdown;
};

// Thrown for parameters no workload can be built from; `reason` is user-facing.
struct WorkloadError {
  std::string reason;
};

// The model being trained. Gradient and parameter bytes = parameters × bytes_per_param;
// activations per token = hidden × bytes_per_activation.
struct ModelSpec {
  std::uint64_t parameters = 0;
  std::uint32_t bytes_per_param = 2;  // bf16
  std::uint32_t layers = 1;
  std::uint64_t hidden = 0;
  std::uint32_t bytes_per_activation = 2;
  std::uint64_t tokens_per_iteration = 0;  // per data-parallel rank (micro-batches × sequence)
};

// Compute per iteration per rank: given directly, or (peak_flops_per_s > 0) from FLOPs.
struct ComputeSpec {
  Duration forward{0};
  Duration backward{0};
  double peak_flops_per_s = 0;  // e.g. 989e12 for an H100 SXM's dense bf16
  double mfu = 0.4;             // model FLOPs utilization in (0, 1]
};

// Training FLOPs per iteration, 6 × parameters × tokens: 2 forward + 4 backward per parameter
// per token (Kaplan et al. 2020 §2.1; Narayanan et al. 2021 §5.1).
double training_flops(double parameters, double tokens);
// flops / (peak × mfu), rounded to the nanosecond. Throws WorkloadError for peak or mfu <= 0.
Duration compute_time(double flops, double peak_flops_per_s, double mfu);

struct PhaseTimes {
  Duration forward{0};
  Duration backward{0};
};
// The forward and backward time of one iteration: `compute`'s durations, or from FLOPs the
// forward third (2PT) and backward two thirds (4PT) of training_flops.
PhaseTimes phase_times(const ModelSpec& model, const ComputeSpec& compute);

// The DDP overlap recurrence (docs/references.md §5): bucket i is ready at ready[i] and its
// all-reduce takes comm[i]; F_i = max(F_{i-1}, ready_i) + comm_i (in order, one at a time),
// exposed = max(0, F_last - backward_end). Times are from the same origin.
struct Overlap {
  std::vector<Duration> finish;  // F_i
  Duration exposed{0};
};
Overlap ddp_overlap(const std::vector<Duration>& ready, const std::vector<Duration>& comm,
                    Duration backward_end);

// Appends items in order; each call returns the new item's index in Workload::items.
class WorkloadBuilder {
 public:
  WorkloadBuilder(std::string name, std::uint32_t ranks);

  // Starts iteration k: until the next call, an item with no `after` waits for every sink (an
  // item nothing depends on) of the previous iteration.
  void begin_iteration();
  std::uint32_t compute(std::string label, Duration d, std::vector<std::uint32_t> after,
                        std::uint32_t rank = kAllRanks);
  std::uint32_t collective(std::string label, coll::CollectiveSpec spec, std::vector<std::uint32_t> after);
  // The same on `group`'s ranks (compute) or on the communicator `comm` of `group`'s ranks.
  std::uint32_t compute_on(std::string label, Duration d, std::vector<std::uint32_t> group,
                           std::vector<std::uint32_t> after);
  std::uint32_t collective_on(std::string label, coll::CollectiveSpec spec, std::vector<std::uint32_t> group,
                              std::uint32_t comm, std::vector<std::uint32_t> after);
  std::uint32_t p2p(std::string label, std::uint32_t src, std::uint32_t dst, std::uint64_t bytes,
                    std::vector<std::uint32_t> after);
  void set_slowdown(std::vector<std::vector<double>> slowdown) { w_.slowdown = std::move(slowdown); }
  Workload take();

 private:
  std::uint32_t add(WorkItem item);

  Workload w_;
  std::uint32_t iteration_start_ = 0;
  std::vector<std::uint32_t> previous_sinks_;
};

}  // namespace gw::wl
