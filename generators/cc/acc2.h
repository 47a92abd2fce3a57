// "acc2": acc (acc.h) with its three known weaknesses fixed. Everything else -- the
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
#pragma once

#include <memory>

#include "generators/cc/acc.h"

namespace gw::cc {

std::unique_ptr<CongestionControl> make_acc2(const CcContext& ctx, const CcParams& params);

}  // namespace gw::cc
