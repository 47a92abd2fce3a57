// A direction's impairment pipeline: a chain of stages in a fixed order
//   loss -> duplicate -> corrupt -> queue (rate, AQM, microbursts, INT) -> delay (propagation,
//   jitter, reorder) -> incast egress ports -> slot
// and the small event loop that moves packets between them in time order, so the result does
// not depend on how often the owner calls in (every packet, every DPDK burst, or only at the
// pipeline's wakeups in virtual time).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/time.h"
#include "emulator/engine/flow_streams.h"
#include "emulator/engine/packet.h"
#include "emulator/engine/queue_stage.h"
#include "emulator/engine/spec.h"
#include "emulator/engine/stage.h"

namespace gw {

class LossStage;
class DuplicateStage;
class CorruptStage;
class DelayStage;
class IncastStage;
class SlotStage;

// Where packets leave the pipeline. The owner forwards (applying p.ce_marked, p.corrupt_bit,
// copying for p.duplicate) or frees its buffer.
class PacketSink {
 public:
  virtual ~PacketSink() = default;
  // p leaves at p.time (>= the `now` of the call that released it is not guaranteed: in live
  // mode the owner may call late; p.time is the intended release instant).
  virtual void deliver(Packet&& p) = 0;
  virtual void dropped(Packet&& p, DropCause cause) = 0;
  // The duplicate stage made `copy` of a packet still inside (same `handle`, same
  // `telemetry`); the copy will be delivered or dropped on its own. Owners that free buffers
  // per delivery count references here (the simulator); owners that copy buffers at delivery
  // (p.duplicate) need nothing for the buffer. The copy must not share its original's
  // telemetry stack: an owner that keeps telemetry gives it one of its own here
  // (IntPool::take_copy); by default the copy carries none.
  virtual void duplicated(Packet& copy) { copy.telemetry = nullptr; }
};

struct PipelineCounters {
  std::uint64_t packets_in = 0;
  std::uint64_t bytes_in = 0;
  std::uint64_t delivered = 0;
  std::uint64_t bytes_delivered = 0;
  std::array<std::uint64_t, static_cast<std::size_t>(DropCause::kCount)> dropped{};
  std::uint64_t duplicated = 0;  // extra copies made (each is also delivered or dropped)
  std::uint64_t corrupted = 0;
  std::uint64_t marked_ce = 0;
  std::uint64_t reordered = 0;     // delivered after a packet that entered later
  std::uint64_t synthetic_in = 0;  // cross traffic made inside (microbursts, incast bursts)
  std::uint64_t synthetic_dropped = 0;

  std::uint64_t dropped_total() const;
};

class Pipeline {
 public:
  // `seed` is the profile seed; each stage derives its own stream from it and `stream_prefix`
  // (e.g. "a_to_b" or "a_to_b/class/roce-data") plus its name. With `flows.per_flow` the
  // loss, duplicate, corrupt and delay stages draw per flow (flow_streams.h) from streams
  // named by `flow_prefix` (the stream prefix without the rx queue; empty: stream_prefix).
  Pipeline(const DirectionSpec& spec, std::uint64_t seed, const std::string& stream_prefix,
           const std::string& flow_prefix = {}, const FlowStreamSettings& flows = {});
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // The bottleneck's link is `wire`, shared with other engines; `injects`: this pipeline makes
  // the link's cross traffic (QueueStage::share).
  void share_bottleneck(SharedWire* wire, bool injects);
  // The order-preserving jitter's floor is `order`, shared with the same engines
  // (DelayStage::share_order).
  void share_order(SharedOrder* order);
  // The packet limit counts the packets of the same engines too (SharedHeld): this one is
  // `lane`'s (< SharedHeld::kLanes). Counts are exchanged at the end of each advance().
  void share_held(SharedHeld* held, unsigned lane) {
    held->add_lane(lane);
    shared_held_ = held;
    lane_ = lane;
  }
  // A class removed by a reload keeps draining on its wire but no longer makes the wire's
  // bursts nor counts toward the limit (a class of that name added back does).
  void retire_from_sharing();

  // Releases everything due up to `now`, then takes p (arriving at `now`).
  void push(Packet&& p, Instant now, PacketSink& sink) {
    if (direct_ && !queue_->holds_events()) {
      push_direct(std::move(p), now, sink);
      return;
    }
    push_events(std::move(p), now, sink);
  }
  // Releases everything due up to and including `now`.
  void advance(Instant now, PacketSink& sink);
  // The next instant at which advance() would do something; kNever when idle.
  Instant next_wakeup() const;
  // The packet the pipeline delivers next and when (without releasing it), for owners that
  // prefetch its buffer: the delay stage's next release while the delay stage is the last
  // active one (what it releases leaves the pipeline), else {} (cannot tell). Exact unless a
  // packet that enters the delay stage before that instant is due earlier (pushes, or an
  // event-driven queue passing packets on): advance(peek_next().at) delivers it first.
  NextRelease peek_next() const;
  // Virtual time only: advance until nothing real is held. Returns the last release instant.
  Instant drain(PacketSink& sink, Instant now);

  // Whether the pipeline does nothing to a packet pushed now: no stage is active, none holds a
  // packet and there is no packet limit, so push() would hand it straight to the sink. An owner
  // may then forward such packets itself and count them with passed() (the data plane does, a
  // burst at a time): the counters and ids are those push() would have left.
  bool passes_through() const;
  void passed(std::uint64_t packets, std::uint64_t bytes);

  // Apply new settings (a phase, or a profile reloaded at run time) without losing packets
  // in flight: stages keep their queues and random streams.
  void reconfigure(const DirectionSpec& spec);
  // The settings stay as they are until `horizon` (the next phase; kNever by default), so the
  // pipeline may work out ahead of time what happens before it: a FIFO bottleneck followed by
  // the delay stage then passes each packet on when it arrives, with its departure computed
  // (queue_stage.h), instead of at an event. A reconfigure() at an instant nobody announced (a
  // run-time reload) applies to what leaves the bottleneck after that instant, except packets
  // already passed on: they keep the departure and delay computed under the old settings.
  void set_horizon(Instant horizon) { horizon_ = horizon; }

  const PipelineCounters& counters() const { return counters_; }
  std::uint64_t held_packets() const;  // real packets inside (excludes synthetic)
  std::uint64_t queue_bytes() const;   // bytes in the bottleneck queue, if any
  const QueueStage* queue() const { return queue_; }
  // Per-flow streams: the most flows any stage keeps an entry for, and the packets (summed
  // over the stages) whose flow found no entry and drew from the stage's own stream.
  std::uint64_t flow_entries() const;
  std::uint64_t flow_table_misses() const;

 private:
  // What stage `from` sees as "the rest of the pipeline", for the call in progress: every
  // call that takes a sink stores it in sink_ first. One per stage, made once, so the
  // per-packet path builds none.
  class Output final : public StageOutput {
   public:
    Output(Pipeline& pl, std::size_t from) : pl_(&pl), from_(from) {}
    void emit(Packet&& p) override;
    void drop(Packet&& p, DropCause cause) override;
    void marked(const Packet& p) override;
    void injected(const Packet& p) override;
    void duplicated(Packet& copy) override;

   private:
    Pipeline* pl_;
    std::size_t from_;
  };
  void run_until(Instant now, PacketSink& sink);
  void forward(Packet&& p, std::size_t from, PacketSink& sink);
  void set_active(const DirectionSpec& spec);
  void set_paths();  // schedule_ and direct_, from the active stages and the queue
  void push_to_queue(Packet&& p, Instant now);
  // The scheduling queue's verdict on p: scheduled ones go on to the delay stage.
  void after_queue(QueueStage::Admission a, Packet&& p, Instant now);
  // Entry bookkeeping for p arriving at `now`; false when the pipeline's packet limit dropped it.
  bool enter(Packet& p, Instant now, PacketSink& sink);
  // p leaves the pipeline: counted and handed to the owner.
  void deliver(Packet&& p, PacketSink& sink);
  void release_direct(Instant now, PacketSink& sink);
  void push_direct(Packet&& p, Instant now, PacketSink& sink);
  void push_events(Packet&& p, Instant now, PacketSink& sink);

  // Every stage kind exists from the start (so a phase can switch one on); only the active
  // ones, and inactive ones that still hold packets, take part.
  std::vector<std::unique_ptr<Stage>> stages_;
  std::vector<bool> active_;
  std::vector<std::size_t> next_active_;  // [i] = first active stage at index >= i (kStages: none)
  std::vector<std::size_t> live_;         // stages the event loop asks for wakeups
  // Each stage's next wakeup, asked again only after the stage was called (push or pull).
  mutable std::vector<Instant> wake_;
  mutable std::uint32_t dirty_ = ~0U;
  mutable Instant next_ = kNever;  // the earliest of wake_ (valid when dirty_ == 0)
  mutable std::size_t which_ = 0;  // its stage; on a tie the most downstream
  void refresh() const;
  std::vector<Output> outs_;    // [i]: stage i's
  PacketSink* sink_ = nullptr;  // the sink of the call in progress
  QueueStage* queue_ = nullptr;
  LossStage* loss_ = nullptr;
  DuplicateStage* duplicate_ = nullptr;
  CorruptStage* corrupt_ = nullptr;
  DelayStage* delay_ = nullptr;
  IncastStage* incast_ = nullptr;
  SlotStage* slot_ = nullptr;
  PipelineCounters counters_;
  std::uint64_t next_id_ = 0;
  std::uint64_t max_delivered_id_ = 0;
  std::uint64_t held_real_ = 0;
  std::uint64_t limit_packets_ = UINT64_MAX;  // netem `limit`; UINT64_MAX: none
  SharedHeld* shared_held_ = nullptr;         // share_held()
  unsigned lane_ = 0;
  std::uint64_t others_held_ = 0;  // the other lanes' held packets, as of the last advance()
  Instant horizon_ = kNever;
  bool schedule_ = false;  // the queue schedules at admission and passes packets to the delay stage
  // The direct path (push_direct): only loss, a scheduling queue and the delay stage take part
  // and the delay stage is the last, so while the queue holds nothing the event-driven way the
  // delay stage is the only one with events and push() needs no event loop.
  bool direct_ = false;
  bool loss_active_ = false;  // active_[kLossIdx], for the direct path
};

}  // namespace gw
