// BBR: v3 per draft-ietf-ccwg-bbr (default), v1 per Linux net/ipv4/tcp_bbr.c (`version` 1).
// Model: max_bw = windowed max of delivery-rate samples (v3: over 2 ProbeBW cycles, §4.5.2;
// v1: over 10 rounds), min_rtt = windowed min over 10 s, BDP = max_bw x min_rtt.
// States (draft §4.3): Startup (pacing gain 4 ln 2 = 2.77; v1 2/ln 2 = 2.885) until 3 rounds
// without 25 % growth of max_bw (or, v3, a round with > loss_threshold loss); Drain (gain
// drain_gain) until inflight <= BDP; ProbeBW: v3 DOWN 0.9 / CRUISE 1 / REFILL 1 / UP 1.25
// (§4.3.3), v1 the 8-phase cycle 1.25, 0.75, 1 x 6 one min_rtt each; ProbeRTT every
// probe_rtt_interval without a new min: cwnd = 0.5 BDP (v1: 4 packets) for 200 ms and a round.
// cwnd = cwnd_gain x BDP (2), grown by acked bytes toward it.
// v3 loss response (§4.5.10): a round with lost/(acked+lost) > loss_threshold while probing
// (Startup, UP) sets inflight_hi = max(inflight at the loss, beta x BDP) and ends the probe;
// any loss in a non-probing round sets bw_lo = max(latest bw, beta bw_lo) and inflight_lo =
// max(latest delivered, beta inflight_lo); cwnd <= inflight_lo, and <= inflight_hi (x (1 -
// headroom) in CRUISE). v1 has no loss response.
//
// Parameters (CcParams; defaults depend on `version`, v3 / v1):
//   version                   3       1 or 3
//   startup_pacing_gain       2.77 / 2.885   draft §4.6.1 (4 ln 2) / tcp_bbr.c bbr_high_gain
//   startup_cwnd_gain         2 / 2.885      draft §4.6.1 / tcp_bbr.c
//   drain_gain                0.5 / 0.3466   docs/references.md §3 (draft) / tcp_bbr.c 1/2.885
//   cwnd_gain                 2              draft §4.6.4 / tcp_bbr.c bbr_cwnd_gain
//   probe_up_gain             1.25           draft §4.3.3.5 / tcp_bbr.c pacing_gain[0]
//   probe_down_gain           0.9 / 0.75     draft §4.3.3.1 / tcp_bbr.c pacing_gain[1]
//   full_bw_growth            1.25           draft §4.3.1.2 / tcp_bbr.c bbr_full_bw_thresh
//   full_bw_rounds            3              draft / tcp_bbr.c bbr_full_bw_cnt
//   min_rtt_window_ms         10000          draft §4.5.3 / tcp_bbr.c bbr_min_rtt_win_sec
//   probe_rtt_interval_ms     5000           draft ProbeRTTInterval (v1: min_rtt_window_ms)
//   probe_rtt_duration_ms     200            draft / tcp_bbr.c bbr_probe_rtt_mode_ms
//   probe_rtt_cwnd_gain       0.5 / 0        draft §4.3.4 / v1 uses 4 packets
//   loss_threshold            0.02           draft BBRLossThresh
//   beta                      0.7            draft BBRBeta
//   headroom                  0.15           draft BBRHeadroom
//   max_bw_rounds             10             v1 bbr_bw_rtts (v3 uses 2 cycles)
//   probe_wait_s              2              draft: bw_probe_wait = 2 s + random [0, 1) s
//   pacing_margin             0.01           draft / tcp_bbr.c bbr_pacing_margin_percent
//   initial_cwnd_packets      10             RFC 6928
//   min_cwnd_packets          4              draft BBRMinPipeCwnd / tcp_bbr.c bbr_cwnd_min_target
//   seed                      0              stream for the random probe wait / v1 start phase
#pragma once

#include <cstdint>
#include <memory>

#include "core/rng.h"
#include "generators/cc/congestion_control.h"
#include "generators/cc/round_tracker.h"
#include "generators/cc/windowed_filter.h"

namespace gw::cc {

struct BbrSettings {
  int version = 3;
  double startup_pacing_gain = 2.77;
  double startup_cwnd_gain = 2.0;
  double drain_gain = 0.5;
  double cwnd_gain = 2.0;
  double probe_up_gain = 1.25;
  double probe_down_gain = 0.9;
  double full_bw_growth = 1.25;
  std::uint64_t full_bw_rounds = 3;
  Duration min_rtt_window{10'000'000'000};
  Duration probe_rtt_interval{5'000'000'000};
  Duration probe_rtt_duration{200'000'000};
  double probe_rtt_cwnd_gain = 0.5;
  double loss_threshold = 0.02;
  double beta = 0.7;
  double headroom = 0.15;
  std::uint64_t max_bw_rounds = 10;
  double probe_wait_s = 2.0;
  double pacing_margin = 0.01;
  std::uint64_t initial_cwnd_packets = 10;
  std::uint64_t min_cwnd_packets = 4;
  std::uint64_t seed = 0;

  static BbrSettings from(const CcParams& params);
};

class Bbr final : public CongestionControl {
 public:
  enum class State : std::uint8_t { kStartup, kDrain, kProbeBw, kProbeRtt };
  enum class Phase : std::uint8_t { kDown, kCruise, kRefill, kUp };  // v3 ProbeBW phases

  Bbr(const CcContext& ctx, const BbrSettings& s);

  void on_packet_sent(const SentEvent&) override {}
  void on_ack(const AckEvent& e) override;
  void on_loss_undone(Instant now) override;
  void on_loss(const LossEvent& e) override;

  std::uint64_t cwnd_bytes() const override { return cwnd_; }
  BitRate pacing_rate() const override { return BitRate{pacing_bps_}; }
  CcState state() const override;
  std::string_view name() const override { return "bbr"; }

  State mode() const { return state_; }
  Phase probe_bw_phase() const { return phase_; }
  double pacing_gain() const { return pacing_gain_; }
  double max_bw_bps() const { return max_bw_.best(); }
  Duration min_rtt() const { return min_rtt_; }
  double bdp_bytes() const;  // max_bw x min_rtt
  double inflight_hi() const { return inflight_hi_; }
  double inflight_lo() const { return inflight_lo_; }
  bool full_bw_reached() const { return full_bw_reached_; }

 private:
  void on_round_end(const AckEvent& e);
  void check_full_bw(bool app_limited);
  void update_min_rtt(const AckEvent& e);
  void update_probe_bw(const AckEvent& e);
  void update_probe_rtt(const AckEvent& e);
  void enter_probe_bw(Instant now);
  void start_phase(Phase p, Instant now);
  void set_cwnd(const AckEvent& e);
  void set_pacing();

  BbrSettings s_;
  std::uint32_t mss_;
  double line_bps_;
  Rng rng_;
  State state_ = State::kStartup;
  Phase phase_ = Phase::kCruise;
  double pacing_gain_;
  double cwnd_gain_;
  std::uint64_t cwnd_;
  std::uint64_t pacing_bps_ = 0;
  RoundTracker rounds_;
  std::uint64_t cycle_count_ = 0;  // v3 ProbeBW cycles (the max-bw filter's clock)
  MaxFilter<double, std::uint64_t, std::uint64_t> max_bw_;
  Duration min_rtt_{0};
  Instant min_rtt_stamp_{};
  Duration probe_rtt_min_{0};  // v3: min RTT over probe_rtt_interval
  Instant probe_rtt_stamp_{};
  bool probe_rtt_expired_ = false;  // v3: probe_rtt_min expired; v1: min_rtt expired
  // full-bandwidth detection
  double full_bw_ = 0;
  std::uint64_t full_bw_count_ = 0;
  bool full_bw_reached_ = false;
  // per-round loss accounting (v3)
  std::uint64_t round_acked_ = 0;
  std::uint64_t round_lost_ = 0;
  std::uint64_t round_max_inflight_ = 0;
  double round_max_bw_ = 0;
  // draft BBR.inflight_latest / tcp_bbr.c inflight_latest: the most delivered during one
  // rate sample's interval this round (not the bytes acknowledged in the round, which lose
  // the round's losses and so ratchet inflight_lo down by the loss rate every round).
  std::uint64_t round_max_delivered_ = 0;
  double bw_lo_ = 0;  // 0 = unset (infinite)
  double inflight_lo_ = 0;
  double inflight_hi_ = 0;
  // Before the first loss of the episode on_loss_undone may undo.
  bool undo_in_startup_ = false;
  double undo_inflight_hi_ = 0;
  // ProbeBW phase timing
  Instant phase_stamp_{};
  Instant probe_wait_until_{};
  std::uint64_t rounds_in_phase_ = 0;
  std::uint64_t v1_cycle_index_ = 0;
  // ProbeRTT
  std::uint64_t prior_cwnd_ = 0;
  // Delivery-rate samples count as app-limited until the acknowledged-bytes total passes this
  // mark: the data sent during ProbeRTT (tcp_bbr.c bbr_update_min_rtt, draft BBRHandleProbeRTT).
  std::uint64_t probe_rtt_limited_until_ = 0;
  Instant probe_rtt_done_ = kNever;
  bool probe_rtt_round_done_ = false;
};

std::unique_ptr<CongestionControl> make_bbr(const CcContext& ctx, const CcParams& params);

}  // namespace gw::cc
