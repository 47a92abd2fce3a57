#include "emulator/dpdk/forwarder.h"

#include <pthread.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <sched.h>
#include <sys/prctl.h>

#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_prefetch.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <thread>
#include <vector>

#include "core/errors.h"
#include "emulator/dpdk/capture.h"
#include "emulator/dpdk/exchange.h"
#include "emulator/dpdk/frame_store.h"
#include "emulator/dpdk/int_stamp.h"
#include "emulator/dpdk/mbuf_frame.h"
#include "emulator/engine/engine.h"
#include "emulator/engine/headers.h"
#include "emulator/engine/int_pool.h"
#include "emulator/engine/queue_stage.h"

namespace gw {
namespace {

constexpr std::uint16_t kBurst = 32;

// A class pipeline's counters as the stats report them.
ClassStats class_stats(const DirectionEngine::ClassView& c) {
  const PipelineCounters& pc = c.pipeline->counters();
  ClassStats cs;
  cs.name = c.name;
  cs.packets_in = pc.packets_in;
  cs.bytes_in = pc.bytes_in;
  cs.delivered = pc.delivered;
  cs.bytes_delivered = pc.bytes_delivered;
  cs.dropped = pc.dropped;
  cs.duplicated = pc.duplicated;
  cs.corrupted = pc.corrupted;
  cs.marked_ce = pc.marked_ce;
  cs.queue_bytes = c.pipeline->queue_bytes();
  cs.cross_traffic_packets = pc.synthetic_in;
  cs.cross_traffic_dropped = pc.synthetic_dropped;
  cs.flows = c.pipeline->flow_entries();
  cs.flow_table_misses = c.pipeline->flow_table_misses();
  return cs;
}

std::int64_t wall_clock_ns();

// TSC ticks since the start of the run as the engine's Instant, read once per loop, and the
// wall-clock time of that start (for capture timestamps).
class TscClock {
 public:
  TscClock() : start_(rte_rdtsc()), hz_(rte_get_tsc_hz()), wall_start_ns_(wall_clock_ns()) {}
  // The run starts now: after the lanes are built, so that what building them costs (the frame
  // stores' page faults) is not counted as forwarding time nor taken from --duration.
  void restart() {
    start_ = rte_rdtsc();
    wall_start_ns_ = wall_clock_ns();
  }
  // The wall-clock time of `t`, in ns since the Unix epoch.
  std::int64_t wall_ns(Instant t) const { return wall_start_ns_ + ns_of(t); }
  Instant now() const {
    const std::uint64_t t = rte_rdtsc() - start_;
    const std::uint64_t ns = (t / hz_) * 1'000'000'000ULL + (t % hz_) * 1'000'000'000ULL / hz_;
    return at_ns(static_cast<std::int64_t>(ns));
  }

 private:
  std::uint64_t start_;
  std::uint64_t hz_;
  std::int64_t wall_start_ns_;
};

// A packet's handle: its mbuf's address, or, for a small frame held as a copy (FrameStore),
// the slot shifted left with the low bit set (an mbuf is cache-line aligned: never odd).
bool is_copy(std::uint64_t h) {
  return (h & 1U) != 0;
}
std::uint32_t slot_of(std::uint64_t h) {
  return static_cast<std::uint32_t>(h >> 1);
}
std::uint64_t copy_handle(std::uint32_t slot) {
  return (std::uint64_t{slot} << 1) | 1U;
}
rte_mbuf* mbuf_of(std::uint64_t h) {
  return reinterpret_cast<rte_mbuf*>(h);
}

std::span<std::uint8_t> first_segment(rte_mbuf* m) {
  return {rte_pktmbuf_mtod(m, std::uint8_t*), rte_pktmbuf_data_len(m)};
}

// Reads one byte of every cache line of [p, p + bytes): unlike a prefetch, which the CPU may
// drop on a TLB miss, this loads the lines and the page's translation for sure.
void touch(const void* p, std::size_t bytes) {
  const auto* b = static_cast<const volatile std::uint8_t*>(p);
  for (std::size_t i = 0; i < bytes; i += RTE_CACHE_LINE_SIZE) {
    (void)b[i];
  }
  (void)b[bytes - 1];
}

// One direction's output: takes what the engine releases and sends it on the egress port.
//
// The engine releases a frame only when it is due (PacketSink::deliver is called from
// DirectionEngine::push/advance with p.time <= now), so what it hands over between two
// transmit_due() calls is all due: a FIFO of small records (mbuf, times, changes to make)
// keeps them in release order, and the Packet record itself is not kept. deliver() does not
// touch the mbuf (cold: it was received a delay ago), only prefetches the engine's record of
// the frame after it (DirectionEngine::peek_next); the mbuf is read and changed in
// transmit_due(), a burst at a time, after the whole burst's headers were prefetched, so the
// cache misses of a burst overlap instead of following one another.
//
// Duplicates share the original's mbuf: each packet made from a frame holds one reference
// (rte_mbuf refcnt = 1 + copies made), and a packet that is not the last holder takes a
// private copy before it changes bytes or is sent. The duplicate stage makes its copies during
// the frame's push (it follows the loss stage, which holds nothing: pipeline.h), so what the
// engine releases of the frame being pushed is deferred until the push is over and the number
// of copies is known.
class TxSink final : public PacketSink {
 public:
  TxSink(DirectionStats& s, std::uint16_t ingress, std::uint16_t egress, std::uint16_t queue,
         const ForwarderOptions& o, CaptureRing* capture, const TscClock& clock)
      : s_(s),
        ingress_(ingress),
        egress_(egress),
        txq_(queue),
        pool_(o.pool),
        int_dscp_(o.int_dscp),
        capture_(capture),
        clock_(clock),
        store_(o.copy_slots) {
    fifo_.resize(1024);
  }

  // The engine whose releases this sink takes (for peeking at the next one; null = none).
  void set_engine(DirectionEngine* e) { engine_ = e; }

  // Before the next release is due (the loop spins towards it, after a nap): loads what
  // releasing the next frame will read first, so that the release does not begin with cache
  // and TLB misses: the engine's record of it, its mbuf's two header lines and first data
  // line, and this sink's next FIFO slot. Nothing else to do meanwhile, so loads, not hints.
  // A frame held as a copy is first copied into an mbuf, which the engine holds instead
  // (DirectionEngine::rehandle_next): the release then sends that mbuf as any other, instead of
  // taking a fresh one and copying into it, a path whose code, mempool cache and lines would be
  // cold after the wait. Measured on the ping bench (98-byte frames, all held as copies): p50
  // delay error <= 2 us before, against <= 250-500 ns for frames held in their mbufs.
  void warm() {
    const NextRelease n = engine_->peek_next();
    if (n.packet == nullptr) {
      return;
    }
    touch(n.packet, sizeof(Packet));
    std::uint64_t h = n.packet->handle;
    if (is_copy(h) && store_.references(slot_of(h)) == 1) {  // not shared with a duplicate
      rte_mbuf* m = rte_pktmbuf_alloc(pool_);
      if (m != nullptr) {
        copy_out(slot_of(h), m);
        h = reinterpret_cast<std::uint64_t>(m);
        engine_->rehandle_next(h);
      }
    }
    if (is_copy(h)) {
      touch(store_.data(slot_of(h)), RTE_CACHE_LINE_SIZE);
    } else {
      const rte_mbuf* m = mbuf_of(h);
      touch(m, 2 * RTE_CACHE_LINE_SIZE);
      touch(rte_pktmbuf_mtod(m, const void*), RTE_CACHE_LINE_SIZE);
    }
    touch(&fifo_[tail_ & (fifo_.size() - 1)], sizeof(Due));
    touch(this, sizeof(*this));
    touch(&s_, sizeof(s_));  // the counters a release adds to (the classes vector is not)
  }

  // The handle a frame entering the engine gets: a copy in the store when it is small, in one
  // segment and the store has room, else its mbuf (FrameStore). A copied frame's mbuf is
  // added to `spent`, for the caller to free with the rest of its burst (one bulk free).
  std::uint64_t keep(rte_mbuf* m, rte_mbuf** spent, std::uint16_t& n_spent) {
    const std::uint32_t len = rte_pktmbuf_pkt_len(m);
    if (len <= FrameStore::kSlotBytes && m->nb_segs == 1 &&
        (m->ol_flags & (RTE_MBUF_F_RX_VLAN_STRIPPED | RTE_MBUF_F_RX_QINQ_STRIPPED)) == 0) {
      const std::uint32_t slot = store_.put(rte_pktmbuf_mtod(m, const void*), len);
      if (slot != FrameStore::kNone) {
        spent[n_spent++] = m;
        ++s_.held_as_copies;
        return copy_handle(slot);
      }
    }
    return reinterpret_cast<std::uint64_t>(m);
  }

  void begin_push(std::uint64_t handle) {
    pushing_ = handle;
    copies_ = 0;
    deferring_ = false;
  }

  // The duplicate stage made a copy of the frame being pushed (it never copies at any other
  // time: it holds nothing). Counted here rather than by diffing the engine's totals per frame.
  void duplicated(Packet& copy) override {
    ++copies_;
    if (copy.telemetry != nullptr) {
      copy.telemetry = int_stacks_.take_copy(*copy.telemetry);
    }
  }

  // A telemetry stack for a frame entering an engine that stamps INT; back at its release.
  IntStack* int_stack() { return int_stacks_.take(); }

  void end_push() {
    const std::uint64_t copies = copies_;
    if (copies > 0) {
      if (is_copy(pushing_)) {
        store_.add_refs(slot_of(pushing_), static_cast<std::uint32_t>(copies));
      } else {
        rte_mbuf_refcnt_update(mbuf_of(pushing_), static_cast<std::int16_t>(copies));
      }
      s_.duplicates += copies;
    }
    pushing_ = 0;
    if (!deferring_) {
      return;
    }
    deferring_ = false;
    for (Deferred& d : deferred_) {
      if (d.drop) {
        dropped(std::move(d.p), d.cause);
      } else {
        deliver(std::move(d.p));
      }
    }
    deferred_.clear();
  }

  void deliver(Packet&& p) override {
    // The engine's record of the frames after this one is already on its way: the delay stage
    // prefetches its ring ahead of what it releases (DelayStage::release_until).
    std::uint64_t h = p.handle;
    // The frame being pushed may still get copies (its reference count is set at end_push):
    // a release of it that touches the buffer (telemetry), or any release after a deferred
    // one (order), waits for end_push. A plain release only queues the handle: the buffer is
    // touched in transmit_due(), after the push.
    if (h == pushing_ && (deferring_ || p.telemetry != nullptr)) {
      deferring_ = true;
      deferred_.push_back({std::move(p), false, DropCause::kCount});
      return;
    }
    if (shutting_down_) {
      free_handle(h);
      int_stacks_.give(p.telemetry);
      ++s_.dropped[static_cast<std::size_t>(DropCause::kShutdown)];
      return;
    }
    if (p.telemetry != nullptr) {
      // The stack is not kept past this call: stamp now (rare: INT profiles).
      if (p.telemetry->hops > 0) {
        rte_mbuf* m = own_mbuf(h);
        if (m != nullptr) {
          stamp(m, *p.telemetry);
        }
        h = reinterpret_cast<std::uint64_t>(m);
      }
      int_stacks_.give(p.telemetry);
      if (h == 0) {
        return;
      }
    }
    if (tail_ - head_ == fifo_.size()) {
      grow();
    }
    // Field by field: a Due built on the stack and copied whole stalls on store forwarding.
    Due& d = fifo_[tail_++ & (fifo_.size() - 1)];
    d.time = p.time;
    d.arrival = p.arrival;
    d.h = h;
    d.corrupt_bit = p.corrupt_bit;
    d.ce = p.ce_marked;
  }

  void dropped(Packet&& p, DropCause cause) override {
    if (p.handle == pushing_) {
      deferring_ = true;
      deferred_.push_back({std::move(p), true, cause});
      return;
    }
    free_handle(p.handle);
    int_stacks_.give(p.telemetry);
    ++s_.dropped[static_cast<std::size_t>(cause)];
  }

  // Sends every frame due at or before `now` in release order. A frame the tx queue refuses is
  // freed and counted as tx_full: retrying would hold up both directions' polling. Each frame
  // sent adds (TSC just before its tx burst - intended release) to the delay-error histogram;
  // the capture copies the bytes before the burst (the driver owns the mbuf after it) and keeps
  // the frames sent.
  void transmit_due(Instant now) {
    while (head_ != tail_ && at(head_).time <= now) {
      std::uint16_t n = 0;
      std::uint16_t copies = 0;
      std::array<const Due*, kBurst> due;  // filled before use: no zeroing per burst
      while (n < kBurst && head_ + n != tail_ && at(head_ + n).time <= now) {
        due[n] = &at(head_ + n);
        if (is_copy(due[n]->h)) {
          store_.prefetch(slot_of(due[n]->h));
          ++copies;
        } else {
          rte_mbuf_prefetch_part1(mbuf_of(due[n]->h));
          rte_mbuf_prefetch_part2(mbuf_of(due[n]->h));
        }
        ++n;
      }
      std::array<rte_mbuf*, kBurst> burst;
      std::array<std::uint32_t, kBurst> bytes;
      std::array<Instant, kBurst> intended;
      // The copies' fresh mbufs in one call (one at a time in own_mbuf() if the pool is short).
      std::array<rte_mbuf*, kBurst> fresh;
      std::uint16_t fresh_left = 0;
      if (copies > 0 && rte_pktmbuf_alloc_bulk(pool_, fresh.data(), copies) == 0) {
        fresh_left = copies;
      }
      std::uint16_t ready = 0;
      for (std::uint16_t i = 0; i < n; ++i) {
        rte_mbuf* spare = nullptr;
        if (fresh_left > 0 && is_copy(due[i]->h)) {
          spare = fresh[--fresh_left];
        }
        rte_mbuf* m = prepare(*due[i], spare);
        if (m != nullptr) {
          rte_prefetch0(rte_pktmbuf_mtod(m, void*));
          burst[ready] = m;
          bytes[ready] = rte_pktmbuf_pkt_len(m);
          intended[ready] = due[i]->time;
          ++ready;
        }
      }
      current_delay_ns_ = ns_of(due[n - 1]->time) - ns_of(due[n - 1]->arrival);
      head_ += n;
      if (ready == 0) {
        continue;
      }
      const Instant t = clock_.now();
      const std::uint16_t sent = send_burst(burst.data(), bytes.data(), ready, t);
      for (std::uint16_t i = 0; i < sent; ++i) {
        s_.delay_error.add(ns_of(t) - ns_of(intended[i]));
      }
    }
  }

  // The frames of an rx burst that the engine would hand over untouched at `now`
  // (DirectionEngine::passes_through) while nothing waits here: sent at once, counted as
  // deliver() and transmit_due() would count them. `bytes[i]`: frame i's length.
  void send_now(rte_mbuf** frames, const std::uint32_t* bytes, std::uint16_t n, Instant now) {
    const Instant t = clock_.now();
    const std::uint16_t sent = send_burst(frames, bytes, n, t);
    s_.delay_error.add(ns_of(t) - ns_of(now), sent);
    current_delay_ns_ = 0;
  }

  // From now on, what the engine releases is freed as kShutdown; so is what waits here.
  void shut_down() {
    shutting_down_ = true;
    for (; head_ != tail_; ++head_) {
      free_handle(at(head_).h);
      ++s_.dropped[static_cast<std::size_t>(DropCause::kShutdown)];
    }
  }

  std::size_t waiting() const { return tail_ - head_; }
  std::int64_t current_delay_ns() const { return current_delay_ns_; }
  Instant next_due() const { return head_ == tail_ ? kNever : at(head_).time; }

 private:
  struct Due {
    Instant time;     // intended release
    Instant arrival;  // when it entered the engine
    std::uint64_t h;  // the frame: an mbuf or a copy (is_copy)
    std::uint32_t corrupt_bit;
    bool ce;
  };
  struct Deferred {
    Packet p;
    bool drop;
    DropCause cause;
  };

  const Due& at(std::size_t i) const { return fifo_[i & (fifo_.size() - 1)]; }

  void grow() {
    std::vector<Due> bigger(fifo_.size() * 2);
    for (std::size_t i = head_; i != tail_; ++i) {
      bigger[i - head_] = at(i);
    }
    tail_ -= head_;
    head_ = 0;
    fifo_ = std::move(bigger);
  }

  // One tx burst at `t` (the capture copies the bytes first: the driver owns the mbufs after
  // it); frames the tx queue refused are freed and counted as tx_full. Returns how many went.
  std::uint16_t send_burst(rte_mbuf** frames, const std::uint32_t* bytes, std::uint16_t n, Instant t) {
    if (capture_ != nullptr) {
      for (std::uint16_t i = 0; i < n; ++i) {
        const auto f = first_segment(frames[i]);
        capture_->stage(f.data(), static_cast<std::uint32_t>(f.size()), bytes[i], clock_.wall_ns(t));
      }
    }
    const std::uint16_t sent = rte_eth_tx_burst(egress_, txq_, frames, n);
    if (capture_ != nullptr) {
      capture_->commit(sent);
    }
    for (std::uint16_t i = 0; i < n; ++i) {
      if (i < sent) {
        s_.sent_bytes += bytes[i];
      } else {
        ++s_.tx_full;
        rte_pktmbuf_free(frames[i]);
      }
    }
    s_.sent += sent;
    return sent;
  }

  // The frame's mbuf if this packet is its only holder, else a private copy (the reference
  // to the shared one given back); null when no mbuf was left for the copy (counted).
  rte_mbuf* private_mbuf(rte_mbuf* m) {
    if (rte_mbuf_refcnt_read(m) == 1) {
      return m;
    }
    rte_mbuf* copy = rte_pktmbuf_copy(m, pool_, 0, UINT32_MAX);
    rte_pktmbuf_free(m);
    if (copy == nullptr) {
      ++s_.no_mbuf;
    }
    return copy;
  }

  // Gives back a frame that is not sent: its mbuf's reference, or its copy's.
  void free_handle(std::uint64_t h) {
    if (is_copy(h)) {
      store_.release(slot_of(h));
    } else {
      rte_pktmbuf_free(mbuf_of(h));
    }
  }

  // An mbuf this packet alone holds, with the frame's bytes: for a copy a fresh one from the
  // pool (warm: the lcore's mempool cache gives back what was freed last), the copy's reference
  // given back; else private_mbuf(). Null when the pool had none (counted).
  // `fresh`: an mbuf already taken from the pool for a copy (null: take one here).
  rte_mbuf* own_mbuf(std::uint64_t h, rte_mbuf* fresh = nullptr) {
    if (!is_copy(h)) {
      return private_mbuf(mbuf_of(h));
    }
    const std::uint32_t slot = slot_of(h);
    rte_mbuf* m = fresh != nullptr ? fresh : rte_pktmbuf_alloc(pool_);
    if (m != nullptr) {
      copy_out(slot, m);
    } else {
      ++s_.no_mbuf;
      store_.release(slot);
    }
    return m;
  }

  // The frame held in `slot` into the fresh mbuf m, as received; gives back the slot's reference.
  void copy_out(std::uint32_t slot, rte_mbuf* m) {
    const auto len = static_cast<std::uint16_t>(store_.length(slot));
    FrameStore::copy_small(rte_pktmbuf_mtod(m, std::uint8_t*), store_.data(slot), len);
    m->data_len = len;
    m->pkt_len = len;
    m->port = ingress_;
    store_.release(slot);
  }

  // The mbuf to send for `d` with its changes applied; null when it could not be copied.
  rte_mbuf* prepare(const Due& d, rte_mbuf* fresh) {
    rte_mbuf* m = own_mbuf(d.h, fresh);
    if (m == nullptr) {
      return nullptr;
    }
    // Marks before bit errors, as replay does: a bit error on the wire after the last hop.
    if (d.ce && change_headers(m, [](std::span<std::uint8_t> f) { return apply_ce(f); })) {
      ++s_.marked_ce;
    }
    if (d.corrupt_bit != kNoCorruption && flip_frame_bit(m, d.corrupt_bit)) {
      ++s_.corrupted;
    }
    return m;
  }

  void stamp(rte_mbuf* m, const IntStack& t) {
    if (m->nb_segs > 1) {
      ++s_.int_no_room;  // INT needs the frame in one segment
      return;
    }
    auto* buf = static_cast<std::uint8_t*>(m->buf_addr);
    const IntStampResult r =
        stamp_int({buf, static_cast<std::size_t>(m->data_off) + rte_pktmbuf_data_len(m)}, m->data_off,
                  rte_pktmbuf_data_len(m), t, {ingress_, egress_}, int_dscp_);
    switch (r.outcome) {
      case IntOutcome::kStamped:
        ++s_.int_stamped;
        break;
      case IntOutcome::kExceeded:
        ++s_.int_exceeded;
        break;
      case IntOutcome::kMalformed:
        ++s_.int_malformed;
        break;
      case IntOutcome::kNoRoom:
        ++s_.int_no_room;
        break;
      case IntOutcome::kNoInt:
        break;
    }
    if (r.inserted > 0) {
      const auto k = static_cast<std::uint16_t>(r.inserted);
      m->data_off = static_cast<std::uint16_t>(m->data_off - k);
      m->data_len = static_cast<std::uint16_t>(m->data_len + k);
      m->pkt_len += k;
    }
  }

  DirectionStats& s_;
  std::uint16_t ingress_;
  std::uint16_t egress_;
  std::uint16_t txq_;  // the egress port's tx queue: this lane's only
  rte_mempool* pool_;
  std::uint8_t int_dscp_;
  CaptureRing* capture_;
  const TscClock& clock_;
  DirectionEngine* engine_ = nullptr;
  std::int64_t current_delay_ns_ = 0;
  std::uint64_t pushing_ = 0;  // the handle of the frame being pushed
  std::uint64_t copies_ = 0;   // made of pushing_ so far
  bool deferring_ = false;     // releases of pushing_ wait in deferred_ for end_push
  std::vector<Deferred> deferred_;
  IntPool int_stacks_;     // the telemetry stacks of frames in the engine (INT profiles only)
  std::vector<Due> fifo_;  // ring, size a power of two; [head_, tail_) wait, in release order
  FrameStore store_;       // small frames held as copies
  std::size_t head_ = 0;
  std::size_t tail_ = 0;
  bool shutting_down_ = false;
};

// The profile for Lane::warm's engine: the same, less the cross-traffic sources (microbursts,
// incast bursts). That engine's time jumps a whole delay per warm-up, and replaying the
// synthetic bursts of that span would make a warm-up take tens of microseconds.
Profile warm_profile(const Profile& profile) {
  Profile p = profile;
  const auto strip = [](DirectionSpec& d) {
    if (d.queue) {
      d.queue->microbursts.clear();
    }
    if (d.incast) {
      d.incast->bursts.clear();
    }
  };
  strip(p.a_to_b);
  strip(p.b_to_a);
  for (ClassSpec& c : p.classes) {
    strip(c.a_to_b);
    strip(c.b_to_a);
  }
  for (PhaseSpec& ph : p.phases) {
    strip(ph.a_to_b);
    strip(ph.b_to_a);
    for (ClassDirections& c : ph.classes) {
      strip(c.a_to_b);
      strip(c.b_to_a);
    }
  }
  return p;
}

// Where the warm-up engine's packets go (Lane::warm).
class NullSink final : public PacketSink {
 public:
  void deliver(Packet&& /*p*/) override {}
  void dropped(Packet&& /*p*/, DropCause /*cause*/) override {}
};

// One direction's share of one queue pair: rx queue `queue` of its ingress port, tx queue
// `queue` of its egress port, its engine, sink and counters, touched by one lcore only.
struct Lane {
  Lane(const Profile& profile, Direction d, std::uint16_t in, std::uint16_t out, std::uint16_t q,
       SharedWires* wires, const ForwarderOptions& o, CaptureRing* cap_in, CaptureRing* cap_out,
       const TscClock& clock)
      : dir(d),
        ingress(in),
        queue(q),
        engine(profile, d, q, wires),
        warm_engine(warm_profile(profile), d, q),
        sink(stats, in, out, q, o, cap_out, clock),
        capture_in(cap_in),
        tsc(&clock),
        int_on(stamps_int(profile, d)) {
    sink.set_engine(&engine);
  }
  Lane(const Lane&) = delete;
  Lane& operator=(const Lane&) = delete;

  Direction dir;
  std::uint16_t ingress;
  std::uint16_t queue;
  unsigned lcore = 0;  // the lcore that runs it
  DirectionStats stats;
  DirectionEngine engine;
  // A second engine on the same profile (less cross traffic) that only ever sees dummy
  // packets (Lane::warm).
  DirectionEngine warm_engine;
  Instant warm_now = kEpoch;  // its own time, unrelated to the run's
  NullSink warm_sink;
  TxSink sink;
  CaptureRing* capture_in;
  const TscClock* tsc;
  std::shared_ptr<const Profile> reloaded;  // the profile taken from the Exchange, if any
  std::uint64_t generation = 0;
  std::array<rte_mbuf*, kBurst> burst{};  // the last poll()'s frames, not yet pushed
  std::uint16_t polled = 0;
  bool int_on;  // the profile stamps INT in this direction: frames get telemetry stacks

  // Takes one rx burst into the engine at `now`; returns how many frames came.
  // Takes one rx burst from the port; returns how many frames came. They enter the engine
  // with push(), at a time read after the burst: a time read before it could be older than
  // the frames (the lcore may have been preempted in between) and would shorten their delay.
  std::uint16_t poll() {
    polled = rte_eth_rx_burst(ingress, queue, burst.data(), kBurst);
    return polled;
  }

  // The frames of the last poll() enter the engine at `now`.
  void push(Instant now) {
    const std::uint16_t n = polled;
    polled = 0;
    if (n == 0) {
      return;
    }
    if (capture_in != nullptr) {
      for (std::uint16_t i = 0; i < n; ++i) {
        const auto f = first_segment(burst[i]);
        capture_in->stage(f.data(), static_cast<std::uint32_t>(f.size()), rte_pktmbuf_pkt_len(burst[i]),
                          tsc->wall_ns(now));
      }
      capture_in->commit(n);
    }
    if (!int_on && sink.waiting() == 0 && engine.passes_through()) {
      // Nothing in this direction would touch, hold or drop them (an empty profile, or a
      // direction left empty, like the ACK path of many profiles): forwarded as a burst, at
      // testpmd's cost plus the counting, with the same counters and order.
      pass(n, now);
      return;
    }
    std::array<rte_mbuf*, kBurst> spent;  // mbufs of frames held as copies
    std::uint16_t n_spent = 0;
    for (std::uint16_t i = 0; i < n; ++i) {
      rte_mbuf* m = burst[i];
      ++stats.received;
      stats.received_bytes += rte_pktmbuf_pkt_len(m);
      Packet p = packet_of(m, now, stats);
      p.handle = sink.keep(m, spent.data(), n_spent);
      sink.begin_push(p.handle);
      if (int_on) {
        p.telemetry = sink.int_stack();
      }
      engine.push(std::move(p), now, sink);
      sink.end_push();
    }
    if (n_spent > 0) {
      rte_pktmbuf_free_bulk(spent.data(), n_spent);
    }
  }

  void pass(std::uint16_t n, Instant now) {
    std::array<std::uint32_t, kBurst> bytes{};
    std::uint64_t total = 0;
    for (std::uint16_t i = 0; i < n; ++i) {
      const rte_mbuf* m = burst[i];
      bytes[i] = rte_pktmbuf_pkt_len(m);
      total += bytes[i];
      stats.multi_segment += m->nb_segs > 1 ? 1 : 0;
    }
    stats.received += n;
    stats.received_bytes += total;
    engine.passed(n, total);
    sink.send_now(burst.data(), bytes.data(), n, now);
  }

  // While the loop polls towards the next release (after a nap, or busy-polling with nothing
  // coming in): make that release start warm. Measured on the namespace bench (20 ms delay,
  // docs/benchmarks.md "Delay accuracy"), releasing one frame after a 20 ms wait took 2-3 us
  // inside the engine before its sink was even called, against ~80 ns when the code is hot: the
  // engine's release path (pull, release_until, forward, deliver) runs once per frame and its
  // code and page translations are gone by then, while the polling loop only runs the check.
  // So a dummy packet is pushed through a private copy of the engine and released there
  // (same code, none of the run's state, its own time), and the sink loads the real record,
  // mbuf and FIFO slot of the next frame due (TxSink::warm).
  void warm() {
    if (engine.peek_next().packet == nullptr) {
      return;  // nothing held: nothing to make ready for
    }
    sink.warm();
    Packet p;
    p.size_bytes = 64;
    warm_engine.push(std::move(p), warm_now, warm_sink);
    warm_now = warm_engine.drain(warm_sink, warm_now);
  }

  void release(Instant now) {
    engine.advance(now, sink);
    sink.transmit_due(now);
  }

  // A profile offered since the last look takes effect now; packets in flight stay.
  void take_profile(Exchange& ex, Instant now) {
    std::uint64_t g = 0;
    std::shared_ptr<const Profile> p = ex.take(&g);
    if (p) {
      engine.reconfigure(*p, now);
      warm_engine.reconfigure(warm_profile(*p), warm_now);
      int_on = stamps_int(*p, dir);
      reloaded = std::move(p);
    }
    generation = g;
    ex.acknowledge(dir, queue, g);
  }

  void publish(Exchange& ex, bool wait) {
    LaneSnapshot snap;
    snap.stats = stats;
    snap.stats.held = held();
    for (const DirectionEngine::ClassView& c : engine.classes()) {
      snap.stats.classes.push_back(class_stats(c));
      snap.queue_bytes += c.pipeline->queue_bytes();
    }
    snap.current_delay_ns = sink.current_delay_ns();
    snap.profile_generation = generation;
    ex.publish(dir, queue, snap, wait);
  }

  std::uint64_t held() const { return engine.held_packets() + sink.waiting(); }
  Instant next_event() const { return std::min(engine.next_wakeup(), sink.next_due()); }
};

// When idle, how long to sleep so as to wake before the next release. A sleep ends later than
// asked (timer slack, the kernel's wakeup latency, and on a shared machine the wait for a CPU);
// `guard` keeps an estimate of that lateness: twice the latest overshoot, decaying by 1/64 per
// sleep towards kMinGuard. Without it a nap that starts just over `idle_sleep` before a release
// makes that release late by the whole overshoot (the p99 of the delay error was ms-scale).
class IdleNap {
 public:
  explicit IdleNap(Duration idle_sleep) : idle_(idle_sleep) {}

  // How long to sleep now (0 = keep polling): nothing came in, and the next event is more
  // than guard + kMinNap away.
  Duration nap(std::uint16_t received, Instant now, Instant next_event) const {
    if (idle_ <= Duration{0} || received > 0) {
      return Duration{0};
    }
    Duration d = idle_;
    if (next_event != kNever) {
      d = std::min(d, next_event - now - guard_);
    }
    return d >= kMinNap ? d : Duration{0};
  }

  // A sleep of `asked` took `took`.
  void slept(Duration asked, Duration took) {
    const Duration over = std::max(Duration{0}, took - asked);
    guard_ = std::clamp(std::max(2 * over, guard_ - guard_ / 64), kMinGuard, kMaxGuard);
  }

  Duration guard() const { return guard_; }

 private:
  static constexpr Duration kMinNap{std::chrono::microseconds(10)};
  static constexpr Duration kMinGuard{std::chrono::microseconds(20)};
  static constexpr Duration kMaxGuard{std::chrono::milliseconds(5)};
  Duration idle_;
  Duration guard_{std::chrono::microseconds(200)};
};

struct LoopContext {
  const ForwarderOptions* o;
  const std::atomic<bool>* stop;
  const TscClock* clock;
  Instant end;
  std::vector<Lane*> lanes;  // the lanes this lcore runs
  Instant finished{};        // when this lcore's drain ended
  LcoreStats counted{};      // what this lcore's loop did
};

// Lane::warm() runs when nothing came in and the next release is between kWarmStop + the
// learned cost of a warm-up (WarmCost) and kWarmStart away, at most once every kWarmEvery.
constexpr Duration kWarmStop{std::chrono::microseconds(2)};
constexpr Duration kWarmStart{std::chrono::microseconds(50)};
constexpr Duration kWarmEvery{std::chrono::microseconds(5)};
// How long a warm-up (Lane::warm on every lane of the lcore) takes: the longest recent one,
// decaying by 1/64 per warm-up. Measured on the ping bench, the first warm-up after a wait
// takes 8-13 us (it is cold: that is what it is for), rarely 30-55 us, later ones ~1 us; one
// started closer than that to the release made the release late by the rest (5-8 us: one of
// the causes of the delay error's p99 there, with late wakeups and stalls of the lcore), so
// the loop starts none that close and releases cold instead (~1-3 us, release_ahead's advance).
class WarmCost {
 public:
  Duration get() const { return cost_; }
  void took(Duration d) { cost_ = std::clamp(std::max(d, cost_ - cost_ / 64), kMin, kMax); }

 private:
  static constexpr Duration kMin{std::chrono::microseconds(1)};
  // At most this, so that warm-ups still run (between kWarmStop + kMax and kWarmStart) and the
  // estimate, which only moves when one runs, cannot lock them out after one slow warm-up.
  static constexpr Duration kMax{std::chrono::microseconds(20)};
  Duration cost_{std::chrono::microseconds(10)};
};

// When nothing came in and the next event is at most kPrepare away, the loop stops polling rx
// and releases ahead (release_ahead). A frame arriving meanwhile waits in the rx ring for at
// most that long (plus the engine's advance), as it would during a loop or a nap.
constexpr Duration kPrepare = kWarmStop;

// The next event is `next`, a little ahead of `now`, and nothing came in: every engine is
// advanced to `next` now, so what it releases then is in its sink's FIFO before it is due, then
// the lcore spins on the TSC until `next` and sends it. Measured with per-step timestamps
// (docs/benchmarks.md, "Delay accuracy"), a release after 20 ms of polling spent ~1 us in
// engine.advance and the sink's deliver even with Lane::warm, plus up to a loop's period before
// the loop saw it due; both are now before the due instant. The engines see the same calls a
// loop at `next` would make (no frame enters before the spin ends: rx is not polled), so what
// they release, drop and mark is the same; only the work moves ahead. Returns the time after
// the send.
// Not inlined: it runs only when the lcore is idle, and kept out of the loop it leaves the
// loop's code as it was for the forwarding rate.
[[gnu::noinline]] Instant release_ahead(LoopContext& c, Instant next) {
  for (Lane* lane : c.lanes) {
    lane->engine.advance(next, lane->sink);
  }
  Instant now = c.clock->now();
  if (now >= next) {
    ++c.counted.ahead_late;  // the advance itself ran past the release
  }
  while (now < next) {  // no rte_pause(): in a VM a PAUSE loop may make the hypervisor take the CPU
    now = c.clock->now();
  }
  for (Lane* lane : c.lanes) {
    lane->sink.transmit_due(now);
  }
  ++c.counted.ahead;
  return c.clock->now();
}

// The l2fwd-shaped loop over one or two lanes, then the drain; run by one lcore.
void run_lanes(LoopContext& c) {
  // Naps end within ~1 us of their time instead of the default 50 us timer slack (this thread).
  (void)prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  const ForwarderOptions& o = *c.o;
  if (o.rt_priority > 0) {
    sched_param sp{};
    sp.sched_priority = o.rt_priority;
    c.counted.realtime = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
  }
  Exchange* ex = o.exchange;
  Instant now = c.clock->now();
  Instant next_publish = now + o.publish_interval;
  IdleNap idle(o.idle_sleep);
  Instant warmed = kEpoch - kWarmEvery;  // when Lane::warm() last ran
  WarmCost warm_cost;
  while (!c.stop->load(std::memory_order_relaxed) && now < c.end) {
    // Release first: what is due leaves with no rx polling in between (on af_packet a poll of
    // two ports is most of a loop), then take the frames that came.
    for (Lane* lane : c.lanes) {
      lane->release(now);
    }
    std::uint16_t got = 0;
    for (Lane* lane : c.lanes) {
      got = static_cast<std::uint16_t>(got + lane->poll());
    }
    if (got > 0) {
      now = c.clock->now();
    }
    for (Lane* lane : c.lanes) {
      if (ex != nullptr && ex->offered() != lane->generation) {
        lane->take_profile(*ex, now);
      }
      lane->push(now);
    }
    Instant next = kNever;
    if (got == 0) {  // only a nap and the warm-up need it
      for (Lane* lane : c.lanes) {
        next = std::min(next, lane->next_event());
      }
    }
    if (ex != nullptr && now >= next_publish) {
      for (Lane* lane : c.lanes) {
        lane->publish(*ex, false);
      }
      next_publish = now + o.publish_interval;
    }
    const Duration nap = idle.nap(got, now, next);
    ++c.counted.loops;
    if (got == 0 && nap == Duration{0} && next != kNever && next - now > kWarmStop + warm_cost.get() &&
        next - now <= kWarmStart && now - warmed >= kWarmEvery) {
      // Polling towards the next release: make it start warm, but not so close to it that the
      // warm-up would still run when it is due (the last stretch is release_ahead's), and not
      // every loop (a frame arriving waits in the rx ring meanwhile).
      for (Lane* lane : c.lanes) {
        lane->warm();
      }
      warmed = now;
      now = c.clock->now();
      warm_cost.took(now - warmed);
    }
    if (got == 0 && next != kNever && next > now && next - now <= kPrepare) {
      now = release_ahead(c, next);
    } else if (nap > Duration{0}) {
      const Instant before = c.clock->now();
      std::this_thread::sleep_for(nap);
      now = c.clock->now();
      idle.slept(nap, now - before);
      ++c.counted.naps;
      c.counted.nap_ns += ns_of(now) - ns_of(before);
      c.counted.nap_guard_ns = idle.guard().count();
    } else {
      now = c.clock->now();
    }
  }

  // Drain: no more rx; keep sending what is held at its time, within the drain window.
  const Instant drain_end = now + o.drain;
  const auto holding = [&] {
    return std::any_of(c.lanes.begin(), c.lanes.end(), [](const Lane* l) { return l->held() > 0; });
  };
  while (now < drain_end && holding()) {
    for (Lane* lane : c.lanes) {
      lane->release(now);
    }
    now = c.clock->now();
  }
  for (Lane* lane : c.lanes) {
    lane->sink.shut_down();
    lane->engine.drain(lane->sink, now);
    lane->stats.held = lane->held();
    if (ex != nullptr) {
      lane->publish(*ex, true);
    }
  }
  c.finished = c.clock->now();
}

int lane_lcore_main(void* arg) {
  run_lanes(*static_cast<LoopContext*>(arg));
  return 0;
}

std::int64_t wall_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

DirectionStats final_stats(const Lane& lane) {
  DirectionStats s = lane.stats;
  for (const DirectionEngine::ClassView& c : lane.engine.classes()) {
    s.classes.push_back(class_stats(c));
  }
  return s;
}

}  // namespace

void check_queues_can_run(const Profile& profile, std::uint16_t queues, const std::string& file) {
  if (queues <= 1) {
    return;
  }
  const auto check = [&](const DirectionSpec& d, const std::string& path) {
    // The direction's limit_packets counts every queue's packets (SharedHeld).
    const char* per_queue = d.incast ? "incast" : d.slot ? "slot" : nullptr;
    if (per_queue != nullptr) {
      throw InputError(file, path + "." + per_queue,
                       "with --queues " + std::to_string(queues) +
                           " each queue runs its own engine, and this stage's capacity would be counted per "
                           "queue (only a rate/queue bottleneck is shared between them): use --queues 1");
    }
    if (d.rate || d.queue) {
      const std::string what =
          QueueStage::unshareable(d.rate.value_or(RateSettings{}), d.queue.value_or(QueueSettings{}));
      if (!what.empty()) {
        throw InputError(
            file, path + "." + what,
            "with --queues " + std::to_string(queues) +
                " the queues share the bottleneck's link, which needs a rate (fixed or a rate trace, "
                "not Mahimahi), a droptail, red, pie or threshold AQM and no limit_packets or int: use "
                "--queues 1 for this profile");
      }
    }
  };
  for (const Direction d : {Direction::kAToB, Direction::kBToA}) {
    const std::string dir = direction_name(d);
    check(direction_of(profile, d), "$." + dir);
    for (std::size_t i = 0; i < profile.classes.size(); ++i) {
      check(direction_of(profile.classes[i], d), "$.classes[" + std::to_string(i) + "]." + dir);
    }
    for (std::size_t i = 0; i < profile.phases.size(); ++i) {
      const PhaseSpec& ph = profile.phases[i];
      const std::string at = "$.phases[" + std::to_string(i) + "]";
      check(direction_of(ph, d), at + "." + dir);
      for (std::size_t c = 0; c < ph.classes.size(); ++c) {
        check(d == Direction::kAToB ? ph.classes[c].a_to_b : ph.classes[c].b_to_a,
              at + ".classes[" + std::to_string(c) + "]." + dir);
      }
    }
  }
}

std::vector<unsigned> lane_layout(std::uint16_t queues, unsigned lcores, LaneLayout how) {
  const unsigned n = std::max<unsigned>(lcores, 1);
  std::vector<unsigned> at;
  if (how == LaneLayout::kDirections && queues > 1) {
    const unsigned half = (n + 1) / 2;
    for (unsigned lane = 0; lane < 2U * queues; ++lane) {
      const unsigned q = lane / 2;
      at.push_back(lane % 2 == 0 || n == 1 ? q % half : half + q % (n - half));
    }
    return at;
  }
  for (unsigned lane = 0; lane < 2U * queues; ++lane) {
    at.push_back(queues >= n ? (lane / 2) % n : lane % n);
  }
  return at;
}

EmuStats run_forwarder(const Profile& profile, const ForwarderOptions& o, const std::atomic<bool>& stop) {
  TscClock clock;
  const std::uint16_t queues = std::max<std::uint16_t>(o.queues, 1);
  const unsigned lcores = 1 + static_cast<unsigned>(o.worker_lcores.size());
  const std::vector<unsigned> layout = lane_layout(queues, lcores, o.layout);
  const auto lcore_id = [&o](unsigned i) { return i == 0 ? rte_lcore_id() : o.worker_lcores[i - 1]; };
  for (const unsigned w : o.worker_lcores) {
    if (rte_eal_get_lcore_state(w) != WAIT) {
      throw EnvironmentError("lcore " + std::to_string(w) + " is busy: cannot run a lane on it");
    }
  }
  // With several queues, each direction's lanes share its bottlenecks' links (shared_wire.h).
  std::array<SharedWires, 2> wires;
  SharedWires* ab_wires = queues > 1 ? &wires[0] : nullptr;
  SharedWires* ba_wires = queues > 1 ? &wires[1] : nullptr;
  std::vector<std::unique_ptr<Lane>> lanes;
  for (std::uint16_t q = 0; q < queues; ++q) {
    // Captures are single-producer rings: with several queues a port's lanes would share one, so
    // the caller refuses --capture then (cmd_emu.cc) and these stay null.
    const bool capture = q == 0;
    lanes.push_back(std::make_unique<Lane>(profile, Direction::kAToB, o.port_a, o.port_b, q, ab_wires, o,
                                           capture ? o.capture_a_in : nullptr,
                                           capture ? o.capture_b_out : nullptr, clock));
    lanes.push_back(std::make_unique<Lane>(profile, Direction::kBToA, o.port_b, o.port_a, q, ba_wires, o,
                                           capture ? o.capture_b_in : nullptr,
                                           capture ? o.capture_a_out : nullptr, clock));
  }
  const Instant end = o.duration > Duration{0} ? kEpoch + o.duration : kNever;
  std::vector<LoopContext> ctx(lcores, LoopContext{&o, &stop, &clock, end, {}, {}, {}});
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    Lane& lane = *lanes[i];
    lane.lcore = lcore_id(layout[i]);
    ctx[layout[i]].lanes.push_back(&lane);
    LcoreStats& l = ctx[layout[i]].counted;
    l.lanes += (l.lanes.empty() ? "" : " ") + std::string(direction_name(lane.dir)) + "/q" +
               std::to_string(lane.queue);
    if (o.exchange != nullptr) {
      // Lanes start from the generation current now, so only later offers reconfigure them.
      lane.generation = o.exchange->offered();
      o.exchange->acknowledge(lane.dir, lane.queue, lane.generation);
    }
  }
  for (unsigned i = 0; i < lcores; ++i) {
    ctx[i].counted.lcore = lcore_id(i);
  }
  clock.restart();
  std::vector<unsigned> launched;
  for (unsigned i = 1; i < lcores; ++i) {
    if (ctx[i].lanes.empty()) {
      continue;  // more lcores than lanes
    }
    // Cannot fail: the lcore was checked idle above.
    (void)rte_eal_remote_launch(lane_lcore_main, &ctx[i], lcore_id(i));
    launched.push_back(lcore_id(i));
  }
  run_lanes(ctx[0]);
  for (const unsigned w : launched) {
    (void)rte_eal_wait_lcore(w);
  }
  EmuStats out;
  Instant finished{};
  for (const LoopContext& c : ctx) {
    if (!c.lanes.empty()) {
      finished = std::max(finished, c.finished);
      out.lcores.push_back(c.counted);
    }
  }
  for (const auto& lane : lanes) {
    const DirectionStats s = final_stats(*lane);
    const bool ab = lane->dir == Direction::kAToB;
    (ab ? out.a_to_b : out.b_to_a).add(s);
    (ab ? out.a_to_b_queues : out.b_to_a_queues).push_back({lane->queue, lane->lcore, s});
  }
  out.seconds = static_cast<double>(ns_of(finished)) / 1e9;
  return out;
}

}  // namespace gw
