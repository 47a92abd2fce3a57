#include "generators/cc/acc.h"

#include <algorithm>

#include "generators/cc/params.h"

namespace gw::cc {

void AccSettings::read_common(ParamReader& r) {
  gradient_threshold = r.number("gradient_threshold", gradient_threshold, 0.0, 1e6);
  queue_limit = r.micros("queue_limit_us", 50.0, 0.0, 1e9);
  int_queue_limit_bytes =
      r.integer("int_queue_limit_bytes", int_queue_limit_bytes, 0, std::uint64_t{1} << 40);
  ecn_response = r.flag("ecn_response", ecn_response);
  min_rate_bps = r.number("min_rate_mbps", 100.0, 0.0, 1e9, Bounds::kOpenLow) * 1e6;
  initial_rate_bps = r.number("initial_rate_gbps", 0.0, 0.0, 1e6) * 1e9;
}

AccSettings AccSettings::from(const CcParams& params) {
  ParamReader r("acc", params);
  AccSettings s;
  s.read_common(r);
  s.cut_fraction = r.number("cut_fraction", s.cut_fraction, 0.0, 1.0, Bounds::kOpenHigh);
  s.step_bps = r.number("step_gbps", 1.5, 0.0, 1e6) * 1e9;
  r.finish();
  return s;
}

Acc::Acc(const CcContext& ctx, const AccSettings& s)
    : s_(s),
      mss_(ctx.mss_bytes),
      line_(static_cast<double>(ctx.line_rate_bps)),
      step_(s.acc2 ? s.step_fraction * line_ : s.step_bps),
      rate_(s.initial_rate_bps > 0 ? std::min(s.initial_rate_bps, line_) : line_) {
  if (ctx.base_rtt_hint > Duration{0}) {
    rtt_.update(ctx.base_rtt_hint);
  }
}

void Acc::on_ack(const AckEvent& e) {
  rtt_.update(e.rtt);
  if (e.one_way_delay > Duration{0}) {
    min_owd_ = min_owd_ == Duration{0} ? e.one_way_delay : std::min(min_owd_, e.one_way_delay);
    qd_ = e.one_way_delay - min_owd_;
  } else if (e.rtt > Duration{0}) {
    const Duration floor = e.min_rtt > Duration{0} ? e.min_rtt : e.rtt;
    min_rtt_ = min_rtt_ == Duration{0} ? floor : std::min(min_rtt_, floor);
    qd_ = e.rtt - min_rtt_;
  }
  acked_ += e.acked_bytes;
  ce_ += e.ce_bytes;
  for (const IntHopEcho& hop : e.int_hops) {
    int_depth_ = std::max<std::uint64_t>(int_depth_, hop.queue_bytes);
  }
  if (!started_) {
    started_ = true;
    last_update_ = e.now;
    qd_at_update_ = qd_;
    return;
  }
  if (rtt_.has_sample() && e.now - last_update_ >= rtt_.srtt()) {
    update(e.now);
  }
}

double Acc::decrease_factor(double gradient) const {
  if (!s_.acc2) {
    return gradient > s_.gradient_threshold ? 1.0 - s_.cut_fraction : 1.0;
  }
  double factor = 1.0;
  if (gradient > s_.gradient_threshold) {  // fix 2: proportional to the gradient
    factor = 1.0 - s_.gradient_gain * gradient;
  }
  if (qd_ > s_.target_delay) {  // fix 1: the absolute-delay (Swift) term
    const double qd = static_cast<double>(qd_.count());
    factor = std::min(factor, 1.0 - s_.beta * (qd - static_cast<double>(s_.target_delay.count())) / qd);
  }
  return factor < 1.0 ? std::max(factor, 1.0 - s_.max_mdf) : 1.0;
}

void Acc::update(Instant now) {
  const double elapsed = static_cast<double>((now - last_update_).count());
  const double gradient = static_cast<double>((qd_ - qd_at_update_).count()) / elapsed;
  const double factor = decrease_factor(gradient);
  const bool int_ok = int_depth_ < s_.int_queue_limit_bytes || s_.int_queue_limit_bytes == 0;
  if (factor < 1.0) {
    rate_ *= factor;
    phase_ = "decrease";
  } else if (gradient <= s_.gradient_threshold && qd_ < s_.queue_limit && int_ok) {
    rate_ += step_;
    phase_ = "increase";
  } else {
    phase_ = "hold";
  }
  if (s_.ecn_response && acked_ > 0 && ce_ > 0) {
    rate_ *= 1.0 - static_cast<double>(ce_) / static_cast<double>(acked_);
    phase_ = "ecn_decrease";
  }
  rate_ = std::clamp(rate_, s_.min_rate_bps, line_);
  last_update_ = now;
  qd_at_update_ = qd_;
  acked_ = 0;
  ce_ = 0;
  int_depth_ = 0;
}

std::uint64_t Acc::cwnd_bytes() const {
  const double srtt = std::chrono::duration<double>(rtt_.srtt()).count();
  const double w = 2.0 * rate_ / 8.0 * srtt;
  return std::max(static_cast<std::uint64_t>(w), std::uint64_t{2} * mss_);
}

CcState Acc::state() const {
  return CcState{cwnd_bytes(), pacing_rate().bps, phase_};
}

std::unique_ptr<CongestionControl> make_acc(const CcContext& ctx, const CcParams& params) {
  return std::make_unique<Acc>(ctx, AccSettings::from(params));
}

}  // namespace gw::cc
