// "acc2": acc (acc.h) with its three known weaknesses fixed, and those found since on WAN paths
// (4 below; 5-14 in acc.cc and docs/cc.md "acc2"). Everything else -- the
// once-per-srtt update, the queue-delay gradient, the fractional ECN response, ECT(1), the
// 2 x rate x srtt safety window -- is acc's.
//  1. Standing queue as a resting point (acc has no absolute-delay term): when the queue
//     delay exceeds target_delay, rate *= max(1 - beta (qd - target) / qd, 1 - max_mdf), the
//     Swift decrease (Kumar et al. SIGCOMM 2020, Algorithm 1), so a flat but long queue drains.
//  2. Fixed 5 % cut under-reacting to incast: the gradient cut is proportional to the gradient,
//     rate *= max(1 - gradient_gain x gradient, 1 - max_mdf) (TIMELY's 1 - beta g, Mittal et al.
//     SIGCOMM 2015), so a queue growing N times faster is cut harder, bounded by max_mdf.
//  3. Fixed +1.5 Gbit/s step: the step is step_fraction x line rate (2 %), the same relative
//     probe at 10 and at 400 Gbit/s.
//  4. Delay jitter read as queueing: 0.2 ms of jitter pinned acc's per-sample signal above a
//     50 us target. acc2 decides on the least queueing delay of each interval (a queue every
//     sample of the interval waited in: the minimum filter of CoDel, RFC 8289 §3.1, and of
//     BBR's min_rtt), its gradient taken between those minima, and raises the target and the
//     queue limit by jitter_allowance x the delay noise: the mean absolute second difference
//     of successive interval minima, scaled to the first difference's (1.13 sigma for normal
//     jitter; a queue growing at a steady pace adds nothing to it; fix 12), smoothed 1/4 per
//     interval as RFC 6298's RTTVAR.
// When both cuts apply the stronger one is taken (still bounded by max_mdf).
//
// Parameters (CcParams): acc's gradient_threshold, queue_limit_us, int_queue_limit_bytes,
// ecn_response, min_rate_mbps, initial_rate_gbps, plus
//   target_delay_us     50   gradwall default (acc's queue limit)
//   beta               0.8   Swift's beta
//   max_mdf            0.5   Swift's max_mdf
//   gradient_gain        5   k (gradwall default: gradient 0.01 -> 5 % cut, acc's cut at
//                            its threshold; larger gradients cut more)
//   step_fraction     0.02   of line rate
//   jitter_allowance     2   gradwall default: target + 2 x noise (~2.3 sigma of normal jitter)
#pragma once

#include <memory>

#include "generators/cc/acc.h"

namespace gw::cc {

std::unique_ptr<CongestionControl> make_acc2(const CcContext& ctx, const CcParams& params);

}  // namespace gw::cc
