#include "emulator/engine/queue_stage.h"

#include <algorithm>
#include <array>
#include <utility>

#include "emulator/engine/ce_mark.h"

namespace gw {

QueueStage::QueueStage(const RateSettings& rate, const QueueSettings& queue, std::uint64_t seed,
                       std::string stream)
    : rate_(rate),
      aqm_(queue.aqm, seed, stream),
      cross_(queue.microbursts, seed, std::move(stream)),
      telemetry_(queue.telemetry) {
  set_limits(queue);
}

QueueStage::~QueueStage() = default;

void QueueStage::set_settings(const RateSettings& rate, const QueueSettings& queue) {
  aqm_.set_settings(queue.aqm);
  rate_.set_settings(rate);
  // Sources a phase adds start after the link's last departure (on a shared wire, the wire's).
  cross_.set_settings(queue.microbursts,
                      shared_ != nullptr ? std::max(last_departure_, shared_->free_at()) : last_departure_);
  telemetry_.set_settings(queue.telemetry);
  set_limits(queue);
}

void QueueStage::set_limits(const QueueSettings& queue) {
  max_packets_ = queue.limit_packets.value_or(UINT64_MAX);
  max_bytes_ = queue.limit_bytes.value_or(UINT64_MAX);
  max_sojourn_ = queue.limit_time;
  set_schedulable();
}

void QueueStage::set_schedulable() {
  const Aqm& aqm = aqm_.aqm();
  schedulable_ = rate_.fixed() && (cross_.empty() || !cross_on_) && !telemetry_.enabled() && !max_sojourn_ &&
                 aqm.decides_at_enqueue() && aqm.queues() == 1;
}

const QueueStage::Queued* QueueStage::head(int i) const {
  const std::size_t at = wire_q_ == i ? 1 : 0;
  return at < sub_[i].size() ? &sub_[i][at] : nullptr;
}

QueueView QueueStage::view(Instant now) const {
  QueueView v;
  v.rate = rate_.rate_at(now);
  v.bytes = {bytes_[0], bytes_[1]};
  // Scheduled packets that have not started are ahead of any packet held for events.
  if (!sched_.empty()) {
    v.packets[0] = sub_[0].size() - (wire_q_ == 0 ? 1 : 0) + sched_.size();
    v.head_sojourn[0] = now - sched_.front().enqueued;
  } else if (!sub_[0].empty()) {
    const Queued* h = head(0);
    v.packets[0] = sub_[0].size() - (wire_q_ == 0 ? 1 : 0);
    v.head_sojourn[0] = h == nullptr ? Duration{0} : now - h->enqueued;
  }
  if (!sub_[1].empty()) {
    const Queued* h = head(1);
    v.packets[1] = sub_[1].size() - (wire_q_ == 1 ? 1 : 0);
    v.head_sojourn[1] = h == nullptr ? Duration{0} : now - h->enqueued;
  }
  return v;
}

std::string QueueStage::unshareable(const RateSettings& rate, const QueueSettings& queue) {
  if (!rate.mahimahi.empty()) {
    return "rate";  // Mahimahi's delivery opportunities: no transmit time to claim
  }
  if (queue.limit_packets) {
    return "queue.limit_packets";
  }
  if (queue.telemetry.enabled) {
    return "queue.int";
  }
  const AqmKind k = queue.aqm.kind;
  if (k != AqmKind::kDropTail && k != AqmKind::kRed && k != AqmKind::kThreshold && k != AqmKind::kPie) {
    return "queue.aqm";
  }
  return {};
}

QueueStage::Admission QueueStage::push_shared(Packet& p, Instant now, StageOutput& out) {
  const BitRate rate = rate_.rate_at(now);
  const Instant free = shared_->free_at();
  const std::uint64_t backlog = SharedWire::backlog_bytes(free, now, rate);
  shared_backlog_ = backlog;
  if (backlog + p.size_bytes > max_bytes_) {
    drop_at_admission(p, DropCause::kQueueBytes, out);
    return Admission::kDropped;
  }
  QueueView v;
  v.rate = rate;
  v.bytes[0] = backlog;
  // Frames waiting, in frames of this one's size (the AQMs that run here read bytes).
  v.packets[0] = backlog == 0 ? 0 : (backlog + p.size_bytes - 1) / p.size_bytes;
  v.head_sojourn[0] = free > now ? free - now : Duration{0};
  // A timer (PIE's probability update every t_update) runs at the lane's first arrival at or
  // after it is due, on the shared queue delay then: each lane's controller follows the link's
  // delay, as each lane's RED average follows its backlog. It runs late by at most the lane's
  // gap between arrivals; an idle spell runs the updates it missed (PIE's decay) on delay 0.
  while (aqm_.next_timer() <= now) {
    aqm_.aqm().on_timer(v, aqm_.next_timer());
  }
  AqmVerdict verdict = AqmVerdict::kPass;
  if (v.packets[0] == 0) {
    // The wire went idle at `free` (once per idle period, so RED's idle decay counts it once).
    if (free != shared_empty_told_) {
      aqm_.on_queue_empty(std::min(free, now));
      shared_empty_told_ = free;
    }
    if (!aqm_.pass_at_empty(now)) {
      verdict = aqm_.on_enqueue(p, v, now);
    }
  } else {
    verdict = aqm_.on_enqueue(p, v, now);
  }
  if (verdict != AqmVerdict::kPass && !apply_verdict(p, verdict, out)) {
    return Admission::kDropped;
  }
  // The sojourn limit is checked where one engine checks it, when the frame would start to
  // leave; on the shared wire that instant (the wire free, or now) is known at admission.
  if (max_sojourn_ && free > now && free - now > *max_sojourn_) {
    drop_at_admission(p, DropCause::kQueueTime, out);
    return Admission::kDropped;
  }
  const std::uint32_t size = p.size_bytes;
  Duration tx{0};
  const auto [start, departure] = shared_->claim(now, [&](Instant at) {
    tx = rate_.transmit_time(size, at);
    return tx;
  });
  (void)start;
  stats_.max_queue_bytes = std::max(stats_.max_queue_bytes, backlog + size);
  note_departure(size, departure, tx);
  p.time = departure;
  return Admission::kScheduled;
}

void QueueStage::push(Packet&& p, Instant now, StageOutput& out) {
  if (shared_ != nullptr) {
    if (push_shared(p, now, out) == Admission::kScheduled) {
      shared_out_.push_back(std::move(p));
    }
    return;
  }
  settle(now);
  enqueue(std::move(p), now, out);
  serve_held(now, out);
}

QueueStage::Admission QueueStage::hold_for_events(Packet& p, Instant now, StageOutput& out) {
  store(std::move(p), now);
  serve_held(now, out);
  return Admission::kHeld;
}

void QueueStage::serve_held(Instant now, StageOutput& out) {
  if (rate_.opportunities()) {
    if (next_opportunity_ == kNever && packets_total_ > 0) {
      next_opportunity_ = rate_.next_opportunity(now);
    }
  } else if (wire_q_ < 0 && sched_.wire_free() <= now) {
    start_service(now, out);
  }
}

void QueueStage::enqueue(Packet&& p, Instant now, StageOutput& out) {
  if (admit_slow(p, now, out)) {
    store(std::move(p), now);
  }
}

bool QueueStage::admit_slow(Packet& p, Instant now, StageOutput& out) {
  if (packets_total_ >= max_packets_) {
    return drop_at_admission(p, DropCause::kQueuePackets, out);
  }
  if (bytes_total_ + p.size_bytes > max_bytes_) {
    return drop_at_admission(p, DropCause::kQueueBytes, out);
  }
  return apply_verdict(p, aqm_.on_enqueue(p, view(now), now), out);
}

bool QueueStage::drop_at_admission(Packet& p, DropCause cause, StageOutput& out) {
  drop(std::move(p), cause, out);
  return false;
}

void QueueStage::drop(Packet&& p, DropCause cause, StageOutput& out) {
  stats_.cross_dropped += p.synthetic ? 1 : 0;
  out.drop(std::move(p), cause);
}

bool QueueStage::apply_verdict(Packet& p, AqmVerdict v, StageOutput& out) {
  switch (v) {
    case AqmVerdict::kDrop:
      return drop_at_admission(p, DropCause::kAqm, out);
    case AqmVerdict::kMark:
      mark_ce(p, out);
      break;
    case AqmVerdict::kPass:
      break;
  }
  return true;
}

void QueueStage::store(Packet&& p, Instant now) {
  const int q = aqm_.aqm().classify(p);
  bytes_[q] += p.size_bytes;
  bytes_total_ += p.size_bytes;
  ++packets_total_;
  stats_.max_queue_bytes = std::max(stats_.max_queue_bytes, bytes_total_);
  Queued& slot = sub_[q].push_slot();
  slot.packet = std::move(p);
  slot.enqueued = now;
}

void QueueStage::start_service(Instant now, StageOutput& out) {
  Aqm& aqm = aqm_.aqm();
  while (wire_q_ < 0 && packets_total_ > 0) {
    std::array<Instant, QueueView::kMaxQueues> heads{};
    for (int i = 0; i < QueueView::kMaxQueues; ++i) {
      heads[i] = sub_[i].empty() ? kNever : sub_[i].front().enqueued;
    }
    const int qi = aqm.queues() > 1 ? aqm.pick(heads, now) : 0;
    Queued& q = sub_[qi].front();
    wire_q_ = qi;  // leaving the queue: the AQM's view no longer counts it
    bytes_[qi] -= q.packet.size_bytes;
    bytes_total_ -= q.packet.size_bytes;
    --packets_total_;

    const Duration sojourn = now - q.enqueued;
    const bool too_late = max_sojourn_ && sojourn > *max_sojourn_;
    const AqmVerdict v = too_late ? AqmVerdict::kDrop : aqm.on_dequeue(q.packet, sojourn, view(now), now);
    if (v == AqmVerdict::kDrop) {
      drop(std::move(q.packet), too_late ? DropCause::kQueueTime : DropCause::kAqm, out);
      sub_[qi].pop_discard();
      wire_q_ = -1;
      continue;
    }
    if (v == AqmVerdict::kMark) {
      mark_ce(q.packet, out);
    }
    const Duration tx = rate_.transmit_time(q.packet.size_bytes, now);
    if (tx.count() == 0) {
      leave(q, now, tx, out);
      sub_[qi].pop_discard();
      wire_q_ = -1;
      continue;
    }
    wire_bytes_ = q.packet.size_bytes;
    wire_done_ = now + tx;
    wire_tx_ = tx;
  }
}

void QueueStage::leave(Queued& q, Instant departure, Duration tx, StageOutput& out) {
  note_departure(q.packet.size_bytes, departure, tx);
  if (q.packet.synthetic) {
    return;  // cross traffic leaves the bottleneck toward its own destination
  }
  if (telemetry_.enabled()) {
    telemetry_.stamp(q.packet, bytes_total_, departure - q.enqueued, departure, rate_.rate_at(departure));
  }
  q.packet.time = departure;
  out.emit(std::move(q.packet));
}

void QueueStage::finish_service(StageOutput& out) {
  const int qi = wire_q_;
  const Instant done = wire_done_;
  wire_q_ = -1;
  wire_bytes_ = 0;
  wire_done_ = kNever;
  leave(sub_[qi].front(), done, wire_tx_, out);
  sub_[qi].pop_discard();
}

void QueueStage::serve_opportunity(Instant now, StageOutput& out) {
  // The opportunities at `now` send up to their bytes, possibly finishing a packet begun at an
  // earlier one and starting the next.
  std::uint32_t budget = rate_.opportunity_bytes(now);
  while (budget > 0 && packets_total_ > 0) {
    auto& head_q = sub_[0].empty() ? sub_[1] : sub_[0];
    Queued& head = head_q.front();
    if (!rate_.send_head(budget, head.packet.size_bytes)) {
      break;
    }
    const int qi = &head_q == &sub_[0] ? 0 : 1;
    bytes_[qi] -= head.packet.size_bytes;
    bytes_total_ -= head.packet.size_bytes;
    --packets_total_;
    // A delivery opportunity is the wire's whole time unit: count it as busy.
    leave(head, now, now - last_departure_, out);
    head_q.pop_discard();
  }
  next_opportunity_ = packets_total_ > 0 ? rate_.next_opportunity(now + Duration{1}) : kNever;
}

void QueueStage::inject_cross_traffic(Instant now, StageOutput& out) {
  cross_.inject_due(now, [&](Packet&& p) {
    ++stats_.cross_packets_in;
    stats_.cross_bytes_in += p.size_bytes;
    out.injected(p);
    if (shared_ != nullptr) {
      // It takes the shared wire at the burst's instant, then leaves toward its own destination
      // (as leave() lets it go on one engine's wire): nothing waits for its departure.
      (void)push_shared(p, now, out);
    } else {
      enqueue(std::move(p), now, out);
    }
  });
}

Instant QueueStage::next_wakeup() const {
  if (shared_ != nullptr) {
    // Only departures and the bursts this engine injects are events; the AQM's timers run at
    // arrivals (push_shared).
    const Instant out = shared_out_.empty() ? kNever : shared_out_.front().time;
    return cross_on_ ? std::min(out, cross_.next_event()) : out;
  }
  Instant t = std::min(aqm_.aqm().next_timer(), cross_.next_event());
  if (rate_.opportunities()) {
    t = std::min(t, next_opportunity_);
  } else {
    t = std::min(t, wire_done_);
    if (wire_q_ < 0 && (!sub_[0].empty() || !sub_[1].empty())) {
      t = std::min(t, sched_.wire_free());  // held packets wait for the scheduled ones to leave
    }
  }
  return t;
}

void QueueStage::pull(Instant now, StageOutput& out) {
  while (!shared_out_.empty() && shared_out_.front().time <= now) {
    out.emit(std::move(shared_out_.front()));
    shared_out_.pop_discard();
  }
  settle(now);
  if (wire_q_ >= 0 && wire_done_ <= now) {
    finish_service(out);
  }
  if (shared_ == nullptr && aqm_.aqm().next_timer() <= now) {
    aqm_.aqm().on_timer(view(now), now);
  }
  if (cross_on_ && cross_.next_event() <= now) {
    inject_cross_traffic(now, out);
  }
  if (rate_.opportunities() && next_opportunity_ <= now) {
    serve_opportunity(now, out);
    return;
  }
  serve_held(now, out);
}

// Scheduled packets count while they are queued or on the wire (until settle() sees them go).
std::uint64_t QueueStage::held_packets() const {
  return packets_total_ + (wire_q_ >= 0 ? 1 : 0) + sched_.on_wire_packets() + shared_out_.size();
}

std::uint64_t QueueStage::held_bytes() const {
  std::uint64_t shared = 0;
  for (std::size_t i = 0; i < shared_out_.size(); ++i) {
    shared += shared_out_[i].size_bytes;
  }
  return bytes_total_ + wire_bytes_ + sched_.on_wire_bytes() + shared;
}

}  // namespace gw
