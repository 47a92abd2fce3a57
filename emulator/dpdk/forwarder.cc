#include "emulator/dpdk/forwarder.h"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <sys/prctl.h>

#include <algorithm>

#include <array>
#include <cstdint>
#include <queue>
#include <span>
#include <thread>
#include <vector>

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
  TxSink(DirectionStats& s, std::uint16_t egress, rte_mempool* pool) : s_(s), egress_(egress), pool_(pool) {}

  void begin_push(rte_mbuf* m) { pushing_ = m; }

  void end_push(std::uint64_t copies) {
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
    pending_.push({p.time, seq_++, m});
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
  // freed and counted as tx_full: retrying would hold up both directions' polling.
  void transmit_due(Instant now) {
    while (!pending_.empty() && pending_.top().time <= now) {
      std::array<rte_mbuf*, kBurst> burst{};
      std::uint16_t n = 0;
      while (n < kBurst && !pending_.empty() && pending_.top().time <= now) {
        burst[n++] = pending_.top().m;
        pending_.pop();
      }
      const std::uint16_t sent = rte_eth_tx_burst(egress_, 0, burst.data(), n);
      for (std::uint16_t i = 0; i < n; ++i) {
        if (i < sent) {
          ++s_.sent;
          s_.sent_bytes += rte_pktmbuf_pkt_len(burst[i]);
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
  Instant next_due() const { return pending_.empty() ? kNever : pending_.top().time; }

 private:
  struct Due {
    Instant time;
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
  rte_mbuf* pushing_ = nullptr;
  std::vector<Deferred> deferred_;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> pending_;
  std::uint64_t seq_ = 0;
  bool shutting_down_ = false;
};

struct Lane {
  std::uint16_t ingress;
  DirectionEngine engine;
  DirectionStats& stats;
  TxSink sink;

  // Takes one rx burst into the engine at `now`; returns how many frames came.
  std::uint16_t receive(Instant now) {
    std::array<rte_mbuf*, kBurst> burst{};
    const std::uint16_t n = rte_eth_rx_burst(ingress, 0, burst.data(), kBurst);
    for (std::uint16_t i = 0; i < n; ++i) {
      rte_mbuf* m = burst[i];
      ++stats.received;
      stats.received_bytes += rte_pktmbuf_pkt_len(m);
      const std::uint64_t copies_before = engine.totals().duplicated;
      sink.begin_push(m);
      engine.push(packet_from_frame(first_segment(m), reinterpret_cast<std::uint64_t>(m), now,
                                    rte_pktmbuf_pkt_len(m)),
                  now, sink);
      sink.end_push(engine.totals().duplicated - copies_before);
    }
    return n;
  }

  void release(Instant now) {
    engine.advance(now, sink);
    sink.transmit_due(now);
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

}  // namespace

EmuStats run_forwarder(const Profile& profile, const ForwarderOptions& o, const std::atomic<bool>& stop) {
  EmuStats out;
  Lane ab{o.port_a, DirectionEngine(profile, Direction::kAToB), out.a_to_b,
          TxSink(out.a_to_b, o.port_b, o.pool)};
  Lane ba{o.port_b, DirectionEngine(profile, Direction::kBToA), out.b_to_a,
          TxSink(out.b_to_a, o.port_a, o.pool)};
  // Naps end within ~1 us of their time instead of the default 50 us timer slack (this thread).
  (void)prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  const TscClock clock;
  const Instant end = o.duration > Duration{0} ? kEpoch + o.duration : kNever;

  Instant now = clock.now();
  while (!stop.load(std::memory_order_relaxed) && now < end) {
    const std::uint16_t got = ab.receive(now) + ba.receive(now);
    ab.release(now);
    ba.release(now);
    if (may_sleep(o.idle_sleep, got, now, std::min(ab.next_event(), ba.next_event()))) {
      std::this_thread::sleep_for(o.idle_sleep);
    }
    now = clock.now();
  }

  // Drain: no more rx; keep sending what is held at its time, within the drain window.
  const Instant drain_end = now + o.drain;
  while (now < drain_end && (ab.held() > 0 || ba.held() > 0)) {
    ab.release(now);
    ba.release(now);
    now = clock.now();
  }
  for (Lane* lane : {&ab, &ba}) {
    lane->sink.shut_down();
    lane->engine.drain(lane->sink, now);
    lane->stats.held = lane->held();
  }
  out.seconds = static_cast<double>(ns_of(clock.now())) / 1e9;
  return out;
}

}  // namespace gw
