// Smoothed RTT and RTT variation per RFC 6298 §2 (alpha 1/8, beta 1/4), in integer
// nanoseconds, plus the connection's minimum RTT. Used by controllers that need "one RTT"
// (per-RTT guards, pacing at cwnd/srtt).
#pragma once

#include <algorithm>

#include "core/time.h"

namespace gw::cc {

class RttEstimator {
 public:
  // One RTT measurement; zero samples (Karn: retransmitted data) are ignored.
  void update(Duration r) {
    if (r <= Duration{0}) {
      return;
    }
    if (srtt_ == Duration{0}) {  // RFC 6298 §2.2: the first measurement
      srtt_ = r;
      rttvar_ = r / 2;
      min_ = r;
      return;
    }
    const Duration err = srtt_ > r ? srtt_ - r : r - srtt_;
    rttvar_ = (3 * rttvar_ + err) / 4;  // §2.3, beta = 1/4
    srtt_ = (7 * srtt_ + r) / 8;        // alpha = 1/8
    min_ = std::min(min_, r);
  }

  bool has_sample() const { return srtt_ > Duration{0}; }
  Duration srtt() const { return srtt_; }
  Duration rttvar() const { return rttvar_; }
  Duration min_rtt() const { return min_; }
  // RFC 6298 §2.3 with G = 0 and the §2.4 lower bound left to the caller's choice.
  Duration rto(Duration min_rto) const { return std::max(min_rto, srtt_ + 4 * rttvar_); }

 private:
  Duration srtt_{0};
  Duration rttvar_{0};
  Duration min_{0};
};

}  // namespace gw::cc
