#include "generators/cc/swift.h"

#include <algorithm>
#include <cmath>

#include "generators/cc/params.h"

namespace gw::cc {

SwiftSettings SwiftSettings::from(const CcParams& params) {
  ParamReader r("swift", params);
  SwiftSettings s;
  s.base_target = r.micros("base_target_us", 25.0, 0.0, 1e9);
  s.per_hop = r.micros("per_hop_us", 1.0, 0.0, 1e9);
  s.fs_range = r.micros("fs_range_us", 100.0, 0.0, 1e9);
  s.fs_min_cwnd = r.number("fs_min_cwnd", s.fs_min_cwnd, 0.0, 1e9, Bounds::kOpenLow);
  s.fs_max_cwnd = r.number("fs_max_cwnd", s.fs_max_cwnd, 0.0, 1e9, Bounds::kOpenLow);
  s.ai = r.number("ai", s.ai, 0.0, 1e6);
  s.beta = r.number("beta", s.beta, 0.0, 1.0, Bounds::kOpenLow);
  s.max_mdf = r.number("max_mdf", s.max_mdf, 0.0, 1.0, Bounds::kOpenHigh);
  s.min_cwnd = r.number("min_cwnd", s.min_cwnd, 0.0, 1e9, Bounds::kOpenLow);
  s.max_cwnd = r.number("max_cwnd", s.max_cwnd, 0.0, 1e12, Bounds::kOpenLow);
  s.initial_cwnd = r.number("initial_cwnd_packets", s.initial_cwnd, 0.0, 1e12, Bounds::kOpenLow);
  s.retx_reset_threshold = r.integer("retx_reset_threshold", s.retx_reset_threshold, 1, 1'000'000);
  if (s.fs_min_cwnd >= s.fs_max_cwnd) {
    r.fail("fs_min_cwnd", "must be below fs_max_cwnd");
  }
  if (s.min_cwnd > s.max_cwnd) {
    r.fail("min_cwnd", "must not exceed max_cwnd");
  }
  r.finish();
  return s;
}

Swift::Swift(const CcContext& ctx, const SwiftSettings& s)
    : s_(s),
      mss_(ctx.mss_bytes),
      hops_hint_(ctx.hops_hint),
      fs_alpha_(static_cast<double>(s.fs_range.count()) /
                (1.0 / std::sqrt(s.fs_min_cwnd) - 1.0 / std::sqrt(s.fs_max_cwnd))),
      fs_beta_(-fs_alpha_ / std::sqrt(s.fs_max_cwnd)),
      cwnd_(std::clamp(s.initial_cwnd, s.min_cwnd, s.max_cwnd)) {
  if (ctx.base_rtt_hint > Duration{0}) {
    rtt_.update(ctx.base_rtt_hint);
  }
}

Duration Swift::target_delay(std::uint32_t hops) const {
  const double fs =
      std::clamp(fs_alpha_ / std::sqrt(cwnd_) + fs_beta_, 0.0, static_cast<double>(s_.fs_range.count()));
  return s_.base_target + hops * s_.per_hop + Duration{std::llround(fs)};
}

bool Swift::can_decrease(Instant now) const {
  return !decreased_ || now - last_decrease_ >= rtt_.srtt();
}

void Swift::decrease(Instant now, double factor) {
  cwnd_ = std::clamp(cwnd_ * factor, s_.min_cwnd, s_.max_cwnd);
  last_decrease_ = now;
  decreased_ = true;
}

void Swift::on_ack(const AckEvent& e) {
  rtt_.update(e.rtt);
  retransmit_count_ = 0;
  if (e.rtt <= Duration{0}) {
    return;
  }
  const auto hops = e.int_hops.empty() ? hops_hint_ : static_cast<std::uint32_t>(e.int_hops.size());
  const Duration target = target_delay(hops);
  if (e.rtt < target) {
    const double acked = static_cast<double>(e.acked_bytes) / mss_;
    cwnd_ += cwnd_ >= 1.0 ? s_.ai / cwnd_ * acked : s_.ai * acked;
    cwnd_ = std::clamp(cwnd_, s_.min_cwnd, s_.max_cwnd);
  } else if (can_decrease(e.now)) {
    const double d = static_cast<double>(e.rtt.count());
    const double over = (d - static_cast<double>(target.count())) / d;
    decrease(e.now, std::max(1.0 - s_.beta * over, 1.0 - s_.max_mdf));
  }
}

void Swift::on_loss(const LossEvent& e) {
  if (e.timeout) {
    ++retransmit_count_;
    if (retransmit_count_ >= s_.retx_reset_threshold) {
      cwnd_ = s_.min_cwnd;
      return;
    }
  } else {
    retransmit_count_ = 0;
  }
  if (can_decrease(e.now)) {
    decrease(e.now, 1.0 - s_.max_mdf);
  }
}

std::uint64_t Swift::cwnd_bytes() const {
  return static_cast<std::uint64_t>(std::max(1.0, cwnd_) * mss_);
}

BitRate Swift::pacing_rate() const {
  if (cwnd_ >= 1.0 || !rtt_.has_sample()) {
    return BitRate{0};
  }
  const double bps = cwnd_ * mss_ * 8.0 / std::chrono::duration<double>(rtt_.srtt()).count();
  return BitRate{static_cast<std::uint64_t>(std::max(1.0, bps))};
}

CcState Swift::state() const {
  return CcState{cwnd_bytes(), pacing_rate().bps, cwnd_ < 1.0 ? "paced" : "window"};
}

std::unique_ptr<CongestionControl> make_swift(const CcContext& ctx, const CcParams& params) {
  return std::make_unique<Swift>(ctx, SwiftSettings::from(params));
}

}  // namespace gw::cc
