// The bottleneck: a queue drained at a rate (netem `rate` with per-packet overhead and cells,
// a rate trace, or Mahimahi delivery opportunities), with limits in packets, bytes and sojourn
// time, an AQM deciding pass / mark / drop, cross-traffic microbursts injected into the same
// queue, and INT stamping of what leaves.
//
// Service model: one packet is on the wire at a time; it leaves when its last bit is sent
// (start + (len + overhead) * 8 / rate, rounded up to cells when cell_bytes is set, as
// netem's packet_time_ns). Queue occupancy excludes the packet on the wire, as in Linux
// qdiscs. With a rate trace the rate in force when a transmission starts applies to all of it.
//
// Scheduling at admission (the pipeline's fast path, pipeline.cc): for a FIFO bottleneck at a
// fixed rate whose AQM decides at enqueue (droptail, RED, threshold), without microbursts, INT
// or a sojourn limit, a packet's departure is known when it arrives:
//   start = max(now, last departure), departure = start + transmit time.
// push_scheduled() then hands the packet straight on with p.time = departure instead of holding
// it until an event at that time, and keeps only (start, departure, bytes) so that later
// arrivals, the limits and the AQM see the same backlog as with events: settle() accounts for
// service starts (and tells the AQM) in order, lazily, before anything reads the queue. Packets
// held the event-driven way (e.g. one whose departure falls after the pipeline's horizon, the
// next phase change) wait behind the scheduled ones; scheduling resumes once none is held.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/ring.h"
#include "core/rng.h"
#include "emulator/engine/aqm/aqm.h"
#include "emulator/engine/aqm/red.h"
#include "emulator/engine/spec.h"
#include "emulator/engine/stage.h"

namespace gw {

struct QueueStats {
  std::uint64_t cross_packets_in = 0;  // synthetic microburst packets injected
  std::uint64_t cross_bytes_in = 0;
  std::uint64_t cross_dropped = 0;
  std::uint64_t max_queue_bytes = 0;
};

class QueueStage final : public Stage {
 public:
  QueueStage(const RateSettings& rate, const QueueSettings& queue, std::uint64_t seed, std::string stream);
  ~QueueStage() override;

  // New settings without losing queued packets. The AQM is rebuilt only if its settings changed.
  void set_settings(const RateSettings& rate, const QueueSettings& queue);

  void push(Packet&& p, Instant now, StageOutput& out) override;
  Instant next_wakeup() const override;
  void pull(Instant now, StageOutput& out) override;
  std::uint64_t held_packets() const override;
  std::uint64_t held_bytes() const override;
  std::string name() const override { return "queue"; }

  // Scheduling at admission (above). schedulable(): the settings allow it.
  bool schedulable() const { return schedulable_; }
  enum class Admission : std::uint8_t { kScheduled, kDropped, kHeld };
  // p arrives at `now`. kScheduled: p.time is its departure (< horizon) and the caller passes
  // p on now; kDropped: p went to out.drop; kHeld: the queue keeps p and serves it by events,
  // as push() does. Scheduling needs schedulable() and no packet held the event-driven way.
  Admission push_scheduled(Packet& p, Instant now, Instant horizon, StageOutput& out);
  // push_scheduled() for a caller that settled the queue at `now` and knows holds_events().
  Admission push_settled(Packet& p, Instant now, Instant horizon, bool events, StageOutput& out);
  // Packets held the event-driven way (in the queue or on the wire): while there are any, the
  // queue has events and new packets queue behind them.
  bool holds_events() const { return wire_q_ >= 0 || !sub_[0].empty() || !sub_[1].empty(); }
  // When the next scheduled packet leaves (and the one behind it starts): not an event the
  // queue needs, but when queue_bytes() changes, for owners that read it between calls.
  Instant scheduled_wakeup() const {
    return on_wire_.departure != kNever ? on_wire_.departure
                                        : (sched_.empty() ? kNever : sched_.front().departure);
  }
  // Accounts for scheduled packets that started service or left up to `now`.
  void settle(Instant now) {
    if ((!sched_.empty() && sched_.front().start <= now) || on_wire_.departure <= now) {
      settle_until(now);
    }
  }

  std::uint64_t queue_bytes() const { return bytes_total_; }
  const QueueStats& stats() const { return stats_; }
  BitRate rate_at(Instant now) const;

 private:
  struct Queued {
    Packet packet;
    Instant enqueued;
  };
  struct Burst {  // running state of one microburst source
    MicroburstSettings settings;
    Rng rng;
    Instant next_start;
    // The nominal start (start + k period, before jitter) of the burst last scheduled: each
    // period has one burst, however its jitter falls.
    Instant last_slot = kNever;
    std::uint64_t bytes_left = 0;  // of the burst in progress
    Instant next_packet = kNever;
  };

  // A packet whose departure was computed at admission; the packet itself went on.
  struct Scheduled {
    Instant start;
    Instant departure;
    Instant enqueued;
    std::uint32_t bytes;
  };

  void enqueue(Packet&& p, Instant now, StageOutput& out);
  // Limits and the AQM's enqueue verdict (marking p); false when p was dropped. admit() is
  // the scheduled path's inline form (no packet held for events, so a cheaper view).
  bool admit(Packet& p, Instant now, bool events, StageOutput& out);  // events: holds_events()
  bool admit_slow(Packet& p, Instant now, StageOutput& out);
  bool drop_at_admission(Packet& p, DropCause cause, StageOutput& out);
  bool apply_verdict(Packet& p, AqmVerdict v, StageOutput& out);
  // push_scheduled() for a packet that is not scheduled: held and served by events.
  Admission hold_for_events(Packet& p, Instant now, StageOutput& out);
  void store(Packet&& p, Instant now);
  void settle_until(Instant now);
  void note_departure(std::uint32_t bytes, Instant departure, Duration tx) {
    tx_bytes_ += bytes;
    if (queue_.telemetry.enabled) {
      note_utilization(departure, tx);
    }
    last_departure_ = departure;
  }
  void note_utilization(Instant departure, Duration tx);
  static bool schedulable_with(const RateSettings& rate, const QueueSettings& queue, const Aqm& aqm);
  void start_service(Instant now, StageOutput& out);
  void finish_service(StageOutput& out);
  void serve_opportunity(Instant now, StageOutput& out);
  void inject_cross_traffic(Instant now, StageOutput& out);
  void leave(Queued& q, Instant departure, Duration tx, StageOutput& out);
  // The first packet of sub-queue i that is waiting (not on the wire), or nullptr.
  const Queued* head(int i) const;
  QueueView view(Instant now) const;
  // view() while no packet is held for events (only scheduled ones): the same, cheaper.
  QueueView scheduled_view(Instant now) const {
    QueueView v;
    v.rate = rate_.trace.empty() ? rate_.rate : rate_at(now);
    v.bytes = {bytes_[0], bytes_[1]};
    if (!sched_.empty()) {
      v.packets[0] = sched_.size();
      v.head_sojourn[0] = now - sched_.front().enqueued;
    }
    return v;
  }
  Duration transmit_time(std::uint32_t size_bytes, Instant now) const {
    // At a fixed rate, the last size's answer is kept: traffic is mostly one or two sizes.
    if (size_bytes == tx_size_ && rate_.trace.empty()) {
      return tx_last_;
    }
    return transmit_time_slow(size_bytes, now);
  }
  Duration transmit_time_slow(std::uint32_t size_bytes, Instant now) const;
  Duration compute_transmit_time(std::uint32_t size_bytes, Instant now) const;
  Instant next_opportunity(Instant after) const;
  Instant next_cross_event() const;
  void schedule_next_burst(Burst& b, Instant after);

  RateSettings rate_;
  QueueSettings queue_;
  std::uint64_t max_packets_ = UINT64_MAX;  // queue_'s limits, UINT64_MAX when unset
  std::uint64_t max_bytes_ = UINT64_MAX;
  std::uint64_t seed_;
  std::string stream_;
  std::unique_ptr<Aqm> aqm_;
  // aqm_ when it is RED (the shipped WAN profiles' AQM), so the per-packet path calls it
  // directly: RedAqm is final, and its idle fast path is inline. nullptr otherwise.
  RedAqm* red_ = nullptr;
  void set_aqm(std::unique_ptr<Aqm> aqm) {
    aqm_ = std::move(aqm);
    red_ = dynamic_cast<RedAqm*>(aqm_.get());
  }
  AqmVerdict aqm_on_enqueue(const Packet& p, const QueueView& q, Instant now) {
    return red_ != nullptr ? red_->on_enqueue(p, q, now) : aqm_->on_enqueue(p, q, now);
  }
  void aqm_on_queue_empty(Instant now) {
    if (red_ != nullptr) {
      red_->on_queue_empty(now);
    } else {
      aqm_->on_queue_empty(now);
    }
  }

  Ring<Queued> sub_[QueueView::kMaxQueues];
  std::uint64_t bytes_[QueueView::kMaxQueues] = {};
  std::uint64_t bytes_total_ = 0;
  std::uint64_t packets_total_ = 0;

  // The packet on the wire stays at the front of its sub-queue until it has left.
  int wire_q_ = -1;
  std::uint32_t wire_bytes_ = 0;
  Instant wire_done_ = kNever;
  Duration wire_tx_{0};
  std::uint32_t opportunity_left_ = 0;  // Mahimahi: bytes still owed to the head packet
  Instant next_opportunity_ = kNever;

  static constexpr std::uint64_t kNoSize = UINT64_MAX;  // no frame is that large
  mutable std::uint64_t tx_size_ = kNoSize;             // transmit_time()'s last answer, at a fixed rate
  mutable Duration tx_last_{0};
  bool schedulable_ = false;
  Ring<Scheduled> sched_;  // scheduled packets waiting for the wire, in order
  // The scheduled packet on the wire (started, as far as settle() knows, and not departed):
  // at most one, as each starts when the one before it leaves. departure kNever: none.
  struct OnWire {
    Instant departure = kNever;
    std::uint32_t bytes = 0;
  };
  OnWire on_wire_;
  Instant wire_free_ = Instant::min();  // the last scheduled departure

  std::vector<Burst> bursts_;
  std::uint64_t tx_bytes_ = 0;
  double utilization_ = 0;
  Instant last_departure_{};
  QueueStats stats_;
};

// The per-packet path of scheduling at admission, inline (the pipeline's direct path).

inline void QueueStage::settle_until(Instant now) {
  while (!sched_.empty() && sched_.front().start <= now) {
    // It starts when the one on the wire leaves (start = max(arrival, last departure)), so it
    // takes the wire's place.
    const Scheduled& e = sched_.front();
    bytes_[0] -= e.bytes;
    bytes_total_ -= e.bytes;
    --packets_total_;
    if (packets_total_ == 0) {  // the single queue's view.packets[0]
      aqm_on_queue_empty(e.start);
    }
    on_wire_ = {e.departure, e.bytes};
    sched_.pop_discard();
  }
  if (on_wire_.departure <= now) {
    on_wire_ = {};
  }
}

inline bool QueueStage::admit(Packet& p, Instant now, bool events, StageOutput& out) {
  if (packets_total_ >= max_packets_) [[unlikely]] {
    return drop_at_admission(p, DropCause::kQueuePackets, out);
  }
  if (bytes_total_ + p.size_bytes > max_bytes_) [[unlikely]] {
    return drop_at_admission(p, DropCause::kQueueBytes, out);
  }
  // RED's idle fast path before any view is built: nothing held for events and nothing
  // scheduled waiting is the view's packets[0] == 0.
  if (red_ != nullptr && !events && sched_.empty() && red_->pass_at_empty(now)) {
    return true;
  }
  const AqmVerdict v = aqm_on_enqueue(p, events ? view(now) : scheduled_view(now), now);
  return v == AqmVerdict::kPass || apply_verdict(p, v, out);
}

inline QueueStage::Admission QueueStage::push_scheduled(Packet& p, Instant now, Instant horizon,
                                                        StageOutput& out) {
  settle(now);
  return push_settled(p, now, horizon, holds_events(), out);
}

[[gnu::always_inline]] inline QueueStage::Admission QueueStage::push_settled(Packet& p, Instant now,
                                                                             Instant horizon, bool events,
                                                                             StageOutput& out) {
  // Admission neither holds p nor serves anything, so `events` stays true to the queue.
  if (!admit(p, now, events, out)) {
    return Admission::kDropped;
  }
  if (schedulable_ && !events) [[likely]] {
    const Instant start = std::max(now, wire_free_);
    const Duration tx = transmit_time(p.size_bytes, start);
    const Instant departure = start + tx;
    // Its departure (and so its arrival downstream) must happen under the settings in force.
    if (departure < horizon) [[likely]] {
      const std::uint32_t size = p.size_bytes;
      stats_.max_queue_bytes = std::max(stats_.max_queue_bytes, bytes_total_ + size);
      if (start > now) {  // behind others: queued until `start` (settle())
        bytes_[0] += size;
        bytes_total_ += size;
        ++packets_total_;
        sched_.push_back(Scheduled{start, departure, now, size});
      } else {
        // An idle wire: it starts now, and nothing is queued (the wire would be busy), so the
        // queue is empty behind it. What settle() would do at once, without the round trip.
        aqm_on_queue_empty(now);
        if (departure > now) {
          on_wire_ = {departure, size};
        }
      }
      wire_free_ = departure;
      note_departure(size, departure, tx);
      p.time = departure;
      return Admission::kScheduled;
    }
  }
  return hold_for_events(p, now, out);
}

}  // namespace gw
