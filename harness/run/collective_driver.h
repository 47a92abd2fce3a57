// Runs collective workloads in the simulator: each iteration is a small graph of compute phases
// and collective operations (generators/collectives schedules); every step of a schedule is one
// message on a connection between two ranks' hosts, carried by the transport. The driver owns
// no network: it asks a MessageService to send and hears back when a message has arrived.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/event_loop.h"
#include "core/id_window.h"
#include "generators/collectives/collective.h"
#include "generators/collectives/nccl.h"
#include "generators/collectives/step_graph.h"
#include "harness/run/sim_result.h"
#include "harness/run/time_attribution.h"

namespace gw {

// What a message carries: a collective's data, or the collective library's own signalling
// (NCCL's "slot free" messages). A service keeps the two on different connections and tells
// them apart in its results.
enum class Traffic : std::uint8_t { kData, kControl };

class MessageService {
 public:
  virtual ~MessageService() = default;
  // Sends `bytes` from rank `src` to rank `dst` on channel `channel`'s connection (of the
  // kind `traffic`); returns the message's id (0, 1, 2, ... in the order of the calls), later
  // passed to CollectiveDriver::delivered.
  virtual std::uint64_t send(std::uint32_t src, std::uint32_t dst, std::uint32_t channel, std::uint64_t bytes,
                             Traffic traffic, Instant now) = 0;
  // What the data connections between regions (all of them, with one region) have done up
  // to `now` (their senders' states and counters, summed), for attributing each op's time;
  // nullopt when the service cannot see its senders (a live run: they are in the endpoints).
  virtual std::optional<WanLedger> wan_ledger(Instant now) const {
    (void)now;
    return std::nullopt;
  }
};

// One item of an iteration: a compute phase (all ranks, or rank `rank`, busy for `compute`), a
// collective, or a point-to-point transfer of `bytes` from rank `src` to rank `dst` (pipeline
// activations). An item starts when every item in `after` (indices into the iteration) has
// finished.
struct WorkItem {
  static constexpr std::uint32_t kAllRanks = 0xFFFFFFFF;
  std::string name;
  Duration compute{0};  // > 0: a compute phase
  std::uint32_t rank = kAllRanks;
  // Compute: the ranks busy (empty: `rank`). Collective: its communicator's ranks,
  // communicator rank i = group[i] (empty: every rank).
  std::vector<std::uint32_t> group;
  // Collective: the communicator (0: the world's); each has its own connections, channels
  // comm x kChannelsPerComm + c on the MessageService.
  std::uint32_t comm = 0;
  bool is_collective = false;
  coll::CollectiveSpec collective;
  bool is_p2p = false;
  std::uint32_t src = 0;
  std::uint32_t dst = 0;
  std::uint64_t bytes = 0;
  std::vector<std::uint32_t> after;
};

struct IterationPlan {
  std::vector<WorkItem> items;
  // Per rank: how much longer than nominal its compute takes this iteration (stragglers and
  // jitter); empty: nominal. A compute item lasts its nominal time times the largest factor of
  // its ranks, and each rank counts as busy for its own share of that.
  std::vector<double> slowdown;
};

// Channels per communicator on the MessageService (a collective has at most 64).
inline constexpr std::uint32_t kChannelsPerComm = 64;

struct OpRecord {
  std::string name;
  coll::CollectiveSpec spec;
  std::uint32_t ranks = 0;
  std::uint32_t iteration = 0;
  Instant start{};
  Instant end{};
  bool finished = false;  // `end` is set (a record started at the epoch may end there too)
  // The α-β prediction: the slower of the two bounds below (docs/collectives.md).
  Duration predicted{0};
  Duration predicted_network{0};      // the links alone (with the protocol's wire overhead)
  Duration predicted_window{0};       // NCCL's window per round trip alone; 0 without the NCCL model
  Duration predicted_propagation{0};  // the prediction's latency terms alone (β = 0)
  TimeAttribution attribution;        // where end - start went, once the op is done
};

// A point-to-point transfer's start and arrival.
struct TransferRecord {
  std::string name;
  std::uint32_t src = 0;
  std::uint32_t dst = 0;
  std::uint64_t bytes = 0;
  std::uint32_t iteration = 0;
  Instant start{};
  Instant end{};
  bool finished = false;  // `end` is set (a record started at the epoch may end there too)
};

struct IterationRecord {
  std::uint32_t index = 0;
  Instant start{};
  Instant end{};
  bool finished = false;  // `end` is set (a record started at the epoch may end there too)
  // GPU busy: the all-rank compute phases plus the busiest rank's own compute phases (the
  // phases of one rank run one after another).
  Duration compute{0};
};

class NcclTransport;

class CollectiveDriver final : public Wakeable {
 public:
  // `plans`: one per iteration, run one after another. Throws coll::CollectiveError (from
  // build_schedule) when an op cannot run on these ranks.
  // `links`: the α-β model per pair of regions, for each op's predicted time. `nccl`: NCCL's
  // buffers between each pair of ranks (enabled: steps go out in slots under NCCL's flow
  // control, NcclTransport; disabled: each step is one message).
  CollectiveDriver(EventLoop& loop, MessageService& net, coll::Placement placement,
                   std::vector<IterationPlan> plans, coll::LinkModel links, coll::NcclConfig nccl);
  ~CollectiveDriver() override;

  // Hops of ring ops between two ranks of the same region are timed with the α-β model of
  // the region's fabric (the link model's diagonal) instead of sent; hops between regions still
  // go through the MessageService (coll::FoldedRing). Call before start().
  void set_analytic_fabric(bool on) { analytic_fabric_ = on; }

  void start(Instant now);
  // A message sent through the MessageService has fully arrived (with the NCCL model, a slot
  // or a slot-free message: the step it belongs to completes with its last slot).
  void delivered(std::uint64_t message, Instant now);
  void wake(Instant now) override;  // compute phases ending

  bool done() const { return iteration_ >= plans_.size(); }
  // Done, and nothing of the driver's left on the network (NCCL's last slot-free messages
  // arrive one one-way delay after the last step): a live run waits for this so that every
  // byte written has been read.
  bool settled() const;
  const std::vector<OpRecord>& ops() const { return ops_; }
  const std::vector<IterationRecord>& iterations() const { return iterations_; }
  const std::vector<TransferRecord>& transfers() const { return transfers_; }

 private:
  struct RunningOp {
    std::uint32_t item = 0;
    std::size_t record = 0;
    // The op's steps, walked as they complete (lazy for a ring: O(ranks) memory).
    std::unique_ptr<coll::StepGraph> graph;
    // Or, with the analytic fabric, its hops between regions (graph is then null).
    std::unique_ptr<coll::FoldedRing> folded;
    Instant local_end{};  // the latest a timed chain inside a region ends
    std::unique_ptr<coll::GraphWalk> walk;
    std::vector<std::uint32_t> group;  // communicator rank -> global rank; empty: the same
    std::uint32_t channel_base = 0;
    std::size_t steps = 0;
    std::size_t steps_done = 0;
    std::optional<WanLedger> wan_at_start;
  };
  struct MessageRef {
    std::uint32_t op = 0;  // index into running_, or the item of a point-to-point transfer
    std::uint32_t step = 0;
    bool p2p = false;
    std::size_t transfer = 0;  // index into transfers_
  };

  void begin_iteration(Instant now);
  void start_item(std::uint32_t item, Instant now);
  void start_transfer(std::uint32_t item, const WorkItem& w, Instant now);
  void start_compute(std::uint32_t item, const WorkItem& w, Instant now);
  void start_collective(std::uint32_t item, const WorkItem& w, Instant now);
  void predict(OpRecord& rec, const WorkItem& w, const coll::Placement& placement, const RunningOp& op) const;
  // The placement of `group`'s ranks (communicator rank i in global rank group[i]'s region).
  coll::Placement placement_of(const std::vector<std::uint32_t>& group) const;
  double slowdown(std::uint32_t rank) const;
  void finish_item(std::uint32_t item, Instant now);
  void launch(std::uint32_t op, std::uint32_t step, Instant now);
  void finish_op(RunningOp& op, Instant now);
  coll::Step step_of(const RunningOp& op, std::uint32_t step) const;
  // The α-β time of `hops` hops of `bytes` inside `region`.
  Duration local_hops(std::uint32_t region, std::uint32_t hops, std::uint64_t bytes) const;
  // Folded ops: launch `step` of `op`, or finish the op (step == kFinish), at `at`.
  void later(Instant at, std::uint32_t op, std::uint32_t step, Instant now);
  void folded_delivered(std::uint32_t op, std::uint32_t step, Instant now);
  void run_due(Instant now);
  std::uint64_t send(std::uint32_t src, std::uint32_t dst, std::uint32_t channel, std::uint64_t bytes,
                     bool p2p, Instant now);

  MessageService* net_;
  coll::Placement placement_;
  std::vector<IterationPlan> plans_;
  coll::LinkModel links_;
  coll::NcclConfig nccl_config_;
  std::unique_ptr<NcclTransport> nccl_;  // null: NCCL's buffers not modelled
  Timer timer_;
  bool analytic_fabric_ = false;
  coll::LinkModel local_links_;  // what a hop inside a region costs (the network bound)
  struct Later {
    Instant at;
    std::uint64_t seq;
    std::uint32_t op;
    std::uint32_t step;
    bool operator>(const Later& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  static constexpr std::uint32_t kFinish = 0xFFFFFFFF;
  std::vector<Later> later_;  // a min-heap
  std::uint64_t later_seq_ = 0;
  class LaterTimer final : public Wakeable {
   public:
    explicit LaterTimer(CollectiveDriver& d) : d_(&d) {}
    void wake(Instant now) override { d_->run_due(now); }

   private:
    CollectiveDriver* d_;
  };
  LaterTimer later_target_{*this};
  Timer later_timer_;
  std::size_t iteration_ = 0;
  std::vector<std::uint32_t> item_waiting_;                  // per item of the current iteration
  std::vector<std::vector<std::uint32_t>> item_dependents_;  // per item: the items waiting on it
  std::size_t items_done_ = 0;
  std::vector<std::pair<Instant, std::uint32_t>> computing_;  // (end, item)
  std::vector<RunningOp> running_;
  std::vector<std::uint32_t> ready_;  // scratch: the steps a delivery lets go
  IdWindow<MessageRef> messages_;     // in flight, by message id (the service numbers them 0, 1, ...)
  std::vector<OpRecord> ops_;
  std::vector<IterationRecord> iterations_;
  std::vector<TransferRecord> transfers_;
  Duration all_ranks_busy_{0};
  std::vector<Duration> rank_busy_;  // this iteration, per rank
};

// The driver's ops, point-to-point transfers and iterations into a run's result: the one
// assembly the simulator and a live run share. With `finished_only` (a live run, which a fault
// can cut short) what did not finish is left out of the result, whose reports read finished
// work only, and returned instead (name, iteration, start); otherwise it is kept with an end of
// -1 and the returned list is empty.
nlohmann::json add_driver_results(const CollectiveDriver& driver, bool finished_only, SimResult& r);

}  // namespace gw
