#include "generators/cc/timely.h"

#include <algorithm>

#include "generators/cc/params.h"

namespace gw::cc {

TimelySettings TimelySettings::from(const CcParams& params) {
  ParamReader r("timely", params);
  TimelySettings s;
  s.ewma_alpha = r.number("ewma_alpha", s.ewma_alpha, 0.0, 1.0, Bounds::kOpenLow);
  s.beta = r.number("beta", s.beta, 0.0, 1.0, Bounds::kOpenLow);
  s.delta_bps = r.number("delta_mbps", 10.0, 0.0, 1e9) * 1e6;
  s.t_low = r.micros("t_low_us", 50.0, 0.0, 1e9);
  s.t_high = r.micros("t_high_us", 500.0, 0.0, 1e9);
  s.hai_threshold = r.integer("hai_threshold", s.hai_threshold, 1, 1'000'000);
  s.hai_n = r.number("hai_n", s.hai_n, 1.0, 1e6);
  s.min_rtt = r.micros("min_rtt_us", 0.0, 0.0, 1e9);
  s.min_update_interval = r.micros("min_update_interval_us", 0.0, 0.0, 1e9);
  s.min_rate_bps = r.number("min_rate_mbps", 10.0, 0.0, 1e9, Bounds::kOpenLow) * 1e6;
  s.initial_rate_bps = r.number("initial_rate_gbps", 0.0, 0.0, 1e6) * 1e9;
  if (s.t_low >= s.t_high) {
    r.fail("t_low_us", "must be below t_high_us");
  }
  r.finish();
  return s;
}

Timely::Timely(const CcContext& ctx, const TimelySettings& s)
    : s_(s),
      line_(static_cast<double>(ctx.line_rate_bps)),
      rate_(s.initial_rate_bps > 0 ? std::min(s.initial_rate_bps, line_) : line_) {}

void Timely::on_ack(const AckEvent& e) {
  if (e.rtt <= Duration{0}) {
    return;
  }
  if (s_.min_rtt > Duration{0}) {
    min_rtt_ = s_.min_rtt;
  } else {
    const Duration sample = e.min_rtt > Duration{0} ? e.min_rtt : e.rtt;
    min_rtt_ = min_rtt_ == Duration{0} ? sample : std::min(min_rtt_, sample);
  }
  if (prev_rtt_ == Duration{0}) {
    prev_rtt_ = e.rtt;  // the first sample only starts the gradient
    last_update_ = e.now;
    return;
  }
  const Duration interval = s_.min_update_interval > Duration{0} ? s_.min_update_interval : prev_rtt_;
  if (e.now - last_update_ < interval) {
    return;
  }
  last_update_ = e.now;
  const double new_rtt = static_cast<double>(e.rtt.count());
  const double new_diff = new_rtt - static_cast<double>(prev_rtt_.count());
  prev_rtt_ = e.rtt;
  rtt_diff_ = (1.0 - s_.ewma_alpha) * rtt_diff_ + s_.ewma_alpha * new_diff;
  const double gradient = rtt_diff_ / static_cast<double>(min_rtt_.count());

  if (e.rtt < s_.t_low) {
    region_ = Region::kBelowTLow;
    rate_ += s_.delta_bps;
  } else if (e.rtt > s_.t_high) {
    region_ = Region::kAboveTHigh;
    negative_run_ = 0;
    rate_ *= 1.0 - s_.beta * (1.0 - static_cast<double>(s_.t_high.count()) / new_rtt);
  } else if (gradient <= 0) {
    region_ = Region::kGradientIncrease;
    ++negative_run_;
    const double n = negative_run_ >= s_.hai_threshold ? s_.hai_n : 1.0;
    rate_ += n * s_.delta_bps;
  } else {
    region_ = Region::kGradientDecrease;
    negative_run_ = 0;
    rate_ *= std::max(0.0, 1.0 - s_.beta * gradient);
  }
  rate_ = std::clamp(rate_, s_.min_rate_bps, line_);
}

CcState Timely::state() const {
  static constexpr const char* kNames[] = {"start", "below_t_low", "above_t_high", "gradient_increase",
                                           "gradient_decrease"};
  return CcState{kUnlimitedCwnd, pacing_rate().bps, kNames[static_cast<int>(region_)]};
}

std::unique_ptr<CongestionControl> make_timely(const CcContext& ctx, const CcParams& params) {
  return std::make_unique<Timely>(ctx, TimelySettings::from(params));
}

}  // namespace gw::cc
