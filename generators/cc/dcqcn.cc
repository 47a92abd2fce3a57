#include "generators/cc/dcqcn.h"

#include <algorithm>
#include <cmath>

#include "generators/cc/params.h"

namespace gw::cc {

DcqcnSettings DcqcnSettings::from(const CcParams& params) {
  ParamReader r("dcqcn", params);
  DcqcnSettings s;
  s.g = r.number("g", s.g, 0.0, 1.0, Bounds::kOpenLow);
  s.initial_alpha = r.number("initial_alpha", s.initial_alpha, 0.0, 1.0);
  s.alpha_timer = r.micros("alpha_timer_us", 55.0, 0.001, 1e9);
  s.rate_timer = r.micros("rate_timer_us", 55.0, 0.001, 1e9);
  s.byte_counter =
      static_cast<std::uint64_t>(r.number("byte_counter_mb", 10.0, 0.0, 1e6, Bounds::kOpenLow) * 1e6);
  s.f_stages = r.integer("f_stages", s.f_stages, 0, 1000);
  s.rai_bps = r.number("rai_mbps", 40.0, 0.0, 1e9) * 1e6;
  s.rhai_bps = r.number("rhai_mbps", 400.0, 0.0, 1e9) * 1e6;
  s.min_rate_bps = r.number("min_rate_mbps", 1.0, 0.0, 1e9, Bounds::kOpenLow) * 1e6;
  s.initial_rate_bps = r.number("initial_rate_gbps", 0.0, 0.0, 1e6) * 1e9;
  r.finish();
  return s;
}

Dcqcn::Dcqcn(const CcContext& ctx, const DcqcnSettings& s)
    : s_(s),
      line_(static_cast<double>(ctx.line_rate_bps)),
      rc_(s.initial_rate_bps > 0 ? std::min(s.initial_rate_bps, line_) : line_),
      rt_(rc_),
      alpha_(s.initial_alpha) {}

void Dcqcn::decay_alpha(Instant now) {
  if (next_alpha_ > now) {
    return;
  }
  const auto periods = (now - next_alpha_) / s_.alpha_timer + 1;
  alpha_ *= std::pow(1.0 - s_.g, static_cast<double>(periods));
  next_alpha_ += periods * s_.alpha_timer;
}

void Dcqcn::on_cnp(Instant now) {
  decay_alpha(now);  // periods that passed while the timer was parked at line rate
  rt_ = rc_;
  rc_ = std::max(s_.min_rate_bps, rc_ * (1.0 - alpha_ / 2.0));
  alpha_ = (1.0 - s_.g) * alpha_ + s_.g;
  t_stage_ = 0;
  bc_stage_ = 0;
  bytes_ = 0;
  next_alpha_ = now + s_.alpha_timer;
  next_increase_ = now + s_.rate_timer;
  phase_ = Phase::kFastRecovery;
}

void Dcqcn::on_packet_sent(const SentEvent& e) {
  if (phase_ == Phase::kLineRate) {
    return;
  }
  bytes_ += e.bytes;
  while (bytes_ >= s_.byte_counter && phase_ != Phase::kLineRate) {
    bytes_ -= s_.byte_counter;
    increase_event();
    ++bc_stage_;
  }
}

Instant Dcqcn::next_timer() const {
  // At line rate the alpha timer is parked: decay_alpha() catches up at the next CNP, so an
  // idle flow costs no events.
  return phase_ == Phase::kLineRate ? kNever : std::min(next_alpha_, next_increase_);
}

void Dcqcn::on_timer(Instant now) {
  // A late call catches up on every period that elapsed.
  decay_alpha(now);
  while (next_increase_ <= now && phase_ != Phase::kLineRate) {
    next_increase_ += s_.rate_timer;
    increase_event();
    ++t_stage_;
  }
  if (phase_ == Phase::kLineRate) {
    next_increase_ = kNever;  // back at line rate: nothing left to recover
  }
}

void Dcqcn::increase_event() {
  const std::uint64_t hi = std::max(t_stage_, bc_stage_);
  const std::uint64_t lo = std::min(t_stage_, bc_stage_);
  if (hi < s_.f_stages) {
    phase_ = Phase::kFastRecovery;
  } else if (lo > s_.f_stages) {
    phase_ = Phase::kHyper;
    rt_ += static_cast<double>(lo - s_.f_stages) * s_.rhai_bps;
  } else {
    phase_ = Phase::kAdditive;
    rt_ += s_.rai_bps;
  }
  rt_ = std::min(rt_, line_);
  rc_ = (rt_ + rc_) / 2.0;
  if (rc_ >= line_ * (1.0 - 1e-9)) {
    rc_ = line_;
    phase_ = Phase::kLineRate;
  }
}

BitRate Dcqcn::pacing_rate() const {
  return BitRate{static_cast<std::uint64_t>(rc_)};
}

CcState Dcqcn::state() const {
  static constexpr const char* kNames[] = {"line_rate", "fast_recovery", "additive_increase",
                                           "hyper_increase"};
  return CcState{kUnlimitedCwnd, pacing_rate().bps, kNames[static_cast<int>(phase_)]};
}

std::unique_ptr<CongestionControl> make_dcqcn(const CcContext& ctx, const CcParams& params) {
  return std::make_unique<Dcqcn>(ctx, DcqcnSettings::from(params));
}

}  // namespace gw::cc
