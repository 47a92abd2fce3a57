// TCP Reno with NewReno's loss-episode rule: RFC 5681 §3.1 (slow start, congestion
// avoidance, ssthresh = max(FlightSize * beta, 2 SMSS) with beta 1/2 on loss, eq. 4) and
// RFC 6582 §3.2 (one reduction per loss episode: further losses of data sent before the
// first one was detected do not reduce again). A retransmission timeout sets cwnd to the
// loss window, 1 SMSS (RFC 5681 §3.1). A CE echo (RFC 3168 §6.1.2) reacts like a loss.
//
// Parameters (CcParams):
//   initial_cwnd_packets      10   RFC 6928
//   initial_ssthresh_packets   0   0 = unbounded (RFC 5681 §3.1: "arbitrarily high")
//   beta                     0.5   RFC 5681 eq. (4): FlightSize / 2
//   min_cwnd_packets           2   RFC 5681 eq. (4): 2 SMSS
#pragma once

#include <memory>

#include "generators/cc/congestion_control.h"
#include "generators/cc/reno_window.h"
#include "generators/cc/round_tracker.h"

namespace gw::cc {

struct RenoSettings {
  std::uint64_t initial_cwnd_packets = 10;
  std::uint64_t initial_ssthresh_packets = 0;
  double beta = 0.5;
  std::uint64_t min_cwnd_packets = 2;

  static RenoSettings from(const CcParams& params);
};

class Reno final : public CongestionControl {
 public:
  Reno(const CcContext& ctx, const RenoSettings& s);

  void on_packet_sent(const SentEvent&) override {}
  void on_ack(const AckEvent& e) override;
  void on_loss(const LossEvent& e) override;

  std::uint64_t cwnd_bytes() const override { return w_.cwnd; }
  BitRate pacing_rate() const override { return BitRate{0}; }
  CcState state() const override;
  std::string_view name() const override { return "reno"; }

  std::uint64_t ssthresh_bytes() const { return w_.ssthresh; }
  bool in_recovery() const { return in_recovery_; }

 private:
  // Starts a loss episode unless one is running; returns whether it reduced.
  bool reduce(std::uint64_t flight_before);

  RenoSettings s_;
  RenoWindow w_;
  RoundTracker acked_;
  std::uint64_t recover_ = 0;  // RFC 6582 "recover", as an acknowledged-bytes mark
  bool episode_ = false;       // a loss episode runs until `recover` is acknowledged
  bool in_recovery_ = false;   // fast recovery: no growth until the episode ends
};

std::unique_ptr<CongestionControl> make_reno(const CcContext& ctx, const CcParams& params);

}  // namespace gw::cc
