#include "emulator/engine/pipeline.h"

#include <algorithm>
#include <utility>

#include "emulator/engine/corrupt_stage.h"
#include "emulator/engine/delay_stage.h"
#include "emulator/engine/duplicate_stage.h"
#include "emulator/engine/incast_stage.h"
#include "emulator/engine/loss_stage.h"
#include "emulator/engine/slot_stage.h"

namespace gw {
namespace {

// Stage order (see pipeline.h): what a packet meets first comes first.
enum Index : std::size_t {
  kLossIdx,
  kDuplicateIdx,
  kCorruptIdx,
  kQueueIdx,
  kDelayIdx,
  kIncastIdx,
  kSlotIdx,
  kStages
};

}  // namespace

std::uint64_t PipelineCounters::dropped_total() const {
  std::uint64_t n = 0;
  for (const auto d : dropped) {
    n += d;
  }
  return n;
}

void Pipeline::Output::emit(Packet&& p) {
  pl_->forward(std::move(p), from_, *pl_->sink_);
}

void Pipeline::Output::drop(Packet&& p, DropCause cause) {
  if (p.synthetic) {
    ++pl_->counters_.synthetic_dropped;
    return;
  }
  ++pl_->counters_.dropped[static_cast<std::size_t>(cause)];
  --pl_->held_real_;
  pl_->sink_->dropped(std::move(p), cause);
}

void Pipeline::Output::marked(const Packet& /*p*/) {}

void Pipeline::Output::injected(const Packet& /*p*/) {
  ++pl_->counters_.synthetic_in;
}

void Pipeline::Output::duplicated(Packet& copy) {
  ++pl_->counters_.duplicated;
  ++pl_->held_real_;
  pl_->sink_->duplicated(copy);
}

Pipeline::Pipeline(const DirectionSpec& spec, std::uint64_t seed, const std::string& stream_prefix,
                   const std::string& flow_prefix, const FlowStreamSettings& flows)
    : limit_packets_(spec.limit_packets.value_or(UINT64_MAX)) {
  const std::string pre = stream_prefix + "/";
  const std::string fpre = (flow_prefix.empty() ? stream_prefix : flow_prefix) + "/flow/";
  auto loss = std::make_unique<LossStage>(spec.loss.value_or(LossSettings{}), seed, pre + "loss",
                                          fpre + "loss", flows);
  auto dup = std::make_unique<DuplicateStage>(spec.duplicate.value_or(ChanceSettings{}), seed,
                                              pre + "duplicate", fpre + "duplicate", flows);
  auto cor = std::make_unique<CorruptStage>(spec.corrupt.value_or(ChanceSettings{}), seed, pre + "corrupt",
                                            fpre + "corrupt", flows);
  auto queue = std::make_unique<QueueStage>(spec.rate.value_or(RateSettings{}),
                                            spec.queue.value_or(QueueSettings{}), seed, pre + "queue");
  auto delay = std::make_unique<DelayStage>(spec.delay.value_or(DelaySettings{}), seed, pre + "delay",
                                            fpre + "delay", flows);
  auto incast = std::make_unique<IncastStage>(spec.incast.value_or(IncastSettings{}), seed, pre + "incast");
  auto slot = std::make_unique<SlotStage>(spec.slot.value_or(SlotSettings{}), seed, pre + "slot");
  loss_ = loss.get();
  duplicate_ = dup.get();
  corrupt_ = cor.get();
  queue_ = queue.get();
  delay_ = delay.get();
  incast_ = incast.get();
  slot_ = slot.get();
  stages_.push_back(std::move(loss));
  stages_.push_back(std::move(dup));
  stages_.push_back(std::move(cor));
  stages_.push_back(std::move(queue));
  stages_.push_back(std::move(delay));
  stages_.push_back(std::move(incast));
  stages_.push_back(std::move(slot));
  for (std::size_t i = 0; i < kStages; ++i) {
    outs_.emplace_back(*this, i);
  }
  set_active(spec);
}

void Pipeline::share_bottleneck(SharedWire* wire, bool injects) {
  queue_->share(wire, injects);
  set_paths();  // an engine that injects no bursts may schedule at admission
}

void Pipeline::retire_from_sharing() {
  if (queue_->shared() != nullptr) {
    queue_->share(queue_->shared(), false);
    set_paths();
  }
  shared_held_ = nullptr;
  others_held_ = 0;
}

void Pipeline::share_order(SharedOrder* order) {
  delay_->share_order(order);
}

Pipeline::~Pipeline() = default;

std::uint64_t Pipeline::flow_entries() const {
  return std::max({loss_->flows(), duplicate_->flows(), corrupt_->flows(), delay_->flows()});
}

std::uint64_t Pipeline::flow_table_misses() const {
  return loss_->flow_table_misses() + duplicate_->flow_table_misses() + corrupt_->flow_table_misses() +
         delay_->flow_table_misses();
}

void Pipeline::set_active(const DirectionSpec& spec) {
  const std::vector<bool> was = active_;
  active_.assign(kStages, false);
  active_[kLossIdx] = spec.loss.has_value();
  active_[kDuplicateIdx] = spec.duplicate.has_value();
  active_[kCorruptIdx] = spec.corrupt.has_value();
  active_[kQueueIdx] = spec.rate.has_value() || spec.queue.has_value();
  active_[kDelayIdx] = spec.delay.has_value();
  active_[kIncastIdx] = spec.incast.has_value();
  active_[kSlotIdx] = spec.slot.has_value();
  // Where each stage's output goes: the next active stage (kStages = out of the pipeline).
  next_active_.assign(kStages + 2, kStages);
  std::size_t next = kStages;
  for (std::size_t i = kStages; i-- > 0;) {
    next_active_[i + 1] = next;
    if (active_[i]) {
      next = i;
    }
  }
  next_active_[0] = next;
  // The stages the event loop watches: the active ones, and any switched off by a phase that
  // may still hold packets (they stay watched; a phase change is rare).
  for (std::size_t i = 0; i < kStages; ++i) {
    const bool watched = std::find(live_.begin(), live_.end(), i) != live_.end();
    if (!watched && stages_[i]->timed() && (active_[i] || (!was.empty() && was[i]))) {
      live_.push_back(i);
    }
  }
  std::sort(live_.begin(), live_.end());
  set_paths();
  wake_.assign(kStages, kNever);
  dirty_ = ~0U;  // settings changed: ask every stage again
}

void Pipeline::set_paths() {
  schedule_ = active_[kQueueIdx] && queue_->schedulable() && next_active_[kQueueIdx + 1] == kDelayIdx;
  loss_active_ = active_[kLossIdx];
  direct_ = schedule_ && !active_[kDuplicateIdx] && !active_[kCorruptIdx] &&
            next_active_[kDelayIdx + 1] == kStages && live_.size() == 2;  // live_: queue, delay
}

void Pipeline::reconfigure(const DirectionSpec& spec) {
  limit_packets_ = spec.limit_packets.value_or(UINT64_MAX);
  loss_->set_settings(spec.loss.value_or(LossSettings{}));
  duplicate_->set_settings(spec.duplicate.value_or(ChanceSettings{}));
  corrupt_->set_settings(spec.corrupt.value_or(ChanceSettings{}));
  queue_->set_settings(spec.rate.value_or(RateSettings{}), spec.queue.value_or(QueueSettings{}));
  delay_->set_settings(spec.delay.value_or(DelaySettings{}));
  incast_->set_settings(spec.incast.value_or(IncastSettings{}));
  slot_->set_settings(spec.slot.value_or(SlotSettings{}));
  set_active(spec);
}

void Pipeline::forward(Packet&& p, std::size_t from, PacketSink& sink) {
  // Inactive stages are skipped; one switched off by a phase keeps releasing what it holds.
  const std::size_t j = next_active_[from + 1];
  if (j == kQueueIdx && schedule_) {
    push_to_queue(std::move(p), p.time);
    return;
  }
  if (j < kStages) {
    const Instant t = p.time;
    dirty_ |= 1U << j;
    stages_[j]->push(std::move(p), t, outs_[j]);
    return;
  }
  deliver(std::move(p), sink);
}

void Pipeline::deliver(Packet&& p, PacketSink& sink) {
  if (p.synthetic) {
    return;
  }
  --held_real_;
  ++counters_.delivered;
  counters_.bytes_delivered += p.size_bytes;
  counters_.marked_ce += p.ce_marked ? 1 : 0;
  if (p.corrupt_bit != kNoCorruption) [[unlikely]] {
    ++counters_.corrupted;
  }
  if (!p.duplicate) {
    // Ids count from 0, so the first delivery is never below max_delivered_id_'s initial 0.
    if (p.id < max_delivered_id_) {
      ++counters_.reordered;
    } else {
      max_delivered_id_ = p.id;
    }
  }
  sink.deliver(std::move(p));
}

void Pipeline::push_to_queue(Packet&& p, Instant now) {
  after_queue(queue_->push_scheduled(p, now, horizon_, outs_[kQueueIdx]), std::move(p), now);
}

[[gnu::always_inline]] inline void Pipeline::after_queue(QueueStage::Admission a, Packet&& p, Instant now) {
  switch (a) {
    case QueueStage::Admission::kScheduled:
      // Straight on to the delay stage, which takes it as arriving at its departure.
      dirty_ |= 1U << kDelayIdx;
      if (p.time > now) [[likely]] {
        delay_->push_ahead(std::move(p), now);
      } else {
        delay_->push(std::move(p), now, outs_[kDelayIdx]);
      }
      return;
    case QueueStage::Admission::kHeld:
      dirty_ |= 1U << kQueueIdx;
      return;
    case QueueStage::Admission::kDropped:
      return;
  }
}

void Pipeline::refresh() const {
  if (dirty_ == 0) {
    return;
  }
  // The earliest wakeup; on a tie the most downstream stage goes first, so what is already
  // further along leaves before what follows it at the same instant.
  Instant t = kNever;
  std::size_t which = 0;
  for (const std::size_t i : live_) {
    if ((dirty_ >> i) & 1U) {
      // The delay stage directly: the one asked after nearly every packet.
      wake_[i] = i == kDelayIdx ? delay_->DelayStage::next_wakeup() : stages_[i]->next_wakeup();
    }
    if (wake_[i] <= t) {
      t = wake_[i];
      which = i;
    }
  }
  next_ = t;
  which_ = which;
  dirty_ = 0;
}

Instant Pipeline::next_wakeup() const {
  refresh();
  // Scheduled departures are no events inside (settle() catches up), but owners see the
  // queue change then, as when they were.
  return std::min(next_, queue_->scheduled_wakeup());
}

void Pipeline::run_until(Instant now, PacketSink& sink) {
  sink_ = &sink;
  for (;;) {
    refresh();
    const Instant t = next_;
    if (t == kNever || t > now) {
      queue_->settle(now);  // the backlog as of `now`, for queue_bytes() and the next arrival
      return;
    }
    dirty_ |= 1U << which_;
    stages_[which_]->pull(t, outs_[which_]);
  }
}

bool Pipeline::enter(Packet& p, Instant now, PacketSink& sink) {
  p.id = next_id_++;
  p.arrival = now;
  p.time = now;
  ++counters_.packets_in;
  counters_.bytes_in += p.size_bytes;
  ++held_real_;
  if (held_real_ + others_held_ > limit_packets_) [[unlikely]] {
    ++counters_.dropped[static_cast<std::size_t>(DropCause::kLimit)];
    --held_real_;
    sink.dropped(std::move(p), DropCause::kLimit);
    return false;
  }
  return true;
}

bool Pipeline::passes_through() const {
  return next_active_[0] == kStages && held_real_ == 0 && limit_packets_ == UINT64_MAX;
}

void Pipeline::passed(std::uint64_t packets, std::uint64_t bytes) {
  if (packets == 0) {
    return;
  }
  next_id_ += packets;
  max_delivered_id_ = std::max(max_delivered_id_, next_id_ - 1);
  counters_.packets_in += packets;
  counters_.bytes_in += bytes;
  counters_.delivered += packets;
  counters_.bytes_delivered += bytes;
}

void Pipeline::push_events(Packet&& p, Instant now, PacketSink& sink) {
  run_until(now, sink);
  if (!enter(p, now, sink)) {
    return;
  }
  // Enter as if emitted by a stage before the first.
  const std::size_t j = next_active_[0];
  if (j == kQueueIdx && schedule_) {
    push_to_queue(std::move(p), now);
    return;
  }
  if (j < kStages) {
    dirty_ |= 1U << j;
    stages_[j]->push(std::move(p), now, outs_[j]);
    return;
  }
  forward(std::move(p), kStages, sink);  // no stage at all: straight out
}

// run_until(now) when the delay stage is the only one with events (direct_, and the queue
// holds nothing for events): what it holds up to `now` is released in the order its pull()
// calls would give, and the scheduled backlog is settled as of `now`.
[[gnu::always_inline]] inline void Pipeline::release_direct(Instant now, PacketSink& sink) {
  if (delay_->DelayStage::next_wakeup() <= now) {
    delay_->release_until(now, [this, &sink](Packet& q) { deliver(std::move(q), sink); });
    dirty_ |= 1U << kDelayIdx;
  }
  queue_->settle(now);
}

// What run_until() and push() do when the delay stage is the only one with events: release
// what it holds up to `now` (in the order its pull() calls would), then pass p through loss
// and the scheduling queue to it. Same packets, times and counters as the event loop.
void Pipeline::push_direct(Packet&& p, Instant now, PacketSink& sink) {
  sink_ = &sink;
  release_direct(now, sink);
  if (!enter(p, now, sink)) {
    return;
  }
  if (loss_active_ && !loss_->pass(p, outs_[kLossIdx])) {
    return;
  }
  // push() checked that the queue holds nothing for events; settling and the loss stage do
  // not change that.
  after_queue(queue_->push_settled(p, now, horizon_, false, outs_[kQueueIdx]), std::move(p), now);
}

void Pipeline::advance(Instant now, PacketSink& sink) {
  if (direct_ && !queue_->holds_events()) {
    sink_ = &sink;
    release_direct(now, sink);
  } else {
    run_until(now, sink);
  }
  if (shared_held_ != nullptr && limit_packets_ != UINT64_MAX) [[unlikely]] {
    others_held_ = shared_held_->exchange(lane_, held_real_);
  }
}

NextRelease Pipeline::peek_next() const {
  if (next_active_[kDelayIdx + 1] != kStages) {
    return {};
  }
  return delay_->DelayStage::peek_next();
}

Instant Pipeline::drain(PacketSink& sink, Instant now) {
  Instant last = now;
  while (held_real_ > 0) {
    const Instant t = next_wakeup();
    if (t == kNever) {
      break;
    }
    run_until(t, sink);
    last = t;
  }
  return last;
}

std::uint64_t Pipeline::held_packets() const {
  return held_real_;
}

std::uint64_t Pipeline::queue_bytes() const {
  return queue_->queue_bytes();
}

}  // namespace gw
