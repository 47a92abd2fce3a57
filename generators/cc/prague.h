// TCP Prague (draft-briscoe-iccrg-prague-congestion-control; reference implementation Linux
// L4STeam tcp_prague.c): the L4S scalable sender.
//  - sends ECT(1) (the L4S identifier, RFC 9331);
//  - DCTCP's estimator, once per RTT: alpha = (1 - g) alpha + g F (RFC 8257 §3.3), and at most
//    once per RTT on CE: cwnd = cwnd (1 - alpha / 2);
//  - the additive increase runs on every ACK's unmarked bytes, also in the window after a CE
//    cut, and its fractional progress survives the cut (tcp_prague.c notes 3/ and 4/); unlike
//    DCTCP, which stops growing until the cut window is acknowledged;
//  - reduced RTT dependence: below the reference RTT (25 ms, tcp_prague.c's rtt_target) the
//    additive increase is scaled by (srtt / ref_rtt)^2 MSS per RTT, so a flow grows its *rate*
//    as fast as a flow at the reference RTT does (rate slope = ai / srtt^2);
//  - paced at gain x cwnd / srtt (Linux tcp_pacing_ss_ratio 200 %, tcp_pacing_ca_ratio 120 %);
//  - on loss, the classic (Reno) fallback: halve once per episode; RTO -> 1 MSS.
//
// Parameters (CcParams):
//   g                    1/16   RFC 8257 §4.2 / tcp_prague.c prague_shift_g = 4
//   initial_alpha           1   tcp_prague.c PRAGUE_MAX_ALPHA at init
//   ref_rtt_ms             25   tcp_prague.c rtt_target (25 ms)
//   rtt_independence        1   0 = plain Reno additive increase
//   ss_pacing_gain          2   Linux tcp_pacing_ss_ratio
//   ca_pacing_gain        1.2   Linux tcp_pacing_ca_ratio
//   initial_cwnd_packets   10   RFC 6928
//   min_cwnd_packets        2   RFC 5681 eq. (4)
#pragma once

#include <memory>

#include "generators/cc/congestion_control.h"
#include "generators/cc/ecn_alpha.h"
#include "generators/cc/reno_window.h"
#include "generators/cc/round_tracker.h"
#include "generators/cc/rtt_estimator.h"

namespace gw::cc {

struct PragueSettings {
  double g = 1.0 / 16.0;
  double initial_alpha = 1.0;
  Duration ref_rtt{25'000'000};
  bool rtt_independence = true;
  double ss_pacing_gain = 2.0;
  double ca_pacing_gain = 1.2;
  std::uint64_t initial_cwnd_packets = 10;
  std::uint64_t min_cwnd_packets = 2;

  static PragueSettings from(const CcParams& params);
};

class Prague final : public CongestionControl {
 public:
  Prague(const CcContext& ctx, const PragueSettings& s);

  void on_packet_sent(const SentEvent&) override {}
  void on_ack(const AckEvent& e) override;
  void on_loss(const LossEvent& e) override;

  std::uint64_t cwnd_bytes() const override { return w_.cwnd; }
  BitRate pacing_rate() const override;
  EcnMode ecn_mode() const override { return EcnMode::kEct1; }
  CcState state() const override;
  std::string_view name() const override { return "prague"; }

  double alpha() const { return alpha_.alpha(); }
  // MSS added per RTT in congestion avoidance at the current srtt.
  double additive_increase() const;

 private:
  PragueSettings s_;
  RenoWindow w_;
  EcnAlpha alpha_;
  RoundTracker rounds_;
  RttEstimator rtt_;
  std::uint64_t cwr_end_ = 0;
  std::uint64_t recover_ = 0;
  bool in_recovery_ = false;
};

std::unique_ptr<CongestionControl> make_prague(const CcContext& ctx, const CcParams& params);

}  // namespace gw::cc
