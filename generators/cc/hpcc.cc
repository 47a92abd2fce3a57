#include "generators/cc/hpcc.h"

#include <algorithm>

#include "generators/cc/params.h"

namespace gw::cc {

HpccSettings HpccSettings::from(const CcParams& params) {
  ParamReader r("hpcc", params);
  HpccSettings s;
  s.eta = r.number("eta", s.eta, 0.0, 1.0, Bounds::kOpenLow);
  s.max_stage = r.integer("max_stage", s.max_stage, 0, 1000);
  s.rai_bps = r.number("rai_mbps", 0.0, 0.0, 1e9) * 1e6;
  s.base_rtt = r.micros("base_rtt_us", 0.0, 0.0, 1e9);
  s.min_cwnd_bytes = r.integer("min_cwnd_bytes", 0, 0, std::uint64_t{1} << 40);
  r.finish();
  return s;
}

Hpcc::Hpcc(const CcContext& ctx, const HpccSettings& s)
    : s_(s),
      mss_(ctx.mss_bytes),
      line_bps_(static_cast<double>(ctx.line_rate_bps)),
      rai_bps_(s.rai_bps > 0 ? s.rai_bps : line_bps_ * 10.0 / 25'000.0) {
  const Duration t = s.base_rtt > Duration{0} ? s.base_rtt : ctx.base_rtt_hint;
  if (t > Duration{0}) {
    set_base_rtt(t);
  }
}

void Hpcc::set_base_rtt(Duration t) {
  t_ = t;
  t_s_ = std::chrono::duration<double>(t).count();
  w_init_ = line_bps_ / 8.0 * t_s_;
  w_ = wc_ = w_init_;
  w_ai_ = rai_bps_ / 8.0 * t_s_;
}

double Hpcc::measure_inflight(std::span<const IntHopEcho> hops) {
  double u = 0;
  double tau = 0;
  for (std::size_t i = 0; i < hops.size(); ++i) {
    const IntHopEcho& now = hops[i];
    const IntHopEcho& old = prev_[i];
    if (now.egress_ts_ns <= old.egress_ts_ns) {
      continue;  // no time elapsed at this hop: no rate to measure
    }
    const double dt_ns = static_cast<double>(now.egress_ts_ns - old.egress_ts_ns);
    const double b = now.link_rate_bps > 0 ? static_cast<double>(now.link_rate_bps) : line_bps_;
    const std::uint32_t tx = now.tx_bytes - old.tx_bytes;  // wraps at 2^32 by design
    const double tx_rate = static_cast<double>(tx) * 8.0 * 1e9 / dt_ns;
    const double qlen = std::min(now.queue_bytes, old.queue_bytes);
    const double ui = qlen * 8.0 / (b * t_s_) + tx_rate / b;
    if (ui > u) {
      u = ui;
      tau = dt_ns * 1e-9;
    }
  }
  tau = std::min(tau, t_s_);
  u_ = (1.0 - tau / t_s_) * u_ + (tau / t_s_) * u;
  return u_;
}

void Hpcc::compute_wind(double u, bool update_wc) {
  double w = 0;
  if (u >= s_.eta || inc_stage_ >= s_.max_stage) {
    w = wc_ / (u / s_.eta) + w_ai_;
    if (update_wc) {
      inc_stage_ = 0;
    }
  } else {
    w = wc_ + w_ai_;
    if (update_wc) {
      ++inc_stage_;
    }
  }
  const double floor = s_.min_cwnd_bytes > 0 ? static_cast<double>(s_.min_cwnd_bytes) : mss_;
  w_ = std::clamp(w, floor, w_init_);
  if (update_wc) {
    wc_ = w_;
  }
}

void Hpcc::on_ack(const AckEvent& e) {
  rounds_.on_ack(e.acked_bytes, e.bytes_in_flight);
  if (t_ == Duration{0}) {
    const Duration sample = e.min_rtt > Duration{0} ? e.min_rtt : e.rtt;
    if (sample <= Duration{0}) {
      return;
    }
    set_base_rtt(sample);
  }
  const std::size_t n = std::min(e.int_hops.size(), kMaxHops);
  if (n == 0) {
    return;  // no telemetry: keep the window
  }
  if (n == prev_hops_) {
    const double u = measure_inflight(e.int_hops.first(n));
    const bool update_wc = rounds_.acked() > last_update_;
    compute_wind(u, update_wc);
    if (update_wc) {
      last_update_ = rounds_.mark(e.bytes_in_flight);
    }
  }
  std::copy_n(e.int_hops.begin(), n, prev_.begin());
  prev_hops_ = n;
}

std::uint64_t Hpcc::cwnd_bytes() const {
  return t_ == Duration{0} ? 10ULL * mss_ : static_cast<std::uint64_t>(w_);
}

BitRate Hpcc::pacing_rate() const {
  if (t_ == Duration{0}) {
    return BitRate{0};
  }
  return BitRate{static_cast<std::uint64_t>(w_ * 8.0 / t_s_)};
}

CcState Hpcc::state() const {
  const char* phase = u_ >= s_.eta || inc_stage_ >= s_.max_stage ? "multiplicative" : "additive";
  return CcState{cwnd_bytes(), pacing_rate().bps, phase};
}

std::unique_ptr<CongestionControl> make_hpcc(const CcContext& ctx, const CcParams& params) {
  return std::make_unique<Hpcc>(ctx, HpccSettings::from(params));
}

}  // namespace gw::cc
