// DCTCP, RFC 8257 §3.3 (sender side). Once per window of data: alpha = (1 - g) alpha + g F,
// F the fraction of acknowledged bytes that were CE-marked. On an ACK carrying CE marks, at
// most once per window: cwnd = cwnd (1 - alpha / 2), ssthresh = cwnd. Otherwise the window
// grows as standard TCP (RFC 5681), and a loss halves it once per episode (§3.5: "the same
// as a conformant TCP").
//
// Parameters (CcParams):
//   g                   1/16   RFC 8257 §4.2 (estimation gain)
//   initial_alpha          1   RFC 8257 §3.3 ("SHOULD be 1")
//   initial_cwnd_packets  10   RFC 6928
//   min_cwnd_packets       2   RFC 5681 eq. (4)
#pragma once

#include <memory>

#include "generators/cc/congestion_control.h"
#include "generators/cc/ecn_alpha.h"
#include "generators/cc/reno_window.h"
#include "generators/cc/round_tracker.h"

namespace gw::cc {

struct DctcpSettings {
  double g = 1.0 / 16.0;
  double initial_alpha = 1.0;
  std::uint64_t initial_cwnd_packets = 10;
  std::uint64_t min_cwnd_packets = 2;

  static DctcpSettings from(const CcParams& params);
};

class Dctcp final : public CongestionControl {
 public:
  Dctcp(const CcContext& ctx, const DctcpSettings& s);

  void on_packet_sent(const SentEvent&) override {}
  void on_ack(const AckEvent& e) override;
  void on_loss(const LossEvent& e) override;

  std::uint64_t cwnd_bytes() const override { return w_.cwnd; }
  BitRate pacing_rate() const override { return BitRate{0}; }
  CcState state() const override;
  std::string_view name() const override { return "dctcp"; }

  double alpha() const { return alpha_.alpha(); }
  std::uint64_t ssthresh_bytes() const { return w_.ssthresh; }

 private:
  DctcpSettings s_;
  RenoWindow w_;
  EcnAlpha alpha_;
  RoundTracker rounds_;
  std::uint64_t cwr_end_ = 0;  // no second ECN cut before this mark (one per window)
  std::uint64_t recover_ = 0;  // no second loss cut before this mark
  bool in_recovery_ = false;
};

std::unique_ptr<CongestionControl> make_dctcp(const CcContext& ctx, const CcParams& params);

}  // namespace gw::cc
