// TIMELY (Mittal et al., "TIMELY: RTT-based Congestion Control for the Datacenter",
// SIGCOMM 2015, Algorithm 1). Rate-based; one update per RTT sample, at most one per
// `min_update_interval` (default: one RTT sample, so consecutive samples compared are at least
// one RTT apart -- the paper's completion events are 16-64 KB segments, not packets):
//   new_rtt_diff = new_rtt - prev_rtt;  rtt_diff = (1 - a) rtt_diff + a new_rtt_diff
//   gradient = rtt_diff / min_rtt
//   new_rtt < T_low:   R += delta
//   new_rtt > T_high:  R *= 1 - beta (1 - T_high / new_rtt)
//   gradient <= 0:     R += N delta, N = 5 after 5 consecutive such updates (HAI), else 1
//   gradient > 0:      R *= 1 - beta gradient
// The window is unlimited; the sender is paced at R, capped at line rate.
//
// Parameters (CcParams):
//   ewma_alpha                0.875  paper Table 1 (alpha, EWMA weight of the new difference)
//   beta                        0.8  paper Table 1
//   delta_mbps                   10  paper Table 1 (additive increment)
//   t_low_us                     50  paper Table 1
//   t_high_us                   500  paper Table 1
//   hai_threshold                 5  paper §4.3 (completions before hyperactive increase)
//   hai_n                         5  paper §4.3 (N)
//   min_rtt_us                    0  gradient normalizer; 0 = the measured minimum RTT
//                                    (the paper's table uses a fixed 20 us)
//   min_update_interval_us        0  0 = the last RTT sample
//   min_rate_mbps                10  floor on R (keeps R > 0)
//   initial_rate_gbps             0  0 = line rate
#pragma once

#include <memory>

#include "generators/cc/congestion_control.h"

namespace gw::cc {

struct TimelySettings {
  double ewma_alpha = 0.875;
  double beta = 0.8;
  double delta_bps = 10e6;
  Duration t_low{50'000};
  Duration t_high{500'000};
  std::uint64_t hai_threshold = 5;
  double hai_n = 5;
  Duration min_rtt{0};
  Duration min_update_interval{0};
  double min_rate_bps = 10e6;
  double initial_rate_bps = 0;

  static TimelySettings from(const CcParams& params);
};

class Timely final : public CongestionControl {
 public:
  static constexpr std::uint64_t kUnlimitedCwnd = std::uint64_t{1} << 48;

  enum class Region : std::uint8_t { kNone, kBelowTLow, kAboveTHigh, kGradientIncrease, kGradientDecrease };

  Timely(const CcContext& ctx, const TimelySettings& s);

  void on_packet_sent(const SentEvent&) override {}
  void on_ack(const AckEvent& e) override;
  void on_loss(const LossEvent&) override {}

  std::uint64_t cwnd_bytes() const override { return kUnlimitedCwnd; }
  BitRate pacing_rate() const override { return BitRate{static_cast<std::uint64_t>(rate_)}; }
  CcState state() const override;
  std::string_view name() const override { return "timely"; }

  double rate_bps() const { return rate_; }
  double rtt_diff_ns() const { return rtt_diff_; }
  Region last_region() const { return region_; }

 private:
  TimelySettings s_;
  double line_;
  double rate_;
  double rtt_diff_ = 0;  // ns
  Duration prev_rtt_{0};
  Duration min_rtt_{0};
  Instant last_update_{};
  std::uint64_t negative_run_ = 0;
  Region region_ = Region::kNone;
};

std::unique_ptr<CongestionControl> make_timely(const CcContext& ctx, const CcParams& params);

}  // namespace gw::cc
