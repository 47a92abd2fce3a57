// PIE, Proportional Integral controller Enhanced (RFC 8033). Every t_update the drop
// probability follows the queueing delay (§4.2, Appendix A calculate_drop_prob()):
//   p = alpha (qdelay - target) + beta (qdelay - qdelay_old)        delays in seconds
//   p /= 2048, 512, 128, 32, 8, 2 while drop_prob < 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1 (§4.2)
//   p capped at 0.02 while drop_prob >= 0.1 (§5.5, cap drop adjustment); drop_prob += p
//   drop_prob *= 0.98 when qdelay == 0 and qdelay_old == 0; drop_prob clamped to [0, 1]
// qdelay is the head packet's sojourn time: the timestamp method of §4.3, not the dequeue rate
// estimation of §5.2.
// Burst tolerance (§4.4): the allowance starts at max_burst, falls by t_update each update, and
// is restored when drop_prob == 0 and both delays are below target / 2 (checked in the update,
// as Appendix B does); while it is positive nothing is dropped.
// Enqueue (§4.1, Appendix A drop_early()): a random drop with probability drop_prob, except
// when qdelay_old < target / 2 and drop_prob < 0.2, or when the queue holds less than 2 MTU
// (2 x 1514 B frames, as Linux sch_pie with psched_mtu(); the RFC says 2 mean packet sizes).
// ECN (§5.1): with `ecn`, an ECN-capable packet is CE-marked instead of dropped while
// drop_prob <= mark_ecn_threshold.
// Not implemented: the optional de-randomization (§5.4) and active/inactive switching (§5.3).
//
// The timer starts with the first arrival. It stops when an update leaves the state unchanged
// with an empty queue (a fixed point: further updates would change nothing) and restarts
// t_update after the next arrival; this only shifts the phase of the updates after idle time.
#pragma once

#include <cstdint>
#include <string>

#include "core/rng.h"
#include "emulator/engine/aqm/aqm.h"
#include "emulator/engine/spec.h"

namespace gw {

class PieAqm final : public Aqm {
 public:
  static constexpr std::uint64_t kMtuBytes = 1514;

  PieAqm(const PieSettings& settings, Rng rng)
      : s_(settings), rng_(rng), burst_allowance_(settings.max_burst) {}

  AqmVerdict on_enqueue(const Packet& p, const QueueView& q, Instant now) override;
  AqmVerdict on_dequeue(const Packet& p, Duration sojourn, const QueueView& q, Instant now) override;
  Instant next_timer() const override { return next_update_; }
  void on_timer(const QueueView& q, Instant now) override;
  std::string name() const override { return "pie"; }

  // Running state (RFC 8033 names), for stats and tests.
  double drop_probability() const { return drop_prob_; }
  Duration qdelay_old() const { return qdelay_old_; }
  Duration burst_allowance() const { return burst_allowance_; }

 private:
  void update(Duration qdelay);  // RFC 8033 calculate_drop_prob()

  PieSettings s_;
  Rng rng_;

  double drop_prob_ = 0;
  Duration qdelay_old_{0};
  Duration burst_allowance_;
  Instant next_update_ = kNever;
};

}  // namespace gw
