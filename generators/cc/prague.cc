#include "generators/cc/prague.h"

#include <algorithm>

#include "generators/cc/params.h"

namespace gw::cc {

PragueSettings PragueSettings::from(const CcParams& params) {
  ParamReader r("prague", params);
  PragueSettings s;
  s.g = r.number("g", s.g, 0.0, 1.0, Bounds::kOpenLow);
  s.initial_alpha = r.number("initial_alpha", s.initial_alpha, 0.0, 1.0);
  s.ref_rtt = r.millis("ref_rtt_ms", 25.0, 0.001, 10'000.0);
  s.rtt_independence = r.flag("rtt_independence", s.rtt_independence);
  s.ss_pacing_gain = r.number("ss_pacing_gain", s.ss_pacing_gain, 0.0, 100.0, Bounds::kOpenLow);
  s.ca_pacing_gain = r.number("ca_pacing_gain", s.ca_pacing_gain, 0.0, 100.0, Bounds::kOpenLow);
  s.initial_cwnd_packets = r.integer("initial_cwnd_packets", s.initial_cwnd_packets, 1, 1'000'000);
  s.min_cwnd_packets = r.integer("min_cwnd_packets", s.min_cwnd_packets, 1, 1'000'000);
  r.finish();
  return s;
}

Prague::Prague(const CcContext& ctx, const PragueSettings& s) : s_(s), alpha_(s.g, s.initial_alpha) {
  w_.mss = ctx.mss_bytes;
  w_.min_cwnd = s.min_cwnd_packets * ctx.mss_bytes;
  w_.cwnd = s.initial_cwnd_packets * ctx.mss_bytes;
  if (ctx.base_rtt_hint > Duration{0}) {
    rtt_.update(ctx.base_rtt_hint);
  }
}

double Prague::additive_increase() const {
  if (!s_.rtt_independence || !rtt_.has_sample() || rtt_.srtt() >= s_.ref_rtt) {
    return 1.0;
  }
  const double r = std::chrono::duration<double>(rtt_.srtt()) / std::chrono::duration<double>(s_.ref_rtt);
  return r * r;
}

void Prague::on_ack(const AckEvent& e) {
  rtt_.update(e.rtt);
  alpha_.on_ack(e.acked_bytes, e.ce_bytes);
  if (rounds_.on_ack(e.acked_bytes, e.bytes_in_flight)) {
    alpha_.end_window();
  }
  if (in_recovery_ && (rounds_.acked() >= recover_ || e.bytes_in_flight == 0)) {
    in_recovery_ = false;
  }
  if (e.ce_bytes > 0 && rounds_.acked() > cwr_end_) {  // at most one cut per window (RFC 8257 §3.3)
    // tcp_prague.c "3/ Updated cwnd management": the fractional progress toward the next MSS
    // is carried across the reduction (cwnd_cnt), not reset as Reno's snd_cwnd_cnt is.
    const double progress = w_.ca_credit / static_cast<double>(w_.cwnd);
    w_.reduce_to(static_cast<double>(w_.cwnd) * (1.0 - alpha_.alpha() / 2.0));
    w_.ca_credit = progress * static_cast<double>(w_.cwnd);
    cwr_end_ = rounds_.mark(e.bytes_in_flight);
  }
  // tcp_prague.c "4/ Additive Increase uses unsaturated marking": cwnd grows on every ACK by
  // its unmarked bytes (acked - ece_delta), "regardless of the congestion status of the
  // connection", i.e. also during the window after a CE cut (unlike DCTCP, which waits).
  // Only loss recovery (in_loss) stops the increase.
  const std::uint64_t unmarked = e.acked_bytes - std::min(e.ce_bytes, e.acked_bytes);
  if (!in_recovery_ && unmarked > 0) {
    w_.grow(unmarked, w_.in_slow_start() ? 1.0 : additive_increase());
  }
}

void Prague::on_loss(const LossEvent& e) {
  const std::uint64_t flight_before = e.bytes_in_flight + e.lost_bytes;
  if (rounds_.acked() >= recover_) {
    w_.reduce_to(static_cast<double>(w_.cwnd) / 2.0);
    recover_ = rounds_.mark(flight_before);
    in_recovery_ = !e.timeout;
  }
  if (e.timeout) {
    w_.cwnd = w_.mss;
  }
}

BitRate Prague::pacing_rate() const {
  if (!rtt_.has_sample()) {
    return BitRate{0};
  }
  const double gain = w_.in_slow_start() ? s_.ss_pacing_gain : s_.ca_pacing_gain;
  const double bps =
      gain * static_cast<double>(w_.cwnd) * 8.0 / std::chrono::duration<double>(rtt_.srtt()).count();
  return BitRate{static_cast<std::uint64_t>(std::max(1.0, bps))};
}

CcState Prague::state() const {
  const char* phase = in_recovery_         ? "fast_recovery"
                      : w_.in_slow_start() ? "slow_start"
                                           : "congestion_avoidance";
  return CcState{w_.cwnd, pacing_rate().bps, phase};
}

std::unique_ptr<CongestionControl> make_prague(const CcContext& ctx, const CcParams& params) {
  return std::make_unique<Prague>(ctx, PragueSettings::from(params));
}

}  // namespace gw::cc
