// Retransmission timeout per RFC 6298: SRTT and RTTVAR from RTT samples (§2.2, §2.3, with
// alpha = 1/8, beta = 1/4, K = 4, clock granularity G = 1 ns), doubled on each expiry (§5.5)
// until a new sample recomputes it, at most `max` (§2.5). The minimum applies to the variance
// term, as Linux does (tcp_rtt_estimator() keeps RTTVAR at least tcp_rto_min; tcp_set_rto()):
// RTO = SRTT + max(K * RTTVAR, min). RFC 6298 §2.4's max(min, SRTT + K * RTTVAR) lets the
// timer sit a few microseconds above SRTT once many equal samples collapse RTTVAR, so that any
// queue growth faster than the estimator fires a spurious timeout; with the floor on the
// variance term a lossless path never times out unless its RTT grows by `min` within one
// RTT. Samples from retransmitted packets must not be fed in (Karn's rule, §3); the caller
// filters them. Integer nanoseconds throughout: updates round toward zero.
#pragma once

#include <cstdint>

#include "core/time.h"

namespace gw::transport {

class RttEstimator {
 public:
  RttEstimator(Duration initial_rto, Duration min_rto, Duration max_rto)
      : rto_(initial_rto), min_rto_(min_rto), max_rto_(max_rto) {}

  void on_sample(Duration r) {
    if (r.count() <= 0) {
      r = Duration{1};
    }
    if (samples_ == 0) {  // §2.2
      srtt_ = r;
      rttvar_ = r / 2;
      min_rtt_ = r;
    } else {  // §2.3: RTTVAR first, with the old SRTT
      const Duration diff = srtt_ > r ? srtt_ - r : r - srtt_;
      rttvar_ = (3 * rttvar_ + diff) / 4;
      srtt_ = (7 * srtt_ + r) / 8;
      min_rtt_ = r < min_rtt_ ? r : min_rtt_;
    }
    ++samples_;
    const Duration var = 4 * rttvar_ > min_rto_ ? 4 * rttvar_ : min_rto_;
    rto_ = clamp(srtt_ + var);
  }

  // §5.5: back off the timer when it expires.
  void on_timeout() { rto_ = clamp(2 * rto_); }

  Duration rto() const { return rto_; }
  Duration srtt() const { return srtt_; }
  Duration rttvar() const { return rttvar_; }
  Duration min_rtt() const { return min_rtt_; }
  std::uint64_t samples() const { return samples_; }

 private:
  Duration clamp(Duration d) const {
    if (d < min_rto_) {
      return min_rto_;
    }
    return d > max_rto_ ? max_rto_ : d;
  }

  Duration rto_;
  Duration min_rto_;
  Duration max_rto_;
  Duration srtt_{0};
  Duration rttvar_{0};
  Duration min_rtt_{0};
  std::uint64_t samples_ = 0;
};

}  // namespace gw::transport
