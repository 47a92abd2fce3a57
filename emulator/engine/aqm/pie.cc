#include "emulator/engine/aqm/pie.h"

#include <algorithm>

namespace gw {
namespace {

// RFC 8033 §4.2: smaller steps while the probability is small, so that it can settle at low
// values without oscillating.
double auto_tuned(double p, double drop_prob) {
  if (drop_prob < 0.000001) {
    return p / 2048;
  }
  if (drop_prob < 0.00001) {
    return p / 512;
  }
  if (drop_prob < 0.0001) {
    return p / 128;
  }
  if (drop_prob < 0.001) {
    return p / 32;
  }
  if (drop_prob < 0.01) {
    return p / 8;
  }
  if (drop_prob < 0.1) {
    return p / 2;
  }
  return std::min(p, 0.02);  // §5.5: cap increases once drop_prob >= 10%
}

}  // namespace

AqmVerdict PieAqm::on_enqueue(const Packet& p, const QueueView& q, Instant now) {
  if (next_update_ == kNever) {
    next_update_ = now + s_.t_update;
  }
  if (burst_allowance_ > Duration{0}) {
    return AqmVerdict::kPass;
  }
  // RFC 8033 §4.1: stay work-conserving when the delay is low or the queue nearly empty.
  if ((qdelay_old_ < s_.target / 2 && drop_prob_ < 0.2) || q.bytes[0] < 2 * kMtuBytes) {
    return AqmVerdict::kPass;
  }
  if (!(drop_prob_ > 0 && rng_.uniform() < drop_prob_)) {
    return AqmVerdict::kPass;
  }
  if (s_.ecn && ecn_capable(p.headers.ecn) && drop_prob_ <= s_.mark_ecn_threshold) {
    return AqmVerdict::kMark;
  }
  return AqmVerdict::kDrop;
}

AqmVerdict PieAqm::on_dequeue(const Packet& /*p*/, Duration /*sojourn*/, const QueueView& /*q*/,
                              Instant /*now*/) {
  return AqmVerdict::kPass;
}

void PieAqm::on_timer(const QueueView& q, Instant now) {
  const double prob_before = drop_prob_;
  const Duration qdelay_before = qdelay_old_;
  const Duration burst_before = burst_allowance_;
  update(q.head_sojourn[0]);
  const bool unchanged =
      drop_prob_ == prob_before && qdelay_old_ == qdelay_before && burst_allowance_ == burst_before;
  next_update_ = unchanged && q.packets[0] == 0 ? kNever : now + s_.t_update;
}

void PieAqm::update(Duration qdelay) {
  const double step = s_.alpha * in_seconds(qdelay - s_.target) + s_.beta * in_seconds(qdelay - qdelay_old_);
  drop_prob_ += auto_tuned(step, drop_prob_);
  if (qdelay == Duration{0} && qdelay_old_ == Duration{0}) {
    drop_prob_ *= 0.98;  // exponential decay once the queue has been empty for two updates
  }
  drop_prob_ = std::clamp(drop_prob_, 0.0, 1.0);

  const bool low_delay = qdelay < s_.target / 2 && qdelay_old_ < s_.target / 2;
  qdelay_old_ = qdelay;
  burst_allowance_ = std::max(Duration{0}, burst_allowance_ - s_.t_update);
  if (drop_prob_ == 0 && low_delay) {
    burst_allowance_ = s_.max_burst;
  }
}

}  // namespace gw
