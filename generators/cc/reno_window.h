// Window growth of RFC 5681 §3.1 in bytes, shared by Reno, DCTCP (RFC 8257 §3.3: "the same
// as standard TCP" otherwise) and Prague: slow start with byte counting (RFC 3465) until
// ssthresh, then congestion avoidance adding `ai` MSS per cwnd of bytes acknowledged.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

namespace gw::cc {

struct RenoWindow {
  std::uint32_t mss = 0;
  std::uint64_t min_cwnd = 0;  // bytes; RFC 5681 eq. (4): 2 SMSS
  std::uint64_t cwnd = 0;
  std::uint64_t ssthresh = std::numeric_limits<std::uint64_t>::max();
  double ca_credit = 0;  // bytes acknowledged in congestion avoidance since the last MSS

  bool in_slow_start() const { return cwnd < ssthresh; }

  // `ai`: MSS added per window in congestion avoidance (1 for Reno; Prague scales it).
  void grow(std::uint64_t acked, double ai = 1.0) {
    if (in_slow_start()) {
      const std::uint64_t room = ssthresh - cwnd;
      const std::uint64_t ss = std::min(acked, room);
      cwnd += ss;
      acked -= ss;  // what crosses ssthresh counts toward congestion avoidance
    }
    ca_credit += static_cast<double>(acked) * ai;
    while (ca_credit >= static_cast<double>(cwnd)) {
      ca_credit -= static_cast<double>(cwnd);
      cwnd += mss;
    }
  }

  // Multiplicative decrease: ssthresh = cwnd = max(target, min_cwnd).
  void reduce_to(double target_bytes) {
    cwnd = std::max(min_cwnd, static_cast<std::uint64_t>(std::max(0.0, target_bytes)));
    ssthresh = cwnd;
    ca_credit = 0;
  }
};

}  // namespace gw::cc
