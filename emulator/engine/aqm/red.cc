#include "emulator/engine/aqm/red.h"

#include <cmath>

namespace gw {

AqmVerdict RedAqm::on_enqueue_slow(const Packet& p, const QueueView& q, Instant now) {
  update_average(q, now);
  if (avg_ < static_cast<double>(s_.min_bytes)) {
    count_ = -1;
    last_p_ = 0;
    return AqmVerdict::kPass;
  }
  bool hit = true;
  if (beyond_ramp()) {
    last_p_ = 1;
  } else {
    ++count_;
    const double pb = base_probability();
    const double spread = 1.0 - static_cast<double>(count_) * pb;
    last_p_ = spread > pb ? pb / spread : 1.0;
    hit = last_p_ >= 1.0 || rng_.uniform() < last_p_;
  }
  if (!hit) {
    return AqmVerdict::kPass;
  }
  count_ = 0;
  return s_.ecn && ecn_capable(p.headers.ecn) ? AqmVerdict::kMark : AqmVerdict::kDrop;
}

AqmVerdict RedAqm::on_dequeue(const Packet& /*p*/, Duration /*sojourn*/, const QueueView& q, Instant now) {
  if (q.packets[0] == 0) {
    idle_since_ = now;
  }
  return AqmVerdict::kPass;
}

void RedAqm::update_average(const QueueView& q, Instant now) {
  if (q.packets[0] != 0 || !idle_since_) {
    avg_ = (1.0 - s_.weight) * avg_ + s_.weight * static_cast<double>(q.bytes[0]);
    return;
  }
  // Idle: decay as if m small packets had been sent, each with an empty queue (paper §4).
  // An average of 0 stays 0 (the common case on a link that keeps up): nothing to compute.
  const Duration per_packet = avg_ == 0 ? Duration{0} : q.rate.transmit_time(s_.mean_packet_bytes);
  if (per_packet.count() == 0) {
    avg_ = 0;  // an unlimited rate sends infinitely many packets in any idle time
  } else {
    const double m =
        static_cast<double>((now - *idle_since_).count()) / static_cast<double>(per_packet.count());
    avg_ *= std::exp(m * log_keep_);  // (1 - wq)^m, with log(1 - wq) computed once
  }
  // The decay is now accounted up to `now`; if this packet does not join (dropped here or by a
  // limit), the next arrival decays only the time after it.
  idle_since_ = now;
}

bool RedAqm::beyond_ramp() const {
  const double max = static_cast<double>(s_.max_bytes);
  return avg_ >= (s_.gentle ? 2 * max : max);
}

double RedAqm::base_probability() const {
  const double min = static_cast<double>(s_.min_bytes);
  const double max = static_cast<double>(s_.max_bytes);
  if (avg_ < max) {
    return s_.max_p * (avg_ - min) / (max - min);
  }
  return s_.max_p + (1.0 - s_.max_p) * (avg_ - max) / max;  // gentle
}

}  // namespace gw
