// Swift (Kumar et al., "Swift: Delay is Simple and Effective for Congestion Control in the
// Datacenter", SIGCOMM 2020, Algorithm 1 and §3.5). Window in packets (fractional):
//   target = base_target + hops x per_hop + fs,  fs = clamp(fs_alpha / sqrt(cwnd) + fs_beta,
//            0, fs_range), with fs_alpha = fs_range / (1/sqrt(fs_min_cwnd) - 1/sqrt(fs_max_cwnd))
//            and fs_beta = -fs_alpha / sqrt(fs_max_cwnd)  (flow-scaling, §3.5)
//   delay < target:  cwnd += ai / cwnd per packet acknowledged (cwnd >= 1), ai per packet if < 1
//   delay >= target: cwnd *= max(1 - beta (delay - target) / delay, 1 - max_mdf), at most once
//                    per RTT
//   fast recovery (loss): cwnd *= 1 - max_mdf, at most once per RTT; RTO: the same, and after
//                    retx_reset_threshold consecutive RTOs cwnd = min_cwnd
// The delay is the ACK's RTT sample (gradwall has no NIC timestamps to separate host delay).
// Hops come from the INT echo when present, else the scenario's hops hint. Below one packet
// the window stays one packet and the sender is paced at cwnd x MSS / srtt (§3.4).
//
// Parameters (CcParams; the paper leaves the deployment values open, so the target terms
// are gradwall defaults scaled for a small fabric):
//   base_target_us        25   gradwall default (paper: "base target" for the topology)
//   per_hop_us             1   gradwall default (paper: per-hop scaling h)
//   fs_range_us          100   gradwall default (4 x base target)
//   fs_min_cwnd          0.1   packets (paper §3.5 example)
//   fs_max_cwnd          100   packets (paper §3.5 example)
//   ai                     1   packets per RTT (Algorithm 1)
//   beta                 0.8   multiplicative decrease factor (Algorithm 1)
//   max_mdf              0.5   maximum multiplicative decrease (Algorithm 1)
//   min_cwnd           0.001   packets
//   max_cwnd          100000   packets
//   initial_cwnd_packets  10   RFC 6928
//   retx_reset_threshold   5   consecutive RTOs before cwnd = min_cwnd
#pragma once

#include <memory>

#include "generators/cc/congestion_control.h"
#include "generators/cc/rtt_estimator.h"

namespace gw::cc {

struct SwiftSettings {
  Duration base_target{25'000};
  Duration per_hop{1'000};
  Duration fs_range{100'000};
  double fs_min_cwnd = 0.1;
  double fs_max_cwnd = 100;
  double ai = 1.0;
  double beta = 0.8;
  double max_mdf = 0.5;
  double min_cwnd = 0.001;
  double max_cwnd = 100'000;
  double initial_cwnd = 10;
  std::uint64_t retx_reset_threshold = 5;

  static SwiftSettings from(const CcParams& params);
};

class Swift final : public CongestionControl {
 public:
  Swift(const CcContext& ctx, const SwiftSettings& s);

  void on_packet_sent(const SentEvent&) override {}
  void on_ack(const AckEvent& e) override;
  void on_loss(const LossEvent& e) override;

  std::uint64_t cwnd_bytes() const override;
  BitRate pacing_rate() const override;
  CcState state() const override;
  std::string_view name() const override { return "swift"; }

  double cwnd_packets() const { return cwnd_; }
  // The target delay for `hops` hops at the current window.
  Duration target_delay(std::uint32_t hops) const;

 private:
  bool can_decrease(Instant now) const;
  void decrease(Instant now, double factor);

  SwiftSettings s_;
  std::uint32_t mss_;
  std::uint32_t hops_hint_;
  double fs_alpha_;
  double fs_beta_;
  double cwnd_;
  RttEstimator rtt_;
  Instant last_decrease_{};
  bool decreased_ = false;
  std::uint64_t retransmit_count_ = 0;
};

std::unique_ptr<CongestionControl> make_swift(const CcContext& ctx, const CcParams& params);

}  // namespace gw::cc
