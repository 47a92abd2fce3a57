// The bottleneck stage: a queue with limits in packets, bytes and sojourn time, drained one
// packet at a time. It owns the packets and the occupancy counts and decides which packet is
// served when; the rest is done by single-job parts it holds by value (no virtual call on the
// per-packet path):
//   RateServer (rate_server.h)             how long a packet takes to leave: rate, overhead,
//                                          cells, rate trace, or Mahimahi opportunities
//   AqmHost (aqm_host.h)                   the AQM's pass / mark / drop, RED called directly
//   mark_ce (ce_mark.h)                    what a mark verdict does, on every path
//   CrossTraffic (cross_traffic.h)         microbursts injected into the same queue
//   IntStamper (int_stamper.h)             INT hops stamped on what leaves
//   ScheduledBacklog (scheduled_backlog.h) the backlog of packets scheduled at admission
//
// Service model: one packet is on the wire at a time; it leaves when its last bit is sent
// (its start plus RateServer's transmit time, netem's packet_time_ns). Queue occupancy
// excludes the packet on the wire, as in Linux qdiscs.
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
#include <optional>
#include <string>

#include "core/ring.h"
#include "emulator/engine/aqm/aqm.h"
#include "emulator/engine/aqm_host.h"
#include "emulator/engine/cross_traffic.h"
#include "emulator/engine/int_stamper.h"
#include "emulator/engine/rate_server.h"
#include "emulator/engine/scheduled_backlog.h"
#include "emulator/engine/shared_wire.h"
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

  // Whether these settings can run on a wire shared by several engines (shared_wire.h): a
  // fixed rate or a rate trace (no Mahimahi opportunities), an AQM that decides at enqueue
  // (droptail, RED, threshold, PIE), no packet limit, no INT. Empty when they can, else the
  // setting (its JSON name under the direction) that cannot.
  static std::string unshareable(const RateSettings& rate, const QueueSettings& queue);
  // From now on the link is `wire`, shared with other engines (null = its own again); the
  // settings must be shareable. Every frame is then scheduled at admission against the wire,
  // whatever the horizon: a phase's new rate applies to frames arriving after it.
  // `injects`: this engine makes the link's cross traffic (microbursts) for all of them, on the
  // wire at the burst's instants; the others make none, or each burst would come N times.
  SharedWire* shared() const { return shared_; }
  void share(SharedWire* wire, bool injects) {
    shared_ = wire;
    cross_on_ = wire == nullptr || injects;
    set_schedulable();
  }

  // Scheduling at admission (above). schedulable(): the settings allow it.
  bool schedulable() const { return schedulable_; }
  enum class Admission : std::uint8_t { kScheduled, kDropped, kHeld };
  // p arrives at `now`. kScheduled: p.time is its departure (< horizon) and the caller passes
  // p on now; kDropped: p went to out.drop; kHeld: the queue keeps p and serves it by events,
  // as push() does. Scheduling needs schedulable() and no packet held the event-driven way.
  Admission push_scheduled(Packet& p, Instant now, Instant horizon, StageOutput& out);
  // push_scheduled() for a caller that settled the queue at `now` and knows holds_events().
  Admission push_settled(Packet& p, Instant now, Instant horizon, bool events, StageOutput& out);
  // Packets held the event-driven way (in the queue or on the wire, or on a shared wire waiting
  // for their departure to pass them on): while there are any, the queue has events and new
  // packets queue behind them. (A shared wire's queue holds those only while no delay stage
  // follows it; a phase that adds one must still let them out at their events.)
  bool holds_events() const {
    return wire_q_ >= 0 || !sub_[0].empty() || !sub_[1].empty() || !shared_out_.empty();
  }
  // When the next scheduled packet leaves (and the one behind it starts): not an event the
  // queue needs, but when queue_bytes() changes, for owners that read it between calls.
  Instant scheduled_wakeup() const { return sched_.next_change(); }
  // Accounts for scheduled packets that started service or left up to `now`.
  void settle(Instant now) {
    if (sched_.due(now)) {
      settle_until(now);
    }
  }

  // With a shared wire: its backlog as the last arrival here saw it.
  std::uint64_t queue_bytes() const { return shared_ != nullptr ? shared_backlog_ : bytes_total_; }
  const QueueStats& stats() const { return stats_; }
  BitRate rate_at(Instant now) const { return rate_.rate_at(now); }

 private:
  struct Queued {
    Packet packet;
    Instant enqueued;
  };

  // Limits, and whether the settings allow scheduling at admission.
  void set_limits(const QueueSettings& queue);
  void enqueue(Packet&& p, Instant now, StageOutput& out);
  // Limits and the AQM's enqueue verdict (marking p); false when p was dropped. admit() is
  // the scheduled path's inline form (no packet held for events, so a cheaper view).
  bool admit(Packet& p, Instant now, bool events, StageOutput& out);  // events: holds_events()
  bool admit_slow(Packet& p, Instant now, StageOutput& out);
  bool drop_at_admission(Packet& p, DropCause cause, StageOutput& out);
  bool apply_verdict(Packet& p, AqmVerdict v, StageOutput& out);
  // p leaves the pipeline (cross traffic counted apart).
  void drop(Packet&& p, DropCause cause, StageOutput& out);
  // Admission and scheduling against the shared wire.
  Admission push_shared(Packet& p, Instant now, StageOutput& out);
  // push_scheduled() for a packet that is not scheduled: held and served by events.
  Admission hold_for_events(Packet& p, Instant now, StageOutput& out);
  void store(Packet&& p, Instant now);
  void settle_until(Instant now);
  void note_departure(std::uint32_t bytes, Instant departure, Duration tx) {
    telemetry_.count(bytes, departure - last_departure_, tx);
    last_departure_ = departure;
  }
  // Packets held for events: start serving when the wire is free (or, with opportunities,
  // make sure the next one is awaited).
  void serve_held(Instant now, StageOutput& out);
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
    v.rate = rate_.rate_at(now);
    v.bytes = {bytes_[0], bytes_[1]};
    if (!sched_.empty()) {
      v.packets[0] = sched_.size();
      v.head_sojourn[0] = now - sched_.front().enqueued;
    }
    return v;
  }

  RateServer rate_;
  AqmHost aqm_;
  CrossTraffic cross_;
  IntStamper telemetry_;
  ScheduledBacklog sched_;
  std::uint64_t max_packets_ = UINT64_MAX;  // the limits, UINT64_MAX when unset
  std::uint64_t max_bytes_ = UINT64_MAX;
  std::optional<Duration> max_sojourn_;
  bool schedulable_ = false;
  bool cross_on_ = true;  // this engine injects cross_'s bursts (share())
  void set_schedulable();

  // Packets held for events, by sub-queue (the AQM's classify()).
  Ring<Queued> sub_[QueueView::kMaxQueues];
  // Occupancy, held and scheduled packets waiting for the wire.
  std::uint64_t bytes_[QueueView::kMaxQueues] = {};
  std::uint64_t bytes_total_ = 0;
  std::uint64_t packets_total_ = 0;

  // The held packet on the wire stays at the front of its sub-queue until it has left.
  int wire_q_ = -1;
  std::uint32_t wire_bytes_ = 0;
  Instant wire_done_ = kNever;
  Duration wire_tx_{0};
  Instant next_opportunity_ = kNever;  // Mahimahi: the opportunity awaited
  Instant last_departure_{};           // of any packet, held or scheduled

  // Shared wire (share()): frames pushed the event way wait here for their departure, in order
  // (each claim is later than this engine's previous one).
  SharedWire* shared_ = nullptr;
  Ring<Packet> shared_out_;
  std::uint64_t shared_backlog_ = 0;
  Instant shared_empty_told_ = kNever;  // the wire's free instant the AQM was told was idle

  QueueStats stats_;
};

// The per-packet path of scheduling at admission, inline (the pipeline's direct path).

inline void QueueStage::settle_until(Instant now) {
  sched_.settle(now, [this](const ScheduledBacklog::Entry& e) {
    bytes_[0] -= e.bytes;
    bytes_total_ -= e.bytes;
    --packets_total_;
    if (packets_total_ == 0) {  // the single queue's view.packets[0]
      aqm_.on_queue_empty(e.start);
    }
  });
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
  if (!events && sched_.empty() && aqm_.pass_at_empty(now)) {
    return true;
  }
  const AqmVerdict v = aqm_.on_enqueue(p, events ? view(now) : scheduled_view(now), now);
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
  if (shared_ != nullptr) [[unlikely]] {
    const Admission a = push_shared(p, now, out);
    if (a == Admission::kScheduled && events) {
      // Frames admitted the event way wait for their departures (a phase just removed this
      // engine's bursts): this one leaves after them, as they do, not ahead of them.
      shared_out_.push_back(std::move(p));
      return Admission::kHeld;
    }
    return a;
  }
  // Admission neither holds p nor serves anything, so `events` stays true to the queue.
  if (!admit(p, now, events, out)) {
    return Admission::kDropped;
  }
  if (schedulable_ && !events) [[likely]] {
    const Instant start = std::max(now, sched_.wire_free());
    const Duration tx = rate_.transmit_time(p.size_bytes, start);
    const Instant departure = start + tx;
    // Its departure (and so its arrival downstream) must happen under the settings in force.
    if (departure < horizon) [[likely]] {
      const std::uint32_t size = p.size_bytes;
      stats_.max_queue_bytes = std::max(stats_.max_queue_bytes, bytes_total_ + size);
      if (sched_.add(now, start, departure, size)) {  // behind others: queued until `start`
        bytes_[0] += size;
        bytes_total_ += size;
        ++packets_total_;
      } else {
        // An idle wire: it starts now, and nothing is queued (the wire would be busy), so the
        // queue is empty behind it. What settle() would do at once, without the round trip.
        aqm_.on_queue_empty(now);
      }
      note_departure(size, departure, tx);
      p.time = departure;
      return Admission::kScheduled;
    }
  }
  return hold_for_events(p, now, out);
}

}  // namespace gw
