// CUBIC, RFC 9438. Windows are in segments (doubles) as in the RFC's formulas.
//   §4.2  W_cubic(t) = C (t - K)^3 + W_max,  K = cbrt((W_max - cwnd_epoch) / C)  (eq. 1, 2)
//   §4.3  Reno-friendly region: W_est += alpha_cubic * segments_acked / cwnd, with
//         alpha_cubic = 3 (1 - beta) / (1 + beta) until W_est reaches cwnd_prior, then 1
//   §4.4  concave / convex region: target = W_cubic(t + RTT) clamped to [cwnd, 1.5 cwnd],
//         cwnd += (target - cwnd) / cwnd per acknowledged segment
//   §4.6  on congestion: ssthresh = cwnd * beta, cwnd = max(ssthresh, 2), once per episode
//   §4.7  fast convergence: W_max = cwnd (1 + beta) / 2 when cwnd < the previous W_max
//   §4.8  RTO: cwnd = 1 segment, slow start to ssthresh, new epoch
// HyStart++ (RFC 9406, §4.2 "SHOULD") is optional and off by default: when on, slow start
// ends (ssthresh = cwnd) once a round's minimum RTT exceeds the previous round's by
// clamp(lastRoundMinRTT / 8, 4 ms, 16 ms) (RFC 9406 §4.2; the CSS phase is left out).
//
// Parameters (CcParams):
//   c                    0.4   RFC 9438 §5.1 (segments / s^3)
//   beta                 0.7   RFC 9438 §4.6 beta_cubic
//   fast_convergence       1   RFC 9438 §4.7
//   initial_cwnd_packets  10   RFC 6928
//   min_cwnd_packets       2   RFC 9438 §4.6 / RFC 5681 eq. (4)
//   hystart                0   RFC 9406 (off; see above)
#pragma once

#include <memory>
#include <optional>

#include "generators/cc/congestion_control.h"
#include "generators/cc/round_tracker.h"
#include "generators/cc/rtt_estimator.h"

namespace gw::cc {

struct CubicSettings {
  double c = 0.4;
  double beta = 0.7;
  bool fast_convergence = true;
  std::uint64_t initial_cwnd_packets = 10;
  std::uint64_t min_cwnd_packets = 2;
  bool hystart = false;

  static CubicSettings from(const CcParams& params);
};

class Cubic final : public CongestionControl {
 public:
  Cubic(const CcContext& ctx, const CubicSettings& s);

  void on_packet_sent(const SentEvent&) override {}
  void on_ack(const AckEvent& e) override;
  void on_loss(const LossEvent& e) override;
  void on_loss_undone(Instant now) override;

  std::uint64_t cwnd_bytes() const override;
  BitRate pacing_rate() const override { return BitRate{0}; }
  CcState state() const override;
  std::string_view name() const override { return "cubic"; }

  // Model state in segments and seconds, for tests and reports.
  double cwnd_segments() const { return cwnd_; }
  double ssthresh_segments() const { return ssthresh_; }
  double w_max() const { return w_max_; }
  double k_seconds() const { return k_; }
  // RFC 9438 eq. (1).
  double w_cubic(double t_seconds) const;

 private:
  void congestion_avoidance(const AckEvent& e, double acked_segments);
  void hystart_on_ack(const AckEvent& e, bool round_ended);
  bool congestion_event(std::uint64_t flight_before);

  CubicSettings s_;
  double mss_;
  double alpha_cubic_;
  double cwnd_;
  double ssthresh_ = 1e18;
  double w_max_ = 0;
  double cwnd_prior_ = 0;
  // Before the first reduction of the episode on_loss_undone may undo.
  double undo_cwnd_ = 0;
  double undo_ssthresh_ = 1e18;
  double undo_w_max_ = 0;
  double k_ = 0;
  double w_est_ = 0;
  std::optional<Instant> epoch_;  // t_epoch: start of the current congestion avoidance stage
  RttEstimator rtt_;
  RoundTracker rounds_;
  std::uint64_t recover_ = 0;
  bool episode_ = false;      // one reduction per loss episode (RFC 6582 §3.2)
  bool in_recovery_ = false;  // no growth until the episode ends
  // HyStart++ round minima.
  Duration last_round_min_{0};
  Duration round_min_{0};
};

std::unique_ptr<CongestionControl> make_cubic(const CcContext& ctx, const CcParams& params);

}  // namespace gw::cc
