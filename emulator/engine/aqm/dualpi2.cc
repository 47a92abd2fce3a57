#include "emulator/engine/aqm/dualpi2.h"

namespace gw {
namespace {

// The codepoint the packet carries now: an earlier stage may have set CE (ECT -> CE).
Ecn current_ecn(const Packet& p) {
  return p.ce_marked ? Ecn::kCe : p.headers.ecn;
}

}  // namespace

int DualPi2Aqm::classify(const Packet& p) const {
  const Ecn e = current_ecn(p);
  return e == Ecn::kEct1 || e == Ecn::kCe ? kL4s : kClassic;
}

int DualPi2Aqm::pick(const std::array<Instant, QueueView::kMaxQueues>& head_enqueue, Instant /*now*/) {
  const Instant c = head_enqueue[kClassic];
  const Instant l = head_enqueue[kL4s];
  if (l == kNever) {
    return kClassic;
  }
  if (c == kNever) {
    return kL4s;
  }
  // sojourn_L + tshift < sojourn_C, written with enqueue instants.
  return c + time_shift() < l ? kClassic : kL4s;
}

AqmVerdict DualPi2Aqm::on_enqueue(const Packet& /*p*/, const QueueView& /*q*/, Instant now) {
  if (next_update_ == kNever) {
    next_update_ = now + s_.t_update;
  }
  return AqmVerdict::kPass;
}

AqmVerdict DualPi2Aqm::on_dequeue(const Packet& p, Duration sojourn, const QueueView& /*q*/,
                                  Instant /*now*/) {
  return classify(p) == kL4s ? on_l4s(sojourn) : on_classic(p);
}

AqmVerdict DualPi2Aqm::on_l4s(Duration sojourn) {
  const double p_cl = coupled_probability();
  if (p_cl >= 1.0) {
    // Overload: revert to Classic drop in the L queue, mark the rest (RFC 9332 §4.2.3).
    return chance(classic_probability()) ? AqmVerdict::kDrop : AqmVerdict::kMark;
  }
  const double native = sojourn > s_.l_step ? 1.0 : 0.0;
  return chance(std::max(native, p_cl)) ? AqmVerdict::kMark : AqmVerdict::kPass;
}

AqmVerdict DualPi2Aqm::on_classic(const Packet& p) {
  const double p_c = classic_probability();
  if (!chance(p_c)) {
    return AqmVerdict::kPass;
  }
  const double p_cmax = std::min(1.0 / (s_.coupling_k * s_.coupling_k), 1.0);
  const bool overload = p_c >= p_cmax;
  if (s_.c_ecn && current_ecn(p) == Ecn::kEct0 && !overload) {
    return AqmVerdict::kMark;
  }
  return AqmVerdict::kDrop;
}

void DualPi2Aqm::on_timer(const QueueView& q, Instant now) {
  const double p_before = p_;
  const Duration prev_before = qdelay_prev_;
  // The PI controller sees the larger of the two queues' head delays (L4STeam sch_dualpi2
  // does the same), so unresponsive ECT(1) traffic alone still raises p' and the L queue's
  // overload protection engages instead of the L queue growing to the stage's limit.
  const Duration qdelay = std::max(q.head_sojourn[0], q.head_sojourn[1]);
  p_ += s_.alpha * in_seconds(qdelay - s_.target) + s_.beta * in_seconds(qdelay - qdelay_prev_);
  p_ = std::clamp(p_, 0.0, 1.0);
  qdelay_prev_ = qdelay;
  const bool unchanged = p_ == p_before && qdelay_prev_ == prev_before;
  next_update_ = unchanged && q.packets[0] == 0 && q.packets[1] == 0 ? kNever : now + s_.t_update;
}

bool DualPi2Aqm::chance(double probability) {
  return probability >= 1.0 || (probability > 0.0 && rng_.uniform() < probability);
}

}  // namespace gw
