// HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019, Algorithm 1).
// Per ACK carrying in-band telemetry, for each hop i against the previous ACK's record:
//   txRate_i = (txBytes - txBytes') / (ts - ts')
//   u_i      = min(qlen, qlen') / (B_i T) + txRate_i / B_i
// u = max_i u_i, tau = the ts difference of that hop (at most T), and
//   U = (1 - tau/T) U + (tau/T) u                     (EWMA over one base RTT)
//   W = Wc / (U / eta) + W_AI   if U >= eta or incStage >= maxStage   (multiplicative)
//   W = Wc + W_AI               otherwise                             (additive)
// Wc (the reference window) and incStage are updated only once per RTT (the paper's
// lastUpdateSeq), W on every ACK. Pacing rate = W / T. T is the base RTT; W starts at
// W_init = line_rate x T and never exceeds it. Without INT the window does not change.
//
// Parameters (CcParams):
//   eta              0.95  paper §3.3 (target utilization)
//   max_stage           5  paper §3.3 (additive steps before a multiplicative update)
//   rai_mbps            0  W_AI = rai x T; 0 = 10 Mbit/s per 25 Gbit/s of line rate, the
//                          HPCC artifact's run.py (`ai = 10 * bw / 25`)
//   base_rtt_us         0  T; 0 = the scenario's base RTT hint, else the first RTT sample
//   min_cwnd_bytes      0  floor on W; 0 = one MSS
#pragma once

#include <array>
#include <memory>

#include "generators/cc/congestion_control.h"
#include "generators/cc/round_tracker.h"

namespace gw::cc {

struct HpccSettings {
  double eta = 0.95;
  std::uint64_t max_stage = 5;
  double rai_bps = 0;  // 0 = scaled from the line rate
  Duration base_rtt{0};
  std::uint64_t min_cwnd_bytes = 0;

  static HpccSettings from(const CcParams& params);
};

class Hpcc final : public CongestionControl {
 public:
  static constexpr std::size_t kMaxHops = 16;  // hops beyond this are not tracked

  Hpcc(const CcContext& ctx, const HpccSettings& s);

  void on_packet_sent(const SentEvent&) override {}
  void on_ack(const AckEvent& e) override;
  void on_loss(const LossEvent&) override {}  // HPCC reacts to INT, not to loss

  std::uint64_t cwnd_bytes() const override;
  BitRate pacing_rate() const override;
  CcState state() const override;
  std::string_view name() const override { return "hpcc"; }

  double utilization() const { return u_; }
  double window_bytes() const { return w_; }
  double reference_window_bytes() const { return wc_; }
  std::uint64_t inc_stage() const { return inc_stage_; }
  double w_ai_bytes() const { return w_ai_; }

 private:
  void set_base_rtt(Duration t);
  double measure_inflight(std::span<const IntHopEcho> hops);  // Algorithm 1 MeasureInflight
  void compute_wind(double u, bool update_wc);                // Algorithm 1 ComputeWind

  HpccSettings s_;
  std::uint32_t mss_;
  double line_bps_;
  double rai_bps_;
  Duration t_{0};
  double t_s_ = 0;  // T in seconds
  double w_init_ = 0;
  double w_ = 0;
  double wc_ = 0;
  double w_ai_ = 0;
  double u_ = 0;
  std::uint64_t inc_stage_ = 0;
  RoundTracker rounds_;
  std::uint64_t last_update_ = 0;  // the paper's lastUpdateSeq, as an acknowledged-bytes mark
  std::array<IntHopEcho, kMaxHops> prev_{};
  std::size_t prev_hops_ = 0;
};

std::unique_ptr<CongestionControl> make_hpcc(const CcContext& ctx, const CcParams& params);

}  // namespace gw::cc
