#include "generators/cc/dctcp.h"

#include "generators/cc/params.h"

namespace gw::cc {

DctcpSettings DctcpSettings::from(const CcParams& params) {
  ParamReader r("dctcp", params);
  DctcpSettings s;
  s.g = r.number("g", s.g, 0.0, 1.0, Bounds::kOpenLow);
  s.initial_alpha = r.number("initial_alpha", s.initial_alpha, 0.0, 1.0);
  s.initial_cwnd_packets = r.integer("initial_cwnd_packets", s.initial_cwnd_packets, 1, 1'000'000);
  s.min_cwnd_packets = r.integer("min_cwnd_packets", s.min_cwnd_packets, 1, 1'000'000);
  r.finish();
  return s;
}

Dctcp::Dctcp(const CcContext& ctx, const DctcpSettings& s) : s_(s), alpha_(s.g, s.initial_alpha) {
  w_.mss = ctx.mss_bytes;
  w_.min_cwnd = s.min_cwnd_packets * ctx.mss_bytes;
  w_.cwnd = s.initial_cwnd_packets * ctx.mss_bytes;
}

void Dctcp::on_ack(const AckEvent& e) {
  alpha_.on_ack(e.acked_bytes, e.ce_bytes);
  if (rounds_.on_ack(e.acked_bytes, e.bytes_in_flight)) {
    alpha_.end_window();
  }
  if (in_recovery_ && (rounds_.acked() >= recover_ || e.bytes_in_flight == 0)) {
    in_recovery_ = false;
  }
  if (e.ce_bytes > 0 && rounds_.acked() > cwr_end_) {  // at most one cut per window (RFC 8257 §3.3)
    w_.reduce_to(static_cast<double>(w_.cwnd) * (1.0 - alpha_.alpha() / 2.0));
    cwr_end_ = rounds_.mark(e.bytes_in_flight);
    return;
  }
  if (!in_recovery_ && rounds_.acked() > cwr_end_) {  // no growth while the cut window drains
    w_.grow(e.acked_bytes);
  }
}

void Dctcp::on_loss(const LossEvent& e) {
  const std::uint64_t flight_before = e.bytes_in_flight + e.lost_bytes;
  if (rounds_.acked() >= recover_) {
    w_.reduce_to(static_cast<double>(w_.cwnd) / 2.0);
    recover_ = rounds_.mark(flight_before);
    in_recovery_ = !e.timeout;
  }
  if (e.timeout) {
    w_.cwnd = w_.mss;  // RFC 5681 §3.1 loss window
  }
}

CcState Dctcp::state() const {
  const char* phase = in_recovery_         ? "fast_recovery"
                      : w_.in_slow_start() ? "slow_start"
                                           : "congestion_avoidance";
  return CcState{w_.cwnd, 0, phase};
}

std::unique_ptr<CongestionControl> make_dctcp(const CcContext& ctx, const CcParams& params) {
  return std::make_unique<Dctcp>(ctx, DctcpSettings::from(params));
}

}  // namespace gw::cc
