// Propagation delay, jitter (uniform or table-distributed, optionally correlated) and netem's
// gap-based reordering, as one stage.
//
// Sources: Linux net/sched/sch_netem.c (netem_enqueue, tabledist, get_crandom, tfifo_enqueue),
// iproute2 tc/q_netem.c, tc-netem(8); docs/references.md §1.
//
// Per packet, at arrival `now` (netem_enqueue):
//  1. Reorder (netem `reorder P [CORR] [gap N]`, ReorderPolicy::kNetem only): if gap > 0 and the
//     counter of packets delayed since the last reordered one has reached gap - 1, draw from the
//     reorder generator; with probability P the packet is sent at once (time_to_send = now,
//     counter = 0) ahead of everything held. Otherwise it is delayed as below and counter++.
//     As tc does, a reorder probability given without a gap means gap 1 (every packet is a
//     candidate).
//  2. Delay: time_to_send = now + delay + sample, where sample (tabledist) is, when jitter > 0,
//       uniform:  (u % (2 * jitter)) - jitter, i.e. integer ns in [-jitter, jitter - 1]
//       table:    netem_table_offset(jitter, table[u % size])  (= jitter * t / 8192, rounded)
//     with u from the delay's correlated generator. A negative total delay is clamped to 0.
//  3. Release in time_to_send order, ties in arrival order (netem's tfifo rbtree sends equal
//     times first-in first-out), so jitter larger than the packet spacing reorders, as in the
//     kernel. Under ReorderPolicy::kPreserve time_to_send is raised to the latest time_to_send
//     already given, so packets never overtake each other and jitter turns into added delay;
//     the explicit `reorder` is then NOT applied (no draws, no counter): it would contradict the
//     policy, which exists to model paths that do not reorder.
//
// Deviations from the kernel, all outside what tc lets one configure exactly:
//  - jitter is 64-bit ns; the kernel truncates it to s32 in tabledist and computes the uniform
//    range in u32, so jitter >= 2^31 ns misbehaves there. Here, when 2 * jitter > 2^32 the
//    uniform sample maps u by multiply-shift ((u * 2 jitter) >> 32) instead of modulo.
//  - Probabilities compare u < p * 2^32 (correlated.h) instead of u <= rint(p * (2^32 - 1)).
//  - The first `last` of each correlated generator comes from the stage's seeded stream, not
//    from get_random_u32(), so runs are reproducible.
//  - A packet with zero delay (after clamping) is emitted inside push() when nothing held is
//    due at or before it; netem would queue it and send it at the next dequeue.
//
// Cost: O(log n) per packet in the number of held packets (a binary heap of small keys over a
// slab of packets; packets themselves never move inside the heap).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/rate.h"  // u128
#include "core/ring.h"
#include "core/rng.h"
#include "core/time.h"
#include "emulator/engine/correlated.h"
#include "emulator/engine/distribution.h"
#include "emulator/engine/flow_streams.h"
#include "emulator/engine/release_calendar.h"
#include "emulator/engine/shared_wire.h"
#include "emulator/engine/spec.h"
#include "emulator/engine/stage.h"

namespace gw {

// The jitter sample netem's tabledist adds to the base delay for one draw `u`, in ns: 0 when
// jitter is 0; uniform over [-jitter, jitter - 1] when `table` is empty; else the table entry
// u % size scaled by jitter / 8192 with netem's rounding.
std::int64_t netem_jitter_sample(std::uint32_t u, Duration jitter, const std::vector<std::int16_t>& table);

class DelayStage final : public Stage {
 public:
  // `seed` is the profile seed and `stream` this stage's stream name (Rng); `flow_stream` and
  // `flows`: per-flow streams (flow_streams.h), off by default. With them each flow has its
  // own jitter and reorder draws and its own netem reorder counter (gap); the preserve
  // policy's floor stays one per stage (or shared), as it orders the link.
  DelayStage(const DelaySettings& settings, std::uint64_t seed, const std::string& stream,
             const std::string& flow_stream = {}, const FlowStreamSettings& flows = {});

  // New settings (a phase change or a reload). Held packets keep their release times; the
  // random stream, the correlation state and the reorder counter carry on.
  void set_settings(const DelaySettings& settings);

  // Under the preserve policy with jitter, the floor of time_to_send is `order`'s, shared with
  // other engines' delay stages (the emulator's queues, shared_wire.h), instead of this
  // stage's own. Without jitter a queue's packets keep their order by themselves and the floor
  // stays this stage's.
  void share_order(SharedOrder* order) { shared_order_ = order; }

  void push(Packet&& p, Instant now, StageOutput& out) override;
  // p arrives at p.time > now, known in advance (a bottleneck that computed its departure at
  // admission, queue_stage.h): the same as push(p, p.time, out) at that instant, done now.
  // Nothing is emitted before p.time: a packet that would leave at once is held until then.
  // The caller guarantees that the settings do not change before p.time and that p.time is
  // not before the arrival of any packet pushed earlier.
  void push_ahead(Packet&& p, Instant now);
  Instant next_wakeup() const override {
    const Instant a = overtaken_ && !overtaken_->empty() ? overtaken_->top().at : kNever;
    const Instant b = in_order_.empty() ? kNever : in_order_.front().at;
    const Instant c = a < b ? a : b;
    return pending_earliest_ < c ? pending_earliest_ : c;
  }
  void pull(Instant now, StageOutput& out) override;
  // The packet release_until() would hand on first: the earlier of the in-order FIFO's front
  // and the calendar's top (on equal times the one that arrived first).
  NextRelease peek_next() const override;
  // pull() for every instant up to `now` at once, handing each packet due, in release order
  // with p.time set, to f(Packet&) (which moves it on). The pipeline's direct path uses it.
  template <typename F>
  void release_until(Instant now, F&& f);
  std::uint64_t held_packets() const override {
    return (overtaken_ ? overtaken_->size() : 0) + in_order_.size() + pending_n_;
  }
  std::uint64_t held_bytes() const override { return held_bytes_; }
  std::string name() const override { return "delay"; }
  std::uint64_t flows() const { return draws_.flows(); }
  std::uint64_t flow_table_misses() const { return draws_.full_misses(); }

 private:
  // Settings converted to the integers the per-packet path uses.
  struct Params {
    Duration delay{0};
    Duration jitter{0};
    std::vector<std::int16_t> table;  // empty = uniform
    ReorderPolicy policy = ReorderPolicy::kNetem;
    std::uint64_t reorder_threshold = 0;  // scaled_probability(reorder_p)
    std::uint32_t gap = 0;                // 0 = no reordering
    // The jitter sample's `u % d` (d = table size, or 2 * jitter when below 2^32) without a
    // division: Lemire's fastmod, exact for 32-bit u and d (mod_m = 2^64 / d, rounded up).
    // jitter = sigma_q * kNetemDistScale + sigma_r, for netem_table_offset without divisions.
    std::int64_t sigma_q = 0;
    std::int64_t sigma_r = 0;
    bool fast_mod = false;
    std::uint32_t mod_d = 1;
    std::uint64_t mod_m = 0;
    double correlation = 0;  // what a new flow's generators start with
    double reorder_correlation = 0;
  };
  // What the jitter and reorder draws come from: the stage's, or one flow's.
  struct Draws {
    Rng rng;
    CorrelatedUniform delay_cor;
    CorrelatedUniform reorder_cor;
    std::uint32_t counter = 0;  // netem q->counter: packets delayed since the last reordered one
  };
  Draws fresh(Rng rng) const;
  Draws& draws_of(const Packet& p) {
    return draws_.of(p, [this](Rng rng) { return fresh(rng); });
  }
  using Held = Release;  // time_to_send, arrival order at this stage, index into slots_

  static Params params_from(const DelaySettings& s);
  std::int64_t jitter_sample(std::uint32_t u) const;
  bool reorder_now(Draws& d);
  Instant time_to_send(Instant now, Draws& d);
  void hold(Packet&& p, Instant at, Instant now);
  void hold_overtaking(Packet&& p, Instant at, std::uint64_t seq, Instant now);
  // Overtaking packets reach the calendar kPending holds after their own, with the bucket they
  // go to prefetched when they came (ReleaseCalendar::prefetch): a push writes a random bucket,
  // and measured on net_null with netem's reordering jitter, that first access was most of
  // the time a packet spent in this stage. The calendar, and so the stage, releases them
  // exactly as if pushed at once: the calendar orders by (release time, seq), whatever the
  // order of pushes, and whatever reads it takes the pending ones in first (flush_pending)
  // unless they cannot matter: next_wakeup() counts their earliest time, release_until()
  // takes them in when that is due.
  void flush_pending() const;

  Params params_;
  StageDraws<Draws> draws_;
  Instant latest_ = Instant::min();  // latest time_to_send handed out (kPreserve's floor)
  SharedOrder* shared_order_ = nullptr;
  std::uint64_t next_seq_ = 0;
  // Packets that overtook the in-order run (jitter under the netem policy), made on first use.
  mutable std::optional<ReleaseCalendar> overtaken_;  // top() sorts a bucket: logically const
  // Packets whose time_to_send did not go back: a sorted FIFO holding the packets themselves
  // (one copy in, handed on in place). Each record is two whole cache lines: with ~20,000
  // packets held (25 ms at 9 Gbit/s) the ring is far larger than the caches, so the store of a
  // new record and the load of a released one miss; a record straddling lines costs a third
  // miss, and a store split across two lines stalls (measured: 21 % of the direct path's time
  // was one such store before).
  struct alignas(64) InOrder {
    Packet packet;
    Instant at;
    std::uint64_t seq;
  };
  static_assert(sizeof(InOrder) == 128);
  // Records are written and read in ring order, one per packet at each end, so the one
  // kPrefetchAhead places on is fetched ahead (both lines; a hint, never a fault): ~4 packets
  // is a few hundred ns at the rates where the ring outgrows the caches, a memory latency.
  static constexpr std::size_t kPrefetchAhead = 4;
  static void prefetch_record(const void* r) {
    __builtin_prefetch(r, 1);
    __builtin_prefetch(static_cast<const char*>(r) + 64, 1);
  }
  Ring<InOrder> in_order_;
  std::vector<Packet> slots_;  // packets in overtaken_, by Held::slot
  std::vector<std::uint32_t> free_slots_;
  std::uint64_t prefetched_bucket_ = 0;  // overtaken_->buckets_sorted() when slots were prefetched
  struct Pending {
    Held held;
    Instant now;  // when it was held (the calendar's push takes it)
  };
  static constexpr std::size_t kPending = 8;
  mutable std::array<Pending, kPending> pending_{};  // a ring: oldest at pending_head_
  mutable std::size_t pending_head_ = 0;
  mutable std::size_t pending_n_ = 0;
  mutable Instant pending_earliest_ = kNever;  // the earliest release among them
  std::uint64_t held_bytes_ = 0;
};

inline NextRelease DelayStage::peek_next() const {
  flush_pending();
  const bool fifo = !in_order_.empty();
  const bool heap = overtaken_ && !overtaken_->empty();
  if (!fifo && !heap) {
    return {};
  }
  if (fifo && (!heap || std::pair(in_order_.front().at, in_order_.front().seq) <
                            std::pair(overtaken_->top().at, overtaken_->top().seq))) {
    return {in_order_.front().at, &in_order_.front().packet};
  }
  const Held& h = overtaken_->top();
  return {h.at, &slots_[h.slot]};
}

template <typename F>
void DelayStage::release_until(Instant now, F&& f) {
  if (pending_earliest_ <= now) [[unlikely]] {
    flush_pending();
  }
  for (;;) {
    const bool fifo_ready = !in_order_.empty() && in_order_.front().at <= now;
    const bool heap_ready = overtaken_ && !overtaken_->empty() && overtaken_->top().at <= now;
    if (!fifo_ready && !heap_ready) {
      return;
    }
    // The earlier of the two heads; on equal times the one that arrived first (seq). Each is
    // handed on in place (the next stage copies what it keeps) and its place is free again
    // once f returns: nothing f does pushes into this stage, so the reference holds.
    if (fifo_ready && (!heap_ready || std::pair(in_order_.front().at, in_order_.front().seq) <
                                          std::pair(overtaken_->top().at, overtaken_->top().seq))) {
      InOrder& e = in_order_.front();
      prefetch_record(in_order_.front_ahead(kPrefetchAhead));
      held_bytes_ -= e.packet.size_bytes;
      e.packet.time = e.at;
      f(e.packet);
      in_order_.pop_discard();
    } else {
      const Held h = overtaken_->top();
      if (overtaken_->buckets_sorted() != prefetched_bucket_) [[unlikely]] {
        // A new earliest bucket: its packets (scattered in slots_, cold) leave next, so their
        // misses overlap instead of coming one per release; so do the next bucket's, which
        // then arrive a bucket ahead of their release (measured with netem's reordering
        // jitter on net_null, the first read of a released packet was most of this loop).
        prefetched_bucket_ = overtaken_->buckets_sorted();
        for (const Held& e : overtaken_->sorted_bucket()) {
          prefetch_record(&slots_[e.slot]);
        }
        for (const Held& e : overtaken_->next_bucket()) {
          prefetch_record(&slots_[e.slot]);
        }
      }
      overtaken_->pop();
      Packet& p = slots_[h.slot];
      held_bytes_ -= p.size_bytes;
      p.time = h.at;
      f(p);
      free_slots_.push_back(h.slot);
    }
  }
}

// The per-packet path, inline: the pipeline's direct path calls it for every packet.

inline std::int64_t DelayStage::jitter_sample(std::uint32_t u) const {
  if (!params_.fast_mod) {
    return netem_jitter_sample(u, params_.jitter, params_.table);
  }
  const std::uint64_t low = params_.mod_m * u;
  const auto r = static_cast<std::uint32_t>((static_cast<u128>(low) * params_.mod_d) >> 64);
  if (!params_.table.empty()) {
    // netem_table_offset(jitter, t) with the jitter's split by the scale computed once.
    const std::int64_t t = params_.table[r];
    std::int64_t x = params_.sigma_r * t;
    x += x >= 0 ? kNetemDistScale / 2 : -kNetemDistScale / 2;
    return x / kNetemDistScale + params_.sigma_q * t;
  }
  return static_cast<std::int64_t>(r) - params_.jitter.count();
}

// sch_netem.c netem_enqueue: `q->gap == 0 || q->counter < q->gap - 1 || q->reorder <
// get_crandom(&q->reorder_cor)` delays the packet; otherwise it is sent at once. The draw
// happens only when the first two tests fail, as C's short-circuit does.
inline bool DelayStage::reorder_now(Draws& d) {
  if (params_.policy != ReorderPolicy::kNetem || params_.gap == 0 || d.counter < params_.gap - 1) {
    return false;
  }
  return chance(d.reorder_cor.next(d.rng), params_.reorder_threshold);
}

inline Instant DelayStage::time_to_send(Instant now, Draws& d) {
  std::int64_t delay = params_.delay.count();
  if (params_.jitter.count() != 0) {  // tabledist draws nothing when sigma == 0
    delay += jitter_sample(d.delay_cor.next(d.rng));
  }
  Instant at = now + Duration{std::max<std::int64_t>(delay, 0)};
  if (params_.policy == ReorderPolicy::kPreserve) {
    at = std::max(at, latest_);
    if (shared_order_ != nullptr && params_.jitter.count() != 0) {
      at = shared_order_->raise(at);
    }
  }
  return at;
}

inline void DelayStage::hold(Packet&& p, Instant at, Instant now) {
  held_bytes_ += p.size_bytes;
  const std::uint64_t seq = next_seq_++;
  // Packets that come due no earlier than the last one in order go to a FIFO (O(1)); only
  // those that overtake it (jitter under the netem policy) pay for the calendar.
  if (in_order_.empty() || in_order_.back().at <= at) [[likely]] {
    InOrder& e = in_order_.push_slot();
    prefetch_record(in_order_.back_ahead(kPrefetchAhead));
    e.at = at;
    e.seq = seq;
    e.packet = p;
    return;
  }
  hold_overtaking(std::move(p), at, seq, now);
}

[[gnu::always_inline]] inline void DelayStage::push_ahead(Packet&& p, Instant now) {
  const Instant arrival = p.time;
  // As push() at `arrival`, except that what push() would emit at once is held until then;
  // it is released at `arrival` after what is held for the same instant, as it would be.
  Draws& d = draws_of(p);
  if (reorder_now(d)) {
    d.counter = 0;
    hold(std::move(p), arrival, now);
    return;
  }
  const Instant at = time_to_send(arrival, d);
  ++d.counter;
  latest_ = std::max(latest_, at);
  hold(std::move(p), at, now);
}

}  // namespace gw
