#include "emulator/engine/queue_stage.h"

#include <algorithm>
#include <utility>

#include "emulator/engine/aqm/make_aqm.h"

namespace gw {
namespace {

// Mahimahi's delivery opportunity carries one MTU-sized packet (mahimahi link_queue.hh,
// PACKET_SIZE = 1504 bytes).
constexpr std::uint32_t kMahimahiOpportunityBytes = 1504;

bool same_aqm(const AqmSettings& a, const AqmSettings& b) {
  // Settings structs have no operator==; compare the fields that the AQMs read.
  if (a.kind != b.kind) {
    return false;
  }
  switch (a.kind) {
    case AqmKind::kDropTail:
      return true;
    case AqmKind::kRed:
      return a.red.min_bytes == b.red.min_bytes && a.red.max_bytes == b.red.max_bytes &&
             a.red.max_p == b.red.max_p && a.red.weight == b.red.weight && a.red.gentle == b.red.gentle &&
             a.red.ecn == b.red.ecn;
    case AqmKind::kCodel:
      return a.codel.target == b.codel.target && a.codel.interval == b.codel.interval &&
             a.codel.ecn == b.codel.ecn;
    case AqmKind::kPie:
      return a.pie.target == b.pie.target && a.pie.t_update == b.pie.t_update && a.pie.alpha == b.pie.alpha &&
             a.pie.beta == b.pie.beta && a.pie.ecn == b.pie.ecn;
    case AqmKind::kDualPi2:
      return a.dualpi2.target == b.dualpi2.target && a.dualpi2.t_update == b.dualpi2.t_update &&
             a.dualpi2.alpha == b.dualpi2.alpha && a.dualpi2.beta == b.dualpi2.beta &&
             a.dualpi2.coupling_k == b.dualpi2.coupling_k && a.dualpi2.l_step == b.dualpi2.l_step;
    case AqmKind::kThreshold:
      return a.threshold.kmin_bytes == b.threshold.kmin_bytes &&
             a.threshold.kmax_bytes == b.threshold.kmax_bytes && a.threshold.pmax == b.threshold.pmax;
  }
  return false;
}

// Position of `t` inside a repeating schedule of length `period` (0 = not repeating).
Duration phase_of(Instant t, Duration period) {
  const Duration since = t.time_since_epoch();
  return period.count() > 0 ? Duration{since.count() % period.count()} : since;
}

}  // namespace

QueueStage::QueueStage(const RateSettings& rate, const QueueSettings& queue, std::uint64_t seed,
                       std::string stream)
    : rate_(rate), queue_(queue), seed_(seed), stream_(std::move(stream)) {
  set_aqm(make_aqm(queue_.aqm, seed_, stream_));
  for (std::size_t i = 0; i < queue_.microbursts.size(); ++i) {
    Burst b{queue_.microbursts[i], Rng(seed_, stream_ + "/microburst/" + std::to_string(i)), kNever};
    schedule_next_burst(b, kEpoch);
    bursts_.push_back(std::move(b));
  }
  schedulable_ = schedulable_with(rate_, queue_, *aqm_);
  max_packets_ = queue_.limit_packets.value_or(UINT64_MAX);
  max_bytes_ = queue_.limit_bytes.value_or(UINT64_MAX);
}

bool QueueStage::schedulable_with(const RateSettings& rate, const QueueSettings& queue, const Aqm& aqm) {
  return rate.trace.empty() && rate.mahimahi.empty() && queue.microbursts.empty() &&
         !queue.telemetry.enabled && !queue.limit_time && aqm.decides_at_enqueue() && aqm.queues() == 1;
}

QueueStage::~QueueStage() = default;

void QueueStage::set_settings(const RateSettings& rate, const QueueSettings& queue) {
  if (!same_aqm(queue.aqm, queue_.aqm)) {
    set_aqm(make_aqm(queue.aqm, seed_, stream_));
  }
  rate_ = rate;
  queue_ = queue;
  tx_size_ = kNoSize;
  // Microburst sources keep their streams when the count is unchanged; new ones start fresh.
  const Instant resume = last_departure_;
  bursts_.resize(std::min(bursts_.size(), queue_.microbursts.size()), Burst{{}, Rng(seed_, stream_), kNever});
  for (std::size_t i = 0; i < queue_.microbursts.size(); ++i) {
    if (i < bursts_.size()) {
      bursts_[i].settings = queue_.microbursts[i];
    } else {
      Burst b{queue_.microbursts[i], Rng(seed_, stream_ + "/microburst/" + std::to_string(i)), kNever};
      schedule_next_burst(b, resume);
      bursts_.push_back(std::move(b));
    }
  }
  schedulable_ = schedulable_with(rate_, queue_, *aqm_);
  max_packets_ = queue_.limit_packets.value_or(UINT64_MAX);
  max_bytes_ = queue_.limit_bytes.value_or(UINT64_MAX);
}

BitRate QueueStage::rate_at(Instant now) const {
  if (rate_.trace.empty()) {
    return rate_.rate;
  }
  const Duration pos = phase_of(now, rate_.trace_period);
  // Last trace point at or before pos; before the first point the first rate applies.
  auto it = std::upper_bound(rate_.trace.begin(), rate_.trace.end(), pos,
                             [](Duration d, const RateTracePoint& tp) { return d < tp.at; });
  if (it == rate_.trace.begin()) {
    return it->rate;
  }
  return std::prev(it)->rate;
}

Duration QueueStage::transmit_time_slow(std::uint32_t size_bytes, Instant now) const {
  const Duration tx = compute_transmit_time(size_bytes, now);
  tx_size_ = size_bytes;
  tx_last_ = tx;
  return tx;
}

Duration QueueStage::compute_transmit_time(std::uint32_t size_bytes, Instant now) const {
  const BitRate r = rate_at(now);
  if (r.unlimited()) {
    return Duration{0};
  }
  // netem packet_time_ns(): len + packet_overhead, then whole cells of cell_size +
  // cell_overhead when a cell size is set.
  std::int64_t len = static_cast<std::int64_t>(size_bytes) + rate_.packet_overhead_bytes;
  if (rate_.cell_bytes > 0) {
    const std::int64_t cells = (len + rate_.cell_bytes - 1) / rate_.cell_bytes;
    len = cells * (static_cast<std::int64_t>(rate_.cell_bytes) + rate_.cell_overhead_bytes);
  }
  return r.transmit_time(static_cast<std::uint64_t>(std::max<std::int64_t>(len, 0)));
}

const QueueStage::Queued* QueueStage::head(int i) const {
  const std::size_t at = wire_q_ == i ? 1 : 0;
  return at < sub_[i].size() ? &sub_[i][at] : nullptr;
}

QueueView QueueStage::view(Instant now) const {
  QueueView v;
  v.rate = rate_.trace.empty() ? rate_.rate : rate_at(now);
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

void QueueStage::push(Packet&& p, Instant now, StageOutput& out) {
  settle(now);
  enqueue(std::move(p), now, out);
  if (!rate_.mahimahi.empty()) {
    if (next_opportunity_ == kNever && packets_total_ > 0) {
      next_opportunity_ = next_opportunity(now);
    }
    return;
  }
  if (wire_q_ < 0 && wire_free_ <= now) {
    start_service(now, out);
  }
}

QueueStage::Admission QueueStage::hold_for_events(Packet& p, Instant now, StageOutput& out) {
  store(std::move(p), now);
  if (!rate_.mahimahi.empty()) {
    if (next_opportunity_ == kNever && packets_total_ > 0) {
      next_opportunity_ = next_opportunity(now);
    }
  } else if (wire_q_ < 0 && wire_free_ <= now) {
    start_service(now, out);
  }
  return Admission::kHeld;
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
  return apply_verdict(p, aqm_on_enqueue(p, view(now), now), out);
}

bool QueueStage::drop_at_admission(Packet& p, DropCause cause, StageOutput& out) {
  stats_.cross_dropped += p.synthetic ? 1 : 0;
  out.drop(std::move(p), cause);
  return false;
}

bool QueueStage::apply_verdict(Packet& p, AqmVerdict v, StageOutput& out) {
  switch (v) {
    case AqmVerdict::kDrop:
      return drop_at_admission(p, DropCause::kAqm, out);
    case AqmVerdict::kMark:
      if (ecn_capable(p.headers.ecn) && p.headers.ecn != Ecn::kCe) {
        p.headers.ecn = Ecn::kCe;
        p.ce_marked = true;
        out.marked(p);
      }
      break;
    case AqmVerdict::kPass:
      break;
  }
  return true;
}

void QueueStage::store(Packet&& p, Instant now) {
  const int q = aqm_->classify(p);
  bytes_[q] += p.size_bytes;
  bytes_total_ += p.size_bytes;
  ++packets_total_;
  stats_.max_queue_bytes = std::max(stats_.max_queue_bytes, bytes_total_);
  Queued& slot = sub_[q].push_slot();
  slot.packet = std::move(p);
  slot.enqueued = now;
}

void QueueStage::start_service(Instant now, StageOutput& out) {
  while (wire_q_ < 0 && packets_total_ > 0) {
    std::array<Instant, QueueView::kMaxQueues> heads{};
    for (int i = 0; i < QueueView::kMaxQueues; ++i) {
      heads[i] = sub_[i].empty() ? kNever : sub_[i].front().enqueued;
    }
    const int qi = aqm_->queues() > 1 ? aqm_->pick(heads, now) : 0;
    Queued& q = sub_[qi].front();
    wire_q_ = qi;  // leaving the queue: the AQM's view no longer counts it
    bytes_[qi] -= q.packet.size_bytes;
    bytes_total_ -= q.packet.size_bytes;
    --packets_total_;

    const Duration sojourn = now - q.enqueued;
    if (queue_.limit_time && sojourn > *queue_.limit_time) {
      stats_.cross_dropped += q.packet.synthetic ? 1 : 0;
      out.drop(std::move(q.packet), DropCause::kQueueTime);
      sub_[qi].pop_discard();
      wire_q_ = -1;
      continue;
    }
    const AqmVerdict v = aqm_->on_dequeue(q.packet, sojourn, view(now), now);
    if (v == AqmVerdict::kDrop) {
      stats_.cross_dropped += q.packet.synthetic ? 1 : 0;
      out.drop(std::move(q.packet), DropCause::kAqm);
      sub_[qi].pop_discard();
      wire_q_ = -1;
      continue;
    }
    if (v == AqmVerdict::kMark && ecn_capable(q.packet.headers.ecn) && q.packet.headers.ecn != Ecn::kCe) {
      q.packet.headers.ecn = Ecn::kCe;
      q.packet.ce_marked = true;
      out.marked(q.packet);
    }
    const Duration tx = transmit_time(q.packet.size_bytes, now);
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

void QueueStage::note_utilization(Instant departure, Duration tx) {
  // Utilization for INT: EWMA (weight 1/8) of the wire's busy share since the last departure,
  // kept while INT stamping is on (a phase that switches it on resumes from where it was).
  const Duration since = departure - last_departure_;
  const double busy =
      since.count() > 0 ? std::min(1.0, static_cast<double>(tx.count()) / since.count()) : 1.0;
  utilization_ += (busy - utilization_) / 8.0;
}

void QueueStage::leave(Queued& q, Instant departure, Duration tx, StageOutput& out) {
  note_departure(q.packet.size_bytes, departure, tx);
  if (q.packet.synthetic) {
    return;  // cross traffic leaves the bottleneck toward its own destination
  }
  IntStack* t = q.packet.telemetry;
  if (queue_.telemetry.enabled && t != nullptr && t->hops < IntStack::kMaxHops) {
    IntHop& h = t->hop[t->hops++];
    h.node_id = queue_.telemetry.node_id;
    h.queue_bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(bytes_total_, UINT32_MAX));
    h.hop_latency_ns =
        static_cast<std::uint32_t>(std::min<std::int64_t>((departure - q.enqueued).count(), UINT32_MAX));
    h.tx_utilization_ppm = static_cast<std::uint32_t>(utilization_ * 1e6);
    h.egress_ts_ns = static_cast<std::uint64_t>(ns_of(departure));
    h.tx_bytes = static_cast<std::uint32_t>(tx_bytes_);
    h.link_rate_mbps =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(rate_at(departure).bps / 1'000'000, UINT32_MAX));
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

Instant QueueStage::next_opportunity(Instant after) const {
  const auto& ops = rate_.mahimahi;
  const Duration period = rate_.mahimahi_period;
  const Duration pos = phase_of(after, period);
  const Instant cycle_start = after - pos;
  auto it = std::lower_bound(ops.begin(), ops.end(), pos);
  if (it != ops.end()) {
    return cycle_start + *it;
  }
  if (period.count() == 0) {
    return kNever;  // a non-repeating trace has ended: the link is gone
  }
  return cycle_start + period + ops.front();
}

void QueueStage::serve_opportunity(Instant now, StageOutput& out) {
  // mahimahi LinkQueue::use_a_delivery_opportunity: one opportunity sends up to 1504 bytes,
  // possibly finishing a packet begun at an earlier one and starting the next.
  // Several opportunities may share one millisecond: each adds a packet's worth of bytes.
  const Duration pos = phase_of(now, rate_.mahimahi_period);
  const auto [lo, hi] = std::equal_range(rate_.mahimahi.begin(), rate_.mahimahi.end(), pos);
  std::uint32_t budget =
      kMahimahiOpportunityBytes * static_cast<std::uint32_t>(std::max<std::ptrdiff_t>(1, hi - lo));
  while (budget > 0 && packets_total_ > 0) {
    auto& head_q = sub_[0].empty() ? sub_[1] : sub_[0];
    Queued& head = head_q.front();
    if (opportunity_left_ == 0) {
      opportunity_left_ = head.packet.size_bytes;
    }
    const std::uint32_t used = std::min(budget, opportunity_left_);
    budget -= used;
    opportunity_left_ -= used;
    if (opportunity_left_ > 0) {
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
  next_opportunity_ = packets_total_ > 0 ? next_opportunity(now + Duration{1}) : kNever;
}

void QueueStage::schedule_next_burst(Burst& b, Instant after) {
  const MicroburstSettings& s = b.settings;
  if (s.period.count() <= 0 || s.burst_bytes == 0) {
    b.next_start = kNever;
    return;
  }
  // Bursts start at start + k * period (+ uniform jitter in [-jitter, +jitter]), one per
  // period: the slot after the last one used, even when that burst came early (a negative
  // jitter put it before its slot, and `after` then still lies in the slot).
  Instant base = kEpoch + s.start;
  if (after > base) {
    const std::int64_t k = (after - base).count() / s.period.count() + 1;
    base += s.period * k;
  }
  if (b.last_slot != kNever && base <= b.last_slot) {
    base += s.period * ((b.last_slot - base).count() / s.period.count() + 1);
  }
  b.last_slot = base;
  Duration j{0};
  if (s.jitter.count() > 0) {
    j = Duration{
        static_cast<std::int64_t>(b.rng.below(static_cast<std::uint64_t>(2 * s.jitter.count() + 1))) -
        s.jitter.count()};
  }
  b.next_start = std::max(after, base + j);
}

Instant QueueStage::next_cross_event() const {
  Instant t = kNever;
  for (const Burst& b : bursts_) {
    t = std::min({t, b.next_start, b.next_packet});
  }
  return t;
}

void QueueStage::inject_cross_traffic(Instant now, StageOutput& out) {
  for (Burst& b : bursts_) {
    if (b.next_start == now) {
      b.bytes_left += b.settings.burst_bytes;
      b.next_packet = now;
      schedule_next_burst(b, now + Duration{1});
    }
    while (b.next_packet == now && b.bytes_left > 0) {
      const auto size =
          static_cast<std::uint32_t>(std::min<std::uint64_t>(b.bytes_left, b.settings.packet_bytes));
      b.bytes_left -= size;
      Packet p;
      p.synthetic = true;
      p.size_bytes = size;
      p.arrival = now;
      p.time = now;
      ++stats_.cross_packets_in;
      stats_.cross_bytes_in += size;
      out.injected(p);
      enqueue(std::move(p), now, out);
      if (b.bytes_left == 0) {
        b.next_packet = kNever;
      } else if (!b.settings.burst_rate.unlimited()) {
        b.next_packet = now + b.settings.burst_rate.transmit_time(size);
      }
    }
  }
}

Instant QueueStage::next_wakeup() const {
  Instant t = std::min(aqm_->next_timer(), next_cross_event());
  if (rate_.mahimahi.empty()) {
    t = std::min(t, wire_done_);
    if (wire_q_ < 0 && (!sub_[0].empty() || !sub_[1].empty())) {
      t = std::min(t, wire_free_);  // held packets wait for the scheduled ones to leave
    }
  } else {
    t = std::min(t, next_opportunity_);
  }
  return t;
}

void QueueStage::pull(Instant now, StageOutput& out) {
  settle(now);
  if (wire_q_ >= 0 && wire_done_ <= now) {
    finish_service(out);
  }
  if (aqm_->next_timer() <= now) {
    aqm_->on_timer(view(now), now);
  }
  if (next_cross_event() <= now) {
    inject_cross_traffic(now, out);
  }
  if (!rate_.mahimahi.empty()) {
    if (next_opportunity_ <= now) {
      serve_opportunity(now, out);
    } else if (next_opportunity_ == kNever && packets_total_ > 0) {
      next_opportunity_ = next_opportunity(now);
    }
    return;
  }
  if (wire_q_ < 0 && wire_free_ <= now) {
    start_service(now, out);
  }
}

// Scheduled packets count while they are queued or on the wire (until settle() sees them go).
std::uint64_t QueueStage::held_packets() const {
  return packets_total_ + (wire_q_ >= 0 ? 1 : 0) + (on_wire_.departure != kNever ? 1 : 0);
}

std::uint64_t QueueStage::held_bytes() const {
  return bytes_total_ + wire_bytes_ + on_wire_.bytes;
}

}  // namespace gw
