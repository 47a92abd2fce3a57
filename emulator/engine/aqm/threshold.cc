#include "emulator/engine/aqm/threshold.h"

namespace gw {

AqmVerdict ThresholdAqm::on_enqueue(const Packet& p, const QueueView& q, Instant /*now*/) {
  if (!ecn_capable(p.headers.ecn)) {
    return AqmVerdict::kPass;
  }
  const double pm = mark_probability(q.bytes[0]);
  const bool mark = pm >= 1.0 || (pm > 0.0 && rng_.uniform() < pm);
  return mark ? AqmVerdict::kMark : AqmVerdict::kPass;
}

AqmVerdict ThresholdAqm::on_dequeue(const Packet& /*p*/, Duration /*sojourn*/, const QueueView& /*q*/,
                                    Instant /*now*/) {
  return AqmVerdict::kPass;
}

double ThresholdAqm::mark_probability(std::uint64_t queue_bytes) const {
  if (queue_bytes < s_.kmin_bytes) {
    return 0.0;
  }
  if (queue_bytes > s_.kmax_bytes) {
    return 1.0;
  }
  if (s_.kmax_bytes == s_.kmin_bytes) {
    return s_.pmax;
  }
  return s_.pmax * static_cast<double>(queue_bytes - s_.kmin_bytes) /
         static_cast<double>(s_.kmax_bytes - s_.kmin_bytes);
}

}  // namespace gw
