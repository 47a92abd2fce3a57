#include "generators/cc/cubic.h"

#include <algorithm>
#include <cmath>

#include "generators/cc/params.h"

namespace gw::cc {

CubicSettings CubicSettings::from(const CcParams& params) {
  ParamReader r("cubic", params);
  CubicSettings s;
  s.c = r.number("c", s.c, 0.0, 1e6, Bounds::kOpenLow);
  s.beta = r.number("beta", s.beta, 0.0, 1.0, Bounds::kOpen);
  s.fast_convergence = r.flag("fast_convergence", s.fast_convergence);
  s.initial_cwnd_packets = r.integer("initial_cwnd_packets", s.initial_cwnd_packets, 1, 1'000'000);
  s.min_cwnd_packets = r.integer("min_cwnd_packets", s.min_cwnd_packets, 1, 1'000'000);
  s.hystart = r.flag("hystart", s.hystart);
  r.finish();
  return s;
}

Cubic::Cubic(const CcContext& ctx, const CubicSettings& s)
    : s_(s),
      mss_(ctx.mss_bytes),
      alpha_cubic_(3.0 * (1.0 - s.beta) / (1.0 + s.beta)),
      cwnd_(static_cast<double>(s.initial_cwnd_packets)) {
  if (ctx.base_rtt_hint > Duration{0}) {
    rtt_.update(ctx.base_rtt_hint);
  }
}

std::uint64_t Cubic::cwnd_bytes() const {
  return static_cast<std::uint64_t>(cwnd_ * mss_);
}

double Cubic::w_cubic(double t) const {
  const double d = t - k_;
  return s_.c * d * d * d + w_max_;
}

void Cubic::on_ack(const AckEvent& e) {
  rtt_.update(e.rtt);
  const bool round_ended = rounds_.on_ack(e.acked_bytes, e.bytes_in_flight);
  if (episode_ && (rounds_.acked() >= recover_ || e.bytes_in_flight == 0)) {
    episode_ = false;  // RFC 6582 §3.2: the episode ends when `recover` is acknowledged
    in_recovery_ = false;
  }
  if (e.ce_bytes > 0 && congestion_event(e.bytes_in_flight + e.acked_bytes)) {
    return;  // RFC 9438 §4.6: ECN-Echo is a congestion event
  }
  if (in_recovery_) {
    return;  // no growth in fast recovery
  }
  const double acked = static_cast<double>(e.acked_bytes) / mss_;
  if (cwnd_ < ssthresh_) {
    if (s_.hystart) {
      hystart_on_ack(e, round_ended);
    }
    const double ss = std::min(acked, std::max(0.0, ssthresh_ - cwnd_));
    cwnd_ += ss;
    if (acked > ss) {
      congestion_avoidance(e, acked - ss);
    }
    return;
  }
  congestion_avoidance(e, acked);
}

void Cubic::congestion_avoidance(const AckEvent& e, double acked) {
  if (!epoch_) {
    // §4.2: a new congestion avoidance stage.
    epoch_ = e.now;
    if (cwnd_ < w_max_) {
      k_ = std::cbrt((w_max_ - cwnd_) / s_.c);
    } else {
      k_ = 0;
      w_max_ = cwnd_;
    }
    w_est_ = cwnd_;
  }
  const double t = std::chrono::duration<double>(e.now - *epoch_).count();
  const double rtt = std::chrono::duration<double>(rtt_.srtt()).count();
  // §4.3: Reno-friendly estimate; alpha_cubic becomes 1 once W_est reaches cwnd_prior.
  const double alpha = w_est_ >= cwnd_prior_ ? 1.0 : alpha_cubic_;
  w_est_ += alpha * acked / cwnd_;
  if (w_cubic(t) < w_est_) {
    cwnd_ = w_est_;
    return;
  }
  // §4.4 (concave) and §4.5 (convex) regions.
  const double target = std::clamp(w_cubic(t + rtt), cwnd_, 1.5 * cwnd_);
  cwnd_ += (target - cwnd_) / cwnd_ * acked;
}

void Cubic::hystart_on_ack(const AckEvent& e, bool round_ended) {
  if (round_ended) {
    last_round_min_ = round_min_;
    round_min_ = Duration{0};
  }
  if (e.rtt <= Duration{0}) {
    return;
  }
  round_min_ = round_min_ == Duration{0} ? e.rtt : std::min(round_min_, e.rtt);
  if (last_round_min_ == Duration{0}) {
    return;
  }
  // RFC 9406 §4.2: RttThresh = clamp(lastRoundMinRTT / 8, MIN_RTT_THRESH 4 ms, MAX 16 ms).
  const Duration thresh = std::clamp(last_round_min_ / 8, Duration{4'000'000}, Duration{16'000'000});
  if (round_min_ >= last_round_min_ + thresh) {
    ssthresh_ = cwnd_;
  }
}

bool Cubic::congestion_event(std::uint64_t flight_before) {
  if (episode_) {
    return false;
  }
  // §4.7 fast convergence, then §4.6 multiplicative decrease.
  cwnd_prior_ = cwnd_;
  w_max_ = (s_.fast_convergence && cwnd_ < w_max_) ? cwnd_ * (1.0 + s_.beta) / 2.0 : cwnd_;
  ssthresh_ = std::max(cwnd_ * s_.beta, static_cast<double>(s_.min_cwnd_packets));
  cwnd_ = ssthresh_;
  epoch_.reset();
  recover_ = rounds_.mark(flight_before);
  episode_ = true;
  in_recovery_ = true;
  return true;
}

void Cubic::on_loss(const LossEvent& e) {
  if (e.undo_start) {  // what on_loss_undone restores
    undo_cwnd_ = cwnd_;
    undo_ssthresh_ = ssthresh_;
    undo_w_max_ = w_max_;
  }
  const std::uint64_t flight_before = e.bytes_in_flight + e.lost_bytes;
  if (e.timeout) {
    congestion_event(flight_before);  // no-op when this episode already reduced
    cwnd_ = 1.0;                      // §4.8 and RFC 5681 §3.1: LW = 1 SMSS
    epoch_.reset();
    recover_ = rounds_.mark(flight_before);
    episode_ = true;
    in_recovery_ = false;  // slow start resumes at once
    return;
  }
  congestion_event(flight_before);
}

// The episode's resends were all spurious: back to the window before the reduction (Linux's
// tcp_undo_cwnd_reduction with cubic's undo: cwnd = max(cwnd, prior), ssthresh = max(ssthresh,
// prior), W_max as before), and out of recovery.
void Cubic::on_loss_undone(Instant now) {
  (void)now;
  cwnd_ = std::max(cwnd_, undo_cwnd_);
  ssthresh_ = std::max(ssthresh_, undo_ssthresh_);
  w_max_ = undo_w_max_;
  epoch_.reset();
  episode_ = false;
  in_recovery_ = false;
}

CcState Cubic::state() const {
  const char* phase = in_recovery_        ? "fast_recovery"
                      : cwnd_ < ssthresh_ ? "slow_start"
                                          : "congestion_avoidance";
  return CcState{cwnd_bytes(), 0, phase};
}

std::unique_ptr<CongestionControl> make_cubic(const CcContext& ctx, const CcParams& params) {
  return std::make_unique<Cubic>(ctx, CubicSettings::from(params));
}

}  // namespace gw::cc
