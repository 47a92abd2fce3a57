// netem's correlated uniform generator and probability test, shared by the delay, reorder,
// loss, duplicate and corrupt stages.
//
// Source: Linux net/sched/sch_netem.c, init_crandom / get_crandom; iproute2 tc/q_netem.c
// set_percent for the scaling of a fraction to u32; tc-netem(8).
//
//   rho  = rint(correlation * (2^32 - 1))          (tc set_percent; 0 = uncorrelated)
//   next = (u * (2^32 - (rho + 1)) + last * (rho + 1)) >> 32   in 64-bit arithmetic on u32 values
//
// This is exponential smoothing of a uniform stream, not a way to get a target correlation
// with a uniform marginal: the smoothed values crowd around 2^31 as rho grows (their variance
// is (1 - r) / (1 + r) of a uniform's, r = (rho + 1) / 2^32), and the lag-1 autocorrelation of
// the smoothed sequence is r (X_n = (1-r) U_n + r X_{n-1} is an AR(1) process with coefficient
// r; Cov(X_n, X_{n-1}) = r Var X). Consumers that reduce the value modulo something small
// (netem's uniform jitter `rnd % (2 * sigma)`, table index `rnd % size`) keep little of that
// correlation; tc-netem(8) itself calls correlated loss deprecated for such reasons.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/rng.h"

namespace gw {

// A probability as the threshold netem-style tests compare a u32 draw against: p * 2^32,
// so `u < scaled_probability(p)` holds with probability p (exactly, up to 2^-32 rounding).
// p <= 0 -> 0 (never), p >= 1 -> 2^32 (always).
inline std::uint64_t scaled_probability(double p) {
  if (!(p > 0.0)) {
    return 0;
  }
  if (p >= 1.0) {
    return std::uint64_t{1} << 32;
  }
  return static_cast<std::uint64_t>(std::ldexp(p, 32));
}

// The event test on a u32 draw. netem writes it `P >= u` with P = rint(p * (2^32 - 1)), one
// part in 2^32 more likely; gradwall uses `u < p * 2^32` so p is exact at 0 and 1.
constexpr bool chance(std::uint32_t u, std::uint64_t scaled_p) {
  return u < scaled_p;
}

// One correlated stream (netem's struct crndstate). It holds only the smoothing state; the
// random words come from the owning stage's Rng, passed to each call, so several generators of
// one stage share its stream as netem's share one prng.
class CorrelatedUniform {
 public:
  // Uncorrelated; draws are the Rng's words unchanged.
  CorrelatedUniform() = default;
  // init_crandom: the first `last` is a random word (one draw from `rng`).
  CorrelatedUniform(double correlation, Rng& rng) : last_(rng.next_u32()) { set_correlation(correlation); }

  // Changes the smoothing weight and keeps `last` (a running stage is reconfigured without
  // resetting its random state). correlation is clamped to [0, 1].
  void set_correlation(double correlation) {
    const double c = correlation < 0 ? 0.0 : (correlation > 1 ? 1.0 : correlation);
    rho_ = static_cast<std::uint32_t>(std::rint(c * 4294967295.0));
  }

  // get_crandom: one uniform u32, smoothed with the previous output when correlated. An
  // uncorrelated generator neither reads nor updates `last`, as in netem.
  std::uint32_t next(Rng& rng) {
    const std::uint64_t value = rng.next_u32();
    if (rho_ == 0) {
      return static_cast<std::uint32_t>(value);
    }
    const std::uint64_t rho = std::uint64_t{rho_} + 1;
    // Both products are < 2^64 and so is their sum: value, last < 2^32 and the weights add to 2^32.
    const std::uint64_t answer =
        (value * ((std::uint64_t{1} << 32) - rho) + std::uint64_t{last_} * rho) >> 32;
    last_ = static_cast<std::uint32_t>(answer);
    return last_;
  }

  // True with probability p (u < p * 2^32) on a correlated draw. p <= 0 draws nothing, as
  // netem's `q->loss && ...` short-circuits, so a disabled impairment leaves the stream alone.
  bool chance(double p, Rng& rng) {
    const std::uint64_t scaled = scaled_probability(p);
    return scaled != 0 && gw::chance(next(rng), scaled);
  }

  std::uint32_t rho() const { return rho_; }

 private:
  std::uint32_t rho_ = 0;   // tc's u32 form of the correlation; 0 = uncorrelated
  std::uint32_t last_ = 0;  // the previous output (netem crndstate.last)
};

// A stream and one correlated generator on it: the draw state of a stage with one chance
// (duplicate, corrupt), kept per stage or per flow (flow_streams.h).
struct CorrelatedDraws {
  Rng rng;
  CorrelatedUniform cor;

  // init_crandom on a fresh stream: the first `last` is its first word.
  static CorrelatedDraws make(Rng rng, double correlation) {
    CorrelatedDraws d{rng, {}};
    d.cor = CorrelatedUniform(correlation, d.rng);
    return d;
  }
};

}  // namespace gw
