// RED, Random Early Detection (Floyd & Jacobson, "Random Early Detection Gateways for Congestion
// Avoidance", IEEE/ACM ToN 1993, Fig. 2), with the "gentle" ramp (Floyd 2000, "Recommendation
// on using the gentle_ variant of RED").
//
// On each arrival:
//   avg = (1 - wq) avg + wq q                 queue non-empty (q in bytes, before the arrival)
//   avg = (1 - wq)^m avg                      queue empty: m = idle time / time to send one
//                                             mean_packet_bytes packet at the queue's rate
//   min <= avg < max:   p_b = max_p (avg - min) / (max - min)
//   gentle, max <= avg < 2 max:   p_b = max_p + (1 - max_p) (avg - max) / max
//   p_a = p_b / (1 - count p_b), count = packets since the last mark (paper's Fig. 2 counting:
//   -1 below min, incremented before use, 0 after a mark); beyond the ramp every packet is hit.
// A hit packet is dropped, or CE-marked when `ecn` is set and it is ECN-capable (RFC 3168 §7;
// like Linux sch_red without `harddrop`, also beyond max).
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "core/rng.h"
#include "emulator/engine/aqm/aqm.h"
#include "emulator/engine/spec.h"

namespace gw {

class RedAqm final : public Aqm {
 public:
  RedAqm(const RedSettings& settings, Rng rng)
      : s_(settings), rng_(rng), log_keep_(std::log1p(-settings.weight)) {}

  AqmVerdict on_enqueue(const Packet& p, const QueueView& q, Instant now) override {
    // An arrival at an empty queue with an average of 0, the common case on a link that keeps
    // up, inline: the idle decay keeps 0 at 0 and 0 is below min (the paper's Fig. 2 then
    // resets count). The same as on_enqueue_slow(), without the call.
    if (q.packets[0] == 0 && pass_at_empty(now)) {
      return AqmVerdict::kPass;
    }
    return on_enqueue_slow(p, q, now);
  }
  // on_enqueue() for an arrival that finds the queue empty (q.packets[0] == 0), when that is
  // the fast path's case: true when p passed (the state updated as on_enqueue() does), false
  // when on_enqueue() must decide (nothing changed). The queue calls it before building a view.
  bool pass_at_empty(Instant now) {
    if (avg_ == 0 && idle_since_ && s_.min_bytes > 0) {
      idle_since_ = now;
      count_ = -1;
      last_p_ = 0;
      return true;
    }
    return false;
  }
  AqmVerdict on_dequeue(const Packet& p, Duration sojourn, const QueueView& q, Instant now) override;
  bool decides_at_enqueue() const override { return true; }
  void on_queue_empty(Instant now) override { idle_since_ = now; }
  std::string name() const override { return "red"; }

  // Running state, for stats and tests: the average queue (bytes) and the probability p_a
  // applied to the last arrival (0 below min, 1 beyond the ramp).
  double average_bytes() const { return avg_; }
  double last_probability() const { return last_p_; }

 private:
  AqmVerdict on_enqueue_slow(const Packet& p, const QueueView& q, Instant now);
  void update_average(const QueueView& q, Instant now);
  bool beyond_ramp() const;
  double base_probability() const;  // p_b, for avg on the ramp

  RedSettings s_;
  Rng rng_;

  double avg_ = 0;                     // bytes
  double log_keep_ = 0;                // log(1 - wq), for the idle decay
  std::int64_t count_ = -1;            // packets since the last mark; -1 below min
  std::optional<Instant> idle_since_;  // the paper's q_time: when the queue last went empty
  double last_p_ = 0;
};

}  // namespace gw
