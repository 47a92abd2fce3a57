// DCQCN reaction point (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
// SIGCOMM 2015, §3.1 and Fig. 5). Rate-based: the window is unlimited and the sender is paced
// at the current rate R_C, starting at line rate.
//   on CNP:          R_T = R_C;  R_C = R_C (1 - alpha / 2);  alpha = (1 - g) alpha + g;
//                    the increase timer, byte counter and their stage counts restart
//   alpha timer:     every K without a CNP, alpha = (1 - g) alpha
//   increase events: one per timer period T and one per B bytes sent. With T_n, BC_n the
//                    timer and byte stage counts before the event:
//                      max(T_n, BC_n) < F   fast recovery   R_C = (R_T + R_C) / 2
//                      min(T_n, BC_n) > F   hyper increase  R_T += i R_HAI, i = min - F
//                      otherwise            additive        R_T += R_AI
//                    then R_C = (R_T + R_C) / 2 in the increase cases; rates capped at line rate.
// With timer events only, the F = 5 first events are fast recovery, then additive increase.
//
// Parameters (CcParams):
//   g                 1/256  paper §3.1 / Table 1
//   initial_alpha         1  paper §3.1 (alpha starts at 1)
//   alpha_timer_us       55  paper Table 1 (K)
//   rate_timer_us        55  paper Table 1 (T)
//   byte_counter_mb      10  paper Table 1 (B, 10 MB)
//   f_stages              5  paper Table 1 (F)
//   rai_mbps             40  paper Table 1 (R_AI)
//   rhai_mbps           400  10 x R_AI, the ratio of the ConnectX defaults rpg_ai_rate 5 /
//                            rpg_hai_rate 50 Mbit/s (the paper leaves R_HAI to the NIC)
//   min_rate_mbps         1  ConnectX rpg_min_rate
//   initial_rate_gbps     0  0 = line rate (paper: flows start at line rate)
#pragma once

#include <memory>

#include "generators/cc/congestion_control.h"

namespace gw::cc {

struct DcqcnSettings {
  double g = 1.0 / 256.0;
  double initial_alpha = 1.0;
  Duration alpha_timer{55'000};
  Duration rate_timer{55'000};
  std::uint64_t byte_counter = 10'000'000;
  std::uint64_t f_stages = 5;
  double rai_bps = 40e6;
  double rhai_bps = 400e6;
  double min_rate_bps = 1e6;
  double initial_rate_bps = 0;  // 0 = line rate

  static DcqcnSettings from(const CcParams& params);
};

class Dcqcn final : public CongestionControl {
 public:
  // What "unlimited" means for a rate-based controller's window: pacing alone limits it.
  static constexpr std::uint64_t kUnlimitedCwnd = std::uint64_t{1} << 48;

  Dcqcn(const CcContext& ctx, const DcqcnSettings& s);

  void on_packet_sent(const SentEvent& e) override;
  void on_ack(const AckEvent&) override {}
  void on_loss(const LossEvent&) override {}  // RoCE: go-back-N recovers; CNPs steer the rate
  void on_cnp(Instant now) override;
  Instant next_timer() const override;
  void on_timer(Instant now) override;

  std::uint64_t cwnd_bytes() const override { return kUnlimitedCwnd; }
  BitRate pacing_rate() const override;
  CcState state() const override;
  std::string_view name() const override { return "dcqcn"; }

  double current_rate_bps() const { return rc_; }
  double target_rate_bps() const { return rt_; }
  double alpha() const { return alpha_; }
  std::uint64_t timer_stage() const { return t_stage_; }

 private:
  enum class Phase : std::uint8_t { kLineRate, kFastRecovery, kAdditive, kHyper };
  void increase_event();
  void decay_alpha(Instant now);  // applies every alpha period that ended by `now`

  DcqcnSettings s_;
  double line_;
  double rc_;
  double rt_;
  double alpha_;
  std::uint64_t t_stage_ = 0;
  std::uint64_t bc_stage_ = 0;
  std::uint64_t bytes_ = 0;      // sent since the last byte-counter event
  Instant next_alpha_ = kNever;  // armed after the first CNP
  Instant next_increase_ = kNever;
  Phase phase_ = Phase::kLineRate;
};

std::unique_ptr<CongestionControl> make_dcqcn(const CcContext& ctx, const CcParams& params);

}  // namespace gw::cc
