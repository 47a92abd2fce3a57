#include "emulator/dpdk/forwarder.h"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <sys/prctl.h>

#include <rte_launch.h>
#include <rte_lcore.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <queue>
#include <span>
#include <thread>
#include <vector>

#include "core/errors.h"
#include "emulator/dpdk/capture.h"
#include "emulator/dpdk/exchange.h"
#include "emulator/engine/engine.h"
#include "emulator/engine/headers.h"

namespace gw {
namespace {

constexpr std::uint16_t kBurst = 32;

// TSC ticks since the start of the run as the engine's Instant, read once per loop.
class TscClock {
 public:
  TscClock() : start_(rte_rdtsc()), hz_(rte_get_tsc_hz()) {}
  Instant now() const {
    const std::uint64_t t = rte_rdtsc() - start_;
    const std::uint64_t ns = (t / hz_) * 1'000'000'000ULL + (t % hz_) * 1'000'000'000ULL / hz_;
    return at_ns(static_cast<std::int64_t>(ns));
  }

 private:
  std::uint64_t start_;
  std::uint64_t hz_;
};

rte_mbuf* mbuf_of(const Packet& p) {
  return reinterpret_cast<rte_mbuf*>(p.handle);
}

std::span<std::uint8_t> first_segment(rte_mbuf* m) {
  return {rte_pktmbuf_mtod(m, std::uint8_t*), rte_pktmbuf_data_len(m)};
}

// One direction's output: takes what the engine releases, applies the recorded changes to the
// mbuf and keeps it in release-time order until it is due on the egress port.
//
// Duplicates share the original's mbuf: each packet made from a frame holds one reference
// (rte_mbuf refcnt = 1 + copies made), and a packet that is not the last holder takes a
// private copy before it changes bytes or is sent. The duplicate stage makes its copies during
// the frame's push (it follows the loss stage, which holds nothing: pipeline.h), so what the
// engine releases of the frame being pushed is deferred until the push is over and the number
// of copies is known.
class TxSink final : public PacketSink {
 public:
  TxSink(DirectionStats& s, std::uint16_t egress, rte_mempool* pool, CaptureRing* capture,
         std::int64_t wall_start_ns)
      : s_(s), egress_(egress), pool_(pool), capture_(capture), wall_start_ns_(wall_start_ns) {}

  void begin_push(rte_mbuf* m) {
    pushing_ = m;
    copies_ = 0;
  }

  // The duplicate stage made a copy of the frame being pushed (it never copies at any other
  // time: it holds nothing). Counted here rather than by diffing the engine's totals per frame.
  void duplicated(const Packet& /*copy*/) override { ++copies_; }

  void end_push() {
    const std::uint64_t copies = copies_;
    if (copies > 0) {
      rte_mbuf_refcnt_update(pushing_, static_cast<std::int16_t>(copies));
      s_.duplicates += copies;
    }
    pushing_ = nullptr;
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
    rte_mbuf* m = mbuf_of(p);
    if (m == pushing_) {
      deferred_.push_back({std::move(p), false, DropCause::kCount});
      return;
    }
    if (shutting_down_) {
      rte_pktmbuf_free(m);
      ++s_.dropped[static_cast<std::size_t>(DropCause::kShutdown)];
      return;
    }
    if (rte_mbuf_refcnt_read(m) > 1) {
      rte_mbuf* copy = rte_pktmbuf_copy(m, pool_, 0, UINT32_MAX);
      rte_pktmbuf_free(m);  // our reference to the shared frame
      if (copy == nullptr) {
        ++s_.no_mbuf;
        return;
      }
      m = copy;
    }
    // Marks before bit errors, as replay does: a bit error on the wire after the last hop.
    if (p.ce_marked && apply_ce(first_segment(m))) {
      ++s_.marked_ce;
    }
    if (p.corrupt_bit != kNoCorruption && flip_bit(first_segment(m), p.corrupt_bit)) {
      ++s_.corrupted;
    }
    pending_.push({p.time, p.arrival, seq_++, m});
  }

  void dropped(Packet&& p, DropCause cause) override {
    rte_mbuf* m = mbuf_of(p);
    if (m == pushing_) {
      deferred_.push_back({std::move(p), true, cause});
      return;
    }
    rte_pktmbuf_free(m);
    ++s_.dropped[static_cast<std::size_t>(cause)];
  }

  // Sends every frame due at or before `now` in release order. A frame the tx queue refuses is
  // freed and counted as tx_full: retrying would hold up both directions' polling. Each frame
  // sent adds (now - intended release) to the delay-error histogram; the capture copies the
  // bytes before the burst (the driver owns the mbuf after it) and keeps the frames sent.
  void transmit_due(Instant now) {
    while (!pending_.empty() && pending_.top().time <= now) {
      std::array<rte_mbuf*, kBurst> burst{};
      std::array<Instant, kBurst> due{};
      std::uint16_t n = 0;
      while (n < kBurst && !pending_.empty() && pending_.top().time <= now) {
        due[n] = pending_.top().time;
        current_delay_ns_ = ns_of(pending_.top().time) - ns_of(pending_.top().arrival);
        burst[n++] = pending_.top().m;
        pending_.pop();
      }
      if (capture_ != nullptr) {
        for (std::uint16_t i = 0; i < n; ++i) {
          const auto f = first_segment(burst[i]);
          capture_->stage(f.data(), static_cast<std::uint32_t>(f.size()), rte_pktmbuf_pkt_len(burst[i]),
                          wall_start_ns_ + ns_of(now));
        }
      }
      std::array<std::uint32_t, kBurst> bytes{};
      for (std::uint16_t i = 0; i < n; ++i) {
        bytes[i] = rte_pktmbuf_pkt_len(burst[i]);
      }
      const std::uint16_t sent = rte_eth_tx_burst(egress_, 0, burst.data(), n);
      if (capture_ != nullptr) {
        capture_->commit(sent);
      }
      for (std::uint16_t i = 0; i < n; ++i) {
        if (i < sent) {
          ++s_.sent;
          s_.sent_bytes += bytes[i];
          s_.delay_error.add(ns_of(now) - ns_of(due[i]));
        } else {
          ++s_.tx_full;
          rte_pktmbuf_free(burst[i]);
        }
      }
    }
  }

  // From now on, what the engine releases is freed as kShutdown; so is what waits here.
  void shut_down() {
    shutting_down_ = true;
    while (!pending_.empty()) {
      rte_pktmbuf_free(pending_.top().m);
      pending_.pop();
      ++s_.dropped[static_cast<std::size_t>(DropCause::kShutdown)];
    }
  }

  std::size_t waiting() const { return pending_.size(); }
  std::int64_t current_delay_ns() const { return current_delay_ns_; }
  Instant next_due() const { return pending_.empty() ? kNever : pending_.top().time; }

 private:
  struct Due {
    Instant time;
    Instant arrival;
    std::uint64_t seq;  // release order among equal times
    rte_mbuf* m;
    friend bool operator>(const Due& a, const Due& b) {
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };
  struct Deferred {
    Packet p;
    bool drop;
    DropCause cause;
  };

  DirectionStats& s_;
  std::uint16_t egress_;
  rte_mempool* pool_;
  CaptureRing* capture_;
  std::int64_t wall_start_ns_;
  std::int64_t current_delay_ns_ = 0;
  rte_mbuf* pushing_ = nullptr;
  std::uint64_t copies_ = 0;  // made of pushing_ so far
  std::vector<Deferred> deferred_;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> pending_;
  std::uint64_t seq_ = 0;
  bool shutting_down_ = false;
};

// One direction: its ingress port, engine, sink and counters, touched by one lcore only.
struct Lane {
  Lane(const Profile& profile, Direction d, std::uint16_t in, std::uint16_t out, const ForwarderOptions& o,
       CaptureRing* cap_in, CaptureRing* cap_out, std::int64_t wall_start_ns)
      : dir(d),
        ingress(in),
        engine(profile, d),
        sink(stats, out, o.pool, cap_out, wall_start_ns),
        capture_in(cap_in),
        wall_start(wall_start_ns) {}
  Lane(const Lane&) = delete;
  Lane& operator=(const Lane&) = delete;

  Direction dir;
  std::uint16_t ingress;
  DirectionStats stats;
  DirectionEngine engine;
  TxSink sink;
  CaptureRing* capture_in;
  std::int64_t wall_start;
  std::shared_ptr<const Profile> reloaded;  // the profile taken from the Exchange, if any
  std::uint64_t generation = 0;

  // Takes one rx burst into the engine at `now`; returns how many frames came.
  std::uint16_t receive(Instant now) {
    std::array<rte_mbuf*, kBurst> burst{};
    const std::uint16_t n = rte_eth_rx_burst(ingress, 0, burst.data(), kBurst);
    if (capture_in != nullptr && n > 0) {
      for (std::uint16_t i = 0; i < n; ++i) {
        const auto f = first_segment(burst[i]);
        capture_in->stage(f.data(), static_cast<std::uint32_t>(f.size()), rte_pktmbuf_pkt_len(burst[i]),
                          wall_start + ns_of(now));
      }
      capture_in->commit(n);
    }
    for (std::uint16_t i = 0; i < n; ++i) {
      rte_mbuf* m = burst[i];
      ++stats.received;
      stats.received_bytes += rte_pktmbuf_pkt_len(m);
      sink.begin_push(m);
      engine.push(packet_from_frame(first_segment(m), reinterpret_cast<std::uint64_t>(m), now,
                                    rte_pktmbuf_pkt_len(m)),
                  now, sink);
      sink.end_push();
    }
    return n;
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
      reloaded = std::move(p);
    }
    generation = g;
    ex.acknowledge(dir, g);
  }

  void publish(Exchange& ex, bool wait) {
    LaneSnapshot snap;
    snap.stats = stats;
    snap.stats.held = held();
    for (const DirectionEngine::ClassView& c : engine.classes()) {
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
      snap.stats.classes.push_back(std::move(cs));
      snap.queue_bytes += c.pipeline->queue_bytes();
    }
    snap.current_delay_ns = sink.current_delay_ns();
    snap.profile_generation = generation;
    ex.publish(dir, snap, wait);
  }

  std::uint64_t held() const { return engine.held_packets() + sink.waiting(); }
  Instant next_event() const { return std::min(engine.next_wakeup(), sink.next_due()); }
};

// Whether the loop may sleep `nap` now: nothing came in and nothing is due within the nap.
bool may_sleep(Duration nap, std::uint16_t received, Instant now, Instant next_event) {
  if (nap <= Duration{0} || received > 0) {
    return false;
  }
  return next_event == kNever || (next_event > now && next_event - now > nap);
}

struct LoopContext {
  const ForwarderOptions* o;
  const std::atomic<bool>* stop;
  const TscClock* clock;
  Instant end;
  std::vector<Lane*> lanes;  // the lanes this lcore runs
  Instant finished{};        // when this lcore's drain ended
};

// The l2fwd-shaped loop over one or two lanes, then the drain; run by one lcore.
void run_lanes(LoopContext& c) {
  // Naps end within ~1 us of their time instead of the default 50 us timer slack (this thread).
  (void)prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  const ForwarderOptions& o = *c.o;
  Exchange* ex = o.exchange;
  Instant now = c.clock->now();
  Instant next_publish = now + o.publish_interval;
  while (!c.stop->load(std::memory_order_relaxed) && now < c.end) {
    std::uint16_t got = 0;
    Instant next = kNever;
    for (Lane* lane : c.lanes) {
      if (ex != nullptr && ex->offered() != lane->generation) {
        lane->take_profile(*ex, now);
      }
      got = static_cast<std::uint16_t>(got + lane->receive(now));
    }
    for (Lane* lane : c.lanes) {
      lane->release(now);
      next = std::min(next, lane->next_event());
    }
    if (ex != nullptr && now >= next_publish) {
      for (Lane* lane : c.lanes) {
        lane->publish(*ex, false);
      }
      next_publish = now + o.publish_interval;
    }
    if (may_sleep(o.idle_sleep, got, now, next)) {
      std::this_thread::sleep_for(o.idle_sleep);
    }
    now = c.clock->now();
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
    const PipelineCounters& pc = c.pipeline->counters();
    s.classes.push_back({c.name, pc.packets_in, pc.bytes_in, pc.delivered, pc.bytes_delivered, pc.dropped,
                         pc.duplicated, pc.corrupted, pc.marked_ce});
  }
  return s;
}

}  // namespace

EmuStats run_forwarder(const Profile& profile, const ForwarderOptions& o, const std::atomic<bool>& stop) {
  const TscClock clock;
  const std::int64_t wall_start = wall_clock_ns();
  Lane ab(profile, Direction::kAToB, o.port_a, o.port_b, o, o.capture_a_in, o.capture_b_out, wall_start);
  Lane ba(profile, Direction::kBToA, o.port_b, o.port_a, o, o.capture_b_in, o.capture_a_out, wall_start);
  if (o.exchange != nullptr) {
    // Lanes start from the generation current now, so only later offers reconfigure them.
    ab.generation = ba.generation = o.exchange->offered();
    o.exchange->acknowledge(Direction::kAToB, ab.generation);
    o.exchange->acknowledge(Direction::kBToA, ba.generation);
  }
  const Instant end = o.duration > Duration{0} ? kEpoch + o.duration : kNever;
  LoopContext main_ctx{&o, &stop, &clock, end, {&ab}, {}};
  LoopContext worker_ctx{&o, &stop, &clock, end, {&ba}, {}};
  if (o.worker_lcore >= 0) {
    const int rc = rte_eal_remote_launch(lane_lcore_main, &worker_ctx, static_cast<unsigned>(o.worker_lcore));
    if (rc != 0) {
      throw EnvironmentError("cannot launch the b_to_a lane on lcore " + std::to_string(o.worker_lcore) +
                             " (rte_eal_remote_launch: " + std::to_string(rc) + ")");
    }
    run_lanes(main_ctx);
    (void)rte_eal_wait_lcore(static_cast<unsigned>(o.worker_lcore));
  } else {
    main_ctx.lanes.push_back(&ba);
    run_lanes(main_ctx);
  }
  EmuStats out;
  out.a_to_b = final_stats(ab);
  out.b_to_a = final_stats(ba);
  out.seconds = static_cast<double>(ns_of(std::max(main_ctx.finished, worker_ctx.finished))) / 1e9;
  return out;
}

}  // namespace gw
