// A deterministic two-QP test bench: QP A (number 1) and QP B (number 2) joined by two
// one-way channels (delay lines with seeded loss, reordering, duplication and CE marking,
// plus hooks for scripted drops and edits), and a loop that advances virtual time to the
// earliest of the QPs' wakeups and the next arrival, as the simulator will.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <vector>

#include "core/rng.h"
#include "core/time.h"
#include "generators/cc/fixed.h"
#include "generators/transport/queue_pair.h"

namespace gw::transport::testing {

constexpr std::int64_t kUs = 1'000;
constexpr std::int64_t kMs = 1'000'000;

// A small MTU keeps packet counts easy to reason about.
constexpr std::uint32_t kMtu = 1024;
constexpr std::uint32_t kWire = 1086;  // 1024 payload + 62 bytes of headers (segment.h)
inline TransportConfig small_mtu() {
  TransportConfig cfg;
  cfg.mtu_bytes = kMtu;
  return cfg;
}

struct ChannelConfig {
  Duration delay{10 * kUs};
  double loss = 0;     // every segment kind
  double reorder = 0;  // probability of an extra delay uniform in (0, reorder_extra]
  Duration reorder_extra{20 * kUs};
  double duplicate = 0;  // probability that a second copy follows 1 ns later
  double ce = 0;         // probability of marking a data segment CE
  // Scripted: return true to drop this segment (called for every segment entering).
  std::function<bool(const Segment&)> drop_if{};
  // Scripted: edit the segment (mark CE, stamp INT hops) before it travels.
  std::function<void(Segment&)> edit{};
};

// A controller that behaves like "fixed" and records what the transport told it.
class RecordingCc final : public cc::CongestionControl {
 public:
  RecordingCc(std::uint64_t cwnd, BitRate rate) : inner_(cwnd, rate) {}
  struct Ack {
    cc::AckEvent e;
    std::vector<cc::IntHopEcho> hops;
  };
  void on_packet_sent(const cc::SentEvent& e) override { sent.push_back(e); }
  void on_ack(const cc::AckEvent& e) override { acks.push_back({e, {e.int_hops.begin(), e.int_hops.end()}}); }
  void on_loss(const cc::LossEvent& e) override { losses.push_back(e); }
  void on_cnp(Instant now) override { cnps.push_back(now); }
  std::uint64_t cwnd_bytes() const override { return inner_.cwnd_bytes(); }
  BitRate pacing_rate() const override { return inner_.pacing_rate(); }
  cc::CcState state() const override { return inner_.state(); }
  std::string_view name() const override { return "recording"; }

  std::vector<cc::SentEvent> sent;
  std::vector<Ack> acks;
  std::vector<cc::LossEvent> losses;
  std::vector<Instant> cnps;

 private:
  cc::FixedCc inner_;
};

// One segment as it left a QP.
struct Sent {
  Instant time;
  int from;  // 0 = A, 1 = B
  Segment seg;
};

class Bench {
 public:
  Bench(const TransportConfig& cfg, const ChannelConfig& ab, const ChannelConfig& ba, std::uint64_t seed,
        std::uint64_t cwnd = std::uint64_t{1} << 30, BitRate rate = BitRate{0})
      : ch_{ab, ba}, rng_{Rng(seed, "a_to_b"), Rng(seed, "b_to_a")} {
    auto cc_a = std::make_unique<RecordingCc>(cwnd, rate);
    auto cc_b = std::make_unique<RecordingCc>(cwnd, rate);
    cc_[0] = cc_a.get();
    cc_[1] = cc_b.get();
    qp_[0] = std::make_unique<QueuePair>(cfg, 1, 2, std::move(cc_a));
    qp_[1] = std::make_unique<QueuePair>(cfg, 2, 1, std::move(cc_b));
  }

  // QP A with its own controller (`cc_a()` is then B's recorder only: do not call it).
  Bench(const TransportConfig& cfg, const ChannelConfig& ab, const ChannelConfig& ba, std::uint64_t seed,
        std::unique_ptr<cc::CongestionControl> cc_a)
      : ch_{ab, ba}, rng_{Rng(seed, "a_to_b"), Rng(seed, "b_to_a")} {
    auto cc_b = std::make_unique<RecordingCc>(std::uint64_t{1} << 30, BitRate{0});
    cc_[1] = cc_b.get();
    qp_[0] = std::make_unique<QueuePair>(cfg, 1, 2, std::move(cc_a));
    qp_[1] = std::make_unique<QueuePair>(cfg, 2, 1, std::move(cc_b));
  }

  QueuePair& a() { return *qp_[0]; }
  QueuePair& b() { return *qp_[1]; }
  RecordingCc& cc_a() { return *cc_[0]; }
  RecordingCc& cc_b() { return *cc_[1]; }
  Instant now() const { return now_; }
  const std::vector<Sent>& trace() const { return trace_; }
  std::uint64_t max_in_flight_a() const { return max_in_flight_a_; }

  // The channel from A (0) or B (1) now takes `d`: a move to another network path. Segments
  // already travelling keep their arrival time.
  void set_delay(int from, Duration d) { ch_[from].delay = d; }

  // Moves virtual time forward (e.g. to post a message at a given time).
  void advance_to(Instant t) { now_ = std::max(now_, t); }

  // Runs until both QPs are idle and nothing is travelling, or until `limit`.
  void run(Instant limit) {
    int stuck = 0;
    while (true) {
      const std::size_t before = trace_.size() + delivered_;
      const Instant was = now_;
      drain(0);
      drain(1);
      Instant next = std::min(qp_[0]->next_wakeup(), qp_[1]->next_wakeup());
      if (!arrivals_.empty()) {
        next = std::min(next, arrivals_.top().time);
      }
      if (next == kNever || next > limit) {
        return;
      }
      now_ = std::max(now_, next);
      while (!arrivals_.empty() && arrivals_.top().time <= now_) {
        const Arrival arr = arrivals_.top();
        arrivals_.pop();
        qp_[arr.to]->on_segment(now_, arr.seg);
        ++delivered_;
      }
      stuck = (trace_.size() + delivered_ == before && now_ == was) ? stuck + 1 : 0;
      if (stuck >= 3) {
        ADD_FAILURE() << "no progress at t=" << ns_of(now_) << " ns";
        return;
      }
    }
  }

 private:
  struct Arrival {
    Instant time;
    std::uint64_t seq;
    int to;
    Segment seg;
    bool operator>(const Arrival& o) const { return time != o.time ? time > o.time : seq > o.seq; }
  };

  void drain(int from) {
    while (auto s = qp_[from]->poll(now_)) {
      trace_.push_back({now_, from, *s});
      if (from == 0) {
        max_in_flight_a_ = std::max(max_in_flight_a_, qp_[0]->bytes_in_flight());
      }
      travel(from, *s);
    }
  }

  void travel(int from, Segment s) {
    const ChannelConfig& c = ch_[from];
    Rng& rng = rng_[from];
    if ((c.drop_if && c.drop_if(s)) || (c.loss > 0 && rng.uniform() < c.loss)) {
      return;
    }
    if (c.edit) {
      c.edit(s);
    }
    if (s.kind == SegmentKind::kData && c.ce > 0 && rng.uniform() < c.ce) {
      s.ce = true;
    }
    Instant at = now_ + c.delay;
    if (c.reorder > 0 && rng.uniform() < c.reorder) {
      at += Duration{
          1 + static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(c.reorder_extra.count())))};
    }
    arrivals_.push(Arrival{at, seq_++, 1 - from, s});
    if (c.duplicate > 0 && rng.uniform() < c.duplicate) {
      arrivals_.push(Arrival{at + Duration{1}, seq_++, 1 - from, s});
    }
  }

  ChannelConfig ch_[2];
  Rng rng_[2];
  RecordingCc* cc_[2] = {nullptr, nullptr};
  std::unique_ptr<QueuePair> qp_[2];
  std::priority_queue<Arrival, std::vector<Arrival>, std::greater<>> arrivals_;
  std::vector<Sent> trace_;
  Instant now_ = kEpoch;
  std::uint64_t seq_ = 0;
  std::uint64_t delivered_ = 0;
  std::uint64_t max_in_flight_a_ = 0;
};

}  // namespace gw::transport::testing
