#include "generators/cc/reno.h"

#include "generators/cc/params.h"

namespace gw::cc {

RenoSettings RenoSettings::from(const CcParams& params) {
  ParamReader r("reno", params);
  RenoSettings s;
  s.initial_cwnd_packets = r.integer("initial_cwnd_packets", s.initial_cwnd_packets, 1, 1'000'000);
  s.initial_ssthresh_packets =
      r.integer("initial_ssthresh_packets", s.initial_ssthresh_packets, 0, 1'000'000'000);
  s.beta = r.number("beta", s.beta, 0.0, 1.0, Bounds::kOpen);
  s.min_cwnd_packets = r.integer("min_cwnd_packets", s.min_cwnd_packets, 1, 1'000'000);
  r.finish();
  return s;
}

Reno::Reno(const CcContext& ctx, const RenoSettings& s) : s_(s) {
  w_.mss = ctx.mss_bytes;
  w_.min_cwnd = s.min_cwnd_packets * ctx.mss_bytes;
  w_.cwnd = s.initial_cwnd_packets * ctx.mss_bytes;
  if (s.initial_ssthresh_packets > 0) {
    w_.ssthresh = s.initial_ssthresh_packets * ctx.mss_bytes;
  }
}

void Reno::on_ack(const AckEvent& e) {
  acked_.on_ack(e.acked_bytes, e.bytes_in_flight);
  if (episode_ && (acked_.acked() >= recover_ || e.bytes_in_flight == 0)) {
    episode_ = false;  // RFC 6582 §3.2 step 3: a full acknowledgment ends recovery
    in_recovery_ = false;
  }
  if (e.ce_bytes > 0 && reduce(e.bytes_in_flight + e.acked_bytes)) {
    return;
  }
  if (!in_recovery_) {
    w_.grow(e.acked_bytes);
  }
}

bool Reno::reduce(std::uint64_t flight_before) {
  if (episode_) {
    return false;
  }
  w_.reduce_to(static_cast<double>(flight_before) * s_.beta);
  recover_ = acked_.mark(flight_before);
  episode_ = true;
  in_recovery_ = true;
  return true;
}

void Reno::on_loss(const LossEvent& e) {
  const std::uint64_t flight_before = e.bytes_in_flight + e.lost_bytes;
  if (e.timeout) {
    // RFC 5681 §3.1: ssthresh from eq. (4) (unless already reduced for this episode), then
    // cwnd = LW = 1 SMSS and slow start again.
    if (!episode_) {
      w_.reduce_to(static_cast<double>(flight_before) * s_.beta);
    }
    w_.cwnd = w_.mss;
    recover_ = acked_.mark(flight_before);
    episode_ = true;
    in_recovery_ = false;
    return;
  }
  reduce(flight_before);
}

CcState Reno::state() const {
  const char* phase = in_recovery_         ? "fast_recovery"
                      : w_.in_slow_start() ? "slow_start"
                                           : "congestion_avoidance";
  return CcState{w_.cwnd, 0, phase};
}

std::unique_ptr<CongestionControl> make_reno(const CcContext& ctx, const CcParams& params) {
  return std::make_unique<Reno>(ctx, RenoSettings::from(params));
}

}  // namespace gw::cc
