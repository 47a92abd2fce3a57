// DualPI2, the DualQ Coupled AQM with a PI2 base AQM (RFC 9332, Appendix A pseudo-code;
// parameters as Linux sch_dualpi2, see DualPi2Settings). Two sub-queues: 0 = C (Classic),
// 1 = L (L4S); ECT(1) and CE go to L, Not-ECT and ECT(0) to C (RFC 9332 §2.3, RFC 9331).
//
// Every t_update (Appendix A.1 dualpi2_update()):
//   p' += alpha (qdelay_C - target) + beta (qdelay_C - qdelay_C_prev), clamped to [0, 1]
//   p_CL = min(k p', 1) (coupled L probability), p_C = p'^2 (Classic probability)
// qdelay_C is the sojourn time of the C queue's head, as in the RFC (the l4sdemo Linux module
// uses the larger of the C and L head sojourns, so that unresponsive L traffic alone can raise
// p'; not done here). All decisions are at dequeue:
//   L packet: CE-marked with p_L = max(native, p_CL), the native L AQM being Linux's step:
//             sojourn > l_step marks (the RFC's example ramp is not implemented).
//   C packet: hit with p_C; a hit ECT(0) packet is CE-marked when c_ecn is set, otherwise
//             (Not-ECT) dropped.
// Overload (§4.2.3, L4S ECN saturation; Appendix A.2): once p_CL saturates (k p' >= 1), L
// packets are dropped with p_C like Classic ones and the rest CE-marked; and once
// p_C >= p_Cmax = min(1/k^2, 1), C ignores ECN: a hit ECT(0) packet is dropped too.
//
// Scheduler: time-shifted FIFO (TS-FIFO): serve L unless the C head has waited more than
// tshift longer than the L head. RFC 9332 leaves the scheduler's parameter open (Linux uses a
// WRR with classic_protection instead); we take tshift = 2 * target, the value of the ns-3
// DualQ Coupled PI Square model (NITK, after draft-ietf-tsvwg-aqm-dualq-coupled).
//
// The update timer starts with the first arrival and stops at a fixed point with an empty C
// queue, as PieAqm's does.
#pragma once

#include <algorithm>
#include <array>
#include <string>

#include "core/rng.h"
#include "emulator/engine/aqm/aqm.h"
#include "emulator/engine/spec.h"

namespace gw {

class DualPi2Aqm final : public Aqm {
 public:
  static constexpr int kClassic = 0;
  static constexpr int kL4s = 1;

  DualPi2Aqm(const DualPi2Settings& settings, Rng rng) : s_(settings), rng_(rng) {}

  int queues() const override { return 2; }
  int classify(const Packet& p) const override;
  int pick(const std::array<Instant, QueueView::kMaxQueues>& head_enqueue, Instant now) override;

  AqmVerdict on_enqueue(const Packet& p, const QueueView& q, Instant now) override;
  AqmVerdict on_dequeue(const Packet& p, Duration sojourn, const QueueView& q, Instant now) override;
  Instant next_timer() const override { return next_update_; }
  void on_timer(const QueueView& q, Instant now) override;
  std::string name() const override { return "dualpi2"; }

  // Running state, for stats and tests.
  double base_probability() const { return p_; }                                    // p'
  double coupled_probability() const { return std::min(s_.coupling_k * p_, 1.0); }  // p_CL
  double classic_probability() const { return p_ * p_; }                            // p_C
  Duration time_shift() const { return 2 * s_.target; }

 private:
  AqmVerdict on_l4s(Duration sojourn);
  AqmVerdict on_classic(const Packet& p);
  bool chance(double probability);

  DualPi2Settings s_;
  Rng rng_;

  double p_ = 0;  // p', the PI2 base probability
  Duration qdelay_prev_{0};
  Instant next_update_ = kNever;
};

}  // namespace gw
