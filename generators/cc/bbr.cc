#include "generators/cc/bbr.h"

#include <algorithm>
#include <cmath>

#include "generators/cc/params.h"

namespace gw::cc {
namespace {

constexpr double kV1CycleGains[8] = {1.25, 0.75, 1, 1, 1, 1, 1, 1};  // tcp_bbr.c bbr_pacing_gain

double seconds(Duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

BbrSettings BbrSettings::from(const CcParams& params) {
  ParamReader r("bbr", params);
  BbrSettings s;
  s.version = static_cast<int>(r.integer("version", 3, 1, 3));
  if (s.version == 2) {
    r.fail("version", "must be 1 or 3, got 2");
  }
  const bool v1 = s.version == 1;
  s.startup_pacing_gain = r.number("startup_pacing_gain", v1 ? 2.885 : 2.77, 1.0, 100.0);
  s.startup_cwnd_gain = r.number("startup_cwnd_gain", v1 ? 2.885 : 2.0, 1.0, 100.0);
  s.drain_gain = r.number("drain_gain", v1 ? 1.0 / 2.885 : 0.5, 0.0, 1.0, Bounds::kOpenLow);
  s.cwnd_gain = r.number("cwnd_gain", 2.0, 1.0, 100.0);
  s.probe_up_gain = r.number("probe_up_gain", 1.25, 1.0, 100.0);
  s.probe_down_gain = r.number("probe_down_gain", v1 ? 0.75 : 0.9, 0.0, 1.0, Bounds::kOpenLow);
  s.full_bw_growth = r.number("full_bw_growth", 1.25, 1.0, 100.0, Bounds::kOpenLow);
  s.full_bw_rounds = r.integer("full_bw_rounds", 3, 1, 1000);
  s.min_rtt_window = r.millis("min_rtt_window_ms", 10'000.0, 1.0, 1e9);
  s.probe_rtt_interval = r.millis("probe_rtt_interval_ms", 5'000.0, 1.0, 1e9);
  s.probe_rtt_duration = r.millis("probe_rtt_duration_ms", 200.0, 0.0, 1e9);
  s.probe_rtt_cwnd_gain = r.number("probe_rtt_cwnd_gain", v1 ? 0.0 : 0.5, 0.0, 1.0);
  s.loss_threshold = r.number("loss_threshold", 0.02, 0.0, 1.0, Bounds::kOpenLow);
  s.beta = r.number("beta", 0.7, 0.0, 1.0, Bounds::kOpen);
  s.headroom = r.number("headroom", 0.15, 0.0, 1.0, Bounds::kOpenHigh);
  s.max_bw_rounds = r.integer("max_bw_rounds", 10, 1, 1000);
  s.probe_wait_s = r.number("probe_wait_s", 2.0, 0.0, 1e6);
  s.pacing_margin = r.number("pacing_margin", 0.01, 0.0, 1.0, Bounds::kOpenHigh);
  s.initial_cwnd_packets = r.integer("initial_cwnd_packets", 10, 1, 1'000'000);
  s.min_cwnd_packets = r.integer("min_cwnd_packets", 4, 1, 1'000'000);
  s.seed = r.integer("seed", 0, 0, std::uint64_t{1} << 53);
  r.finish();
  return s;
}

Bbr::Bbr(const CcContext& ctx, const BbrSettings& s)
    : s_(s),
      mss_(ctx.mss_bytes),
      line_bps_(static_cast<double>(ctx.line_rate_bps)),
      rng_(s.seed, "bbr"),
      pacing_gain_(s.startup_pacing_gain),
      cwnd_gain_(s.startup_cwnd_gain),
      cwnd_(s.initial_cwnd_packets * ctx.mss_bytes),
      max_bw_(s.version == 1 ? s.max_bw_rounds : 1) {
  if (ctx.base_rtt_hint > Duration{0}) {
    // draft §4.6.2 BBRInitPacingRate: startup gain x initial cwnd / RTT.
    pacing_bps_ = static_cast<std::uint64_t>(pacing_gain_ * static_cast<double>(cwnd_) * 8.0 /
                                             seconds(ctx.base_rtt_hint));
  }
}

double Bbr::bdp_bytes() const {
  return max_bw_.best() / 8.0 * seconds(min_rtt_);
}

void Bbr::update_min_rtt(const AckEvent& e) {
  // draft BBRUpdateMinRTT / tcp_bbr.c bbr_update_min_rtt: expiry is judged before the sample.
  const bool min_expired = e.now - min_rtt_stamp_ > s_.min_rtt_window;
  const bool probe_expired = e.now - probe_rtt_stamp_ > s_.probe_rtt_interval;
  probe_rtt_expired_ = s_.version == 1 ? min_expired : probe_expired;
  if (e.rtt <= Duration{0}) {
    return;
  }
  if (s_.version == 1) {
    if (min_rtt_ == Duration{0} || e.rtt < min_rtt_ || min_expired) {
      min_rtt_ = e.rtt;
      min_rtt_stamp_ = e.now;
    }
    return;
  }
  if (probe_rtt_min_ == Duration{0} || e.rtt < probe_rtt_min_ || probe_expired) {
    probe_rtt_min_ = e.rtt;
    probe_rtt_stamp_ = e.now;
  }
  if (min_rtt_ == Duration{0} || probe_rtt_min_ < min_rtt_ || min_expired) {
    min_rtt_ = probe_rtt_min_;
    min_rtt_stamp_ = probe_rtt_stamp_;
  }
}

void Bbr::on_ack(const AckEvent& e) {
  round_acked_ += e.acked_bytes;
  round_max_inflight_ = std::max(round_max_inflight_, e.bytes_in_flight + e.acked_bytes);
  update_min_rtt(e);
  if (e.sample_interval > Duration{0} && e.sample_delivered > 0) {
    const double bw = static_cast<double>(e.sample_delivered) * 8.0 / seconds(e.sample_interval);
    round_max_bw_ = std::max(round_max_bw_, bw);
    round_max_delivered_ = std::max(round_max_delivered_, e.sample_delivered);
    // "Ignore low rate samples during this mode" (tcp_bbr.c bbr_update_min_rtt; draft
    // BBRHandleProbeRTT: MarkConnectionAppLimited): samples of data sent while the window was
    // cut for ProbeRTT are app-limited. Otherwise, with ProbeRTT's 200 ms spanning more than
    // v1's 10-round max-filter window (RTT < 20 ms), the low samples replace max_bw and the
    // flow restarts from a few packets per RTT.
    const bool probe_rtt_limited =
        state_ == State::kProbeRtt || rounds_.acked() + e.acked_bytes <= probe_rtt_limited_until_;
    if ((!e.app_limited && !probe_rtt_limited) || bw >= max_bw_.best()) {
      max_bw_.update(bw, s_.version == 1 ? rounds_.rounds() : cycle_count_);
    }
  }
  if (rounds_.on_ack(e.acked_bytes, e.bytes_in_flight)) {
    on_round_end(e);
  }
  if (state_ == State::kStartup && full_bw_reached_) {
    state_ = State::kDrain;  // draft §4.3.2
    pacing_gain_ = s_.drain_gain;
    cwnd_gain_ = s_.startup_cwnd_gain;
  }
  if (state_ == State::kDrain && static_cast<double>(e.bytes_in_flight) <= bdp_bytes()) {
    enter_probe_bw(e.now);
  }
  if (state_ == State::kProbeBw) {
    update_probe_bw(e);
  }
  update_probe_rtt(e);
  set_cwnd(e);
  set_pacing();
}

void Bbr::on_round_end(const AckEvent& e) {
  ++rounds_in_phase_;
  const std::uint64_t resolved = round_acked_ + round_lost_;
  const bool too_high = s_.version == 3 && round_lost_ > 0 &&
                        static_cast<double>(round_lost_) > s_.loss_threshold * static_cast<double>(resolved);
  // draft BBRIsProbingBW / tcp_bbr.c bbr_is_probing_bandwidth: Startup, REFILL and UP.
  const bool probing = state_ == State::kStartup ||
                       (state_ == State::kProbeBw && (phase_ == Phase::kUp || phase_ == Phase::kRefill));
  if (too_high && probing) {
    // draft BBRHandleInflightTooHigh: remember the level that caused loss, stop probing.
    inflight_hi_ = std::max(static_cast<double>(round_max_inflight_) * (1.0 - s_.loss_threshold),
                            s_.beta * bdp_bytes() * s_.cwnd_gain);
    if (state_ == State::kStartup) {
      full_bw_reached_ = true;
    } else {
      start_phase(Phase::kDown, e.now);
    }
  } else if (s_.version == 3 && round_lost_ > 0 && !probing) {
    // draft BBRAdaptLowerBoundsFromCongestion.
    bw_lo_ = std::max(round_max_bw_, s_.beta * (bw_lo_ > 0 ? bw_lo_ : max_bw_.best()));
    inflight_lo_ = std::max(static_cast<double>(round_max_delivered_),
                            s_.beta * (inflight_lo_ > 0 ? inflight_lo_ : static_cast<double>(cwnd_)));
  }
  if (state_ == State::kStartup) {
    check_full_bw(e.app_limited);
  }
  round_acked_ = 0;
  round_lost_ = 0;
  round_max_inflight_ = 0;
  round_max_bw_ = 0;
  round_max_delivered_ = 0;
}

void Bbr::check_full_bw(bool app_limited) {
  // draft §4.3.1.2 / tcp_bbr.c bbr_check_full_bw_reached.
  if (full_bw_reached_ || app_limited) {
    return;
  }
  if (max_bw_.best() >= full_bw_ * s_.full_bw_growth) {
    full_bw_ = max_bw_.best();
    full_bw_count_ = 0;
    return;
  }
  if (++full_bw_count_ >= s_.full_bw_rounds) {
    full_bw_reached_ = true;
  }
}

void Bbr::enter_probe_bw(Instant now) {
  state_ = State::kProbeBw;
  cwnd_gain_ = s_.cwnd_gain;
  if (s_.version == 1) {
    // tcp_bbr.c bbr_reset_probe_bw_mode: a random phase other than the 0.75 one.
    v1_cycle_index_ = (rng_.below(7) + 2) % 8;
    pacing_gain_ = kV1CycleGains[v1_cycle_index_];
    phase_stamp_ = now;
    return;
  }
  start_phase(Phase::kDown, now);
}

void Bbr::start_phase(Phase p, Instant now) {
  if (p == Phase::kDown) {
    ++cycle_count_;  // a new cycle: the max-bw filter ages by one
    probe_wait_until_ = now + Duration{std::llround((s_.probe_wait_s + rng_.uniform()) * 1e9)};
  }
  if (p == Phase::kRefill) {
    bw_lo_ = 0;  // draft BBRResetLowerBounds
    inflight_lo_ = 0;
  }
  phase_ = p;
  phase_stamp_ = now;
  rounds_in_phase_ = 0;
  static constexpr double kGains[] = {0, 1.0, 1.0, 0};
  pacing_gain_ = p == Phase::kDown ? s_.probe_down_gain
                 : p == Phase::kUp ? s_.probe_up_gain
                                   : kGains[static_cast<int>(p)];
}

void Bbr::update_probe_bw(const AckEvent& e) {
  const double inflight = static_cast<double>(e.bytes_in_flight);
  const bool full_length = e.now - phase_stamp_ > min_rtt_;
  if (s_.version == 1) {
    // tcp_bbr.c bbr_is_next_cycle_phase.
    bool next = full_length;
    if (pacing_gain_ > 1.0) {
      next = full_length && inflight + static_cast<double>(e.acked_bytes) >= pacing_gain_ * bdp_bytes();
    } else if (pacing_gain_ < 1.0) {
      next = full_length || inflight <= bdp_bytes();
    }
    if (next) {
      v1_cycle_index_ = (v1_cycle_index_ + 1) % 8;
      pacing_gain_ = kV1CycleGains[v1_cycle_index_];
      phase_stamp_ = e.now;
    }
    return;
  }
  switch (phase_) {
    case Phase::kDown:
      if (inflight <= bdp_bytes() && (inflight_hi_ == 0 || inflight <= (1.0 - s_.headroom) * inflight_hi_)) {
        start_phase(Phase::kCruise, e.now);
      }
      break;
    case Phase::kCruise: {
      // draft BBRIsTimeToProbeBW: the random wall-clock wait, or Reno-coexistence rounds.
      const double reno_rounds = std::min(bdp_bytes() / mss_, 63.0);
      if (e.now >= probe_wait_until_ || static_cast<double>(rounds_in_phase_) >= reno_rounds) {
        start_phase(Phase::kRefill, e.now);
      }
      break;
    }
    case Phase::kRefill:
      if (rounds_in_phase_ >= 1) {
        start_phase(Phase::kUp, e.now);
      }
      break;
    case Phase::kUp:
      if (inflight_hi_ > 0 && inflight >= inflight_hi_) {
        inflight_hi_ += static_cast<double>(e.acked_bytes);  // probe above the old ceiling
      }
      if (full_length && inflight + static_cast<double>(e.acked_bytes) >= s_.probe_up_gain * bdp_bytes()) {
        start_phase(Phase::kDown, e.now);
      }
      break;
  }
}

void Bbr::update_probe_rtt(const AckEvent& e) {
  if (state_ != State::kProbeRtt && probe_rtt_expired_ && min_rtt_ > Duration{0}) {
    prior_cwnd_ = std::max(prior_cwnd_, cwnd_);
    state_ = State::kProbeRtt;
    pacing_gain_ = 1.0;
    probe_rtt_done_ = kNever;
    probe_rtt_round_done_ = false;
    return;
  }
  if (state_ != State::kProbeRtt) {
    return;
  }
  probe_rtt_limited_until_ = rounds_.acked() + e.bytes_in_flight;  // tcp_bbr.c tp->app_limited
  const double target =
      std::max(s_.probe_rtt_cwnd_gain * bdp_bytes(), static_cast<double>(s_.min_cwnd_packets * mss_));
  if (probe_rtt_done_ == kNever && static_cast<double>(e.bytes_in_flight) <= target) {
    probe_rtt_done_ = e.now + s_.probe_rtt_duration;
    rounds_in_phase_ = 0;
    return;
  }
  if (probe_rtt_done_ != kNever && rounds_in_phase_ >= 1 && e.now >= probe_rtt_done_) {
    // draft BBRExitProbeRTT: the min RTT has been refreshed.
    probe_rtt_stamp_ = e.now;
    min_rtt_stamp_ = e.now;
    cwnd_ = std::max(cwnd_, prior_cwnd_);
    prior_cwnd_ = 0;
    // draft BBRExitProbeRTT: BBRResetLowerBounds. The losses of ProbeRTT's short window
    // would otherwise cap the flow near its ProbeRTT inflight until the next REFILL.
    bw_lo_ = 0;
    inflight_lo_ = 0;
    if (full_bw_reached_) {
      enter_probe_bw(e.now);
      if (s_.version == 3) {
        start_phase(Phase::kCruise, e.now);
      }
    } else {
      state_ = State::kStartup;
      pacing_gain_ = s_.startup_pacing_gain;
      cwnd_gain_ = s_.startup_cwnd_gain;
    }
  }
}

void Bbr::set_cwnd(const AckEvent& e) {
  const double min_cwnd = static_cast<double>(s_.min_cwnd_packets * mss_);
  if (state_ == State::kProbeRtt) {
    cwnd_ = static_cast<std::uint64_t>(std::max(s_.probe_rtt_cwnd_gain * bdp_bytes(), min_cwnd));
    return;
  }
  double cwnd = static_cast<double>(cwnd_);
  const double target = cwnd_gain_ * bdp_bytes() + 3.0 * mss_;  // tcp_bbr.c bbr_quantization_budget
  if (full_bw_reached_) {
    cwnd = std::min(cwnd + static_cast<double>(e.acked_bytes), target);
  } else if (cwnd < target || max_bw_.empty()) {
    cwnd += static_cast<double>(e.acked_bytes);
  }
  if (s_.version == 3) {
    // draft BBRBoundCwndForModel.
    if (inflight_hi_ > 0) {
      const bool cruise = state_ == State::kProbeBw && phase_ == Phase::kCruise;
      cwnd = std::min(cwnd, cruise ? (1.0 - s_.headroom) * inflight_hi_ : inflight_hi_);
    }
    if (inflight_lo_ > 0) {
      cwnd = std::min(cwnd, inflight_lo_);
    }
  }
  cwnd_ = static_cast<std::uint64_t>(std::max(cwnd, min_cwnd));
}

void Bbr::set_pacing() {
  if (max_bw_.empty()) {
    return;
  }
  double bw = max_bw_.best();
  if (s_.version == 3 && bw_lo_ > 0) {
    bw = std::min(bw, bw_lo_);
  }
  const double rate = pacing_gain_ * bw * (1.0 - s_.pacing_margin);
  // draft §4.6.2: in Startup the pacing rate only grows.
  const auto bps = static_cast<std::uint64_t>(std::min(rate, line_bps_));
  if (state_ != State::kStartup || bps > pacing_bps_) {
    pacing_bps_ = bps;
  }
}

void Bbr::on_loss(const LossEvent& e) {
  if (e.undo_start) {  // what on_loss_undone restores
    undo_in_startup_ = state_ == State::kStartup;
    undo_inflight_hi_ = inflight_hi_;
  }
  round_lost_ += e.lost_bytes;
  if (e.timeout) {
    // draft BBROnEnterRTO: cwnd = inflight + 1 packet.
    prior_cwnd_ = std::max(prior_cwnd_, cwnd_);
    cwnd_ = e.bytes_in_flight + mss_;
  }
}

// Every resend of the episode was spurious (tcp_bbr.c bbr_undo_cwnd): the full-bandwidth
// detector and the lower bounds start over. The losses were not losses, so neither is the
// bound they set: inflight_hi goes back to its value before the episode, and a Startup that
// the "inflight too high" rule ended resumes (a reordered first window must not end Startup
// at a few packets, which Linux avoids by not counting reordering as loss in the first place).
void Bbr::on_loss_undone(Instant now) {
  (void)now;
  full_bw_ = 0;
  full_bw_count_ = 0;
  bw_lo_ = 0;
  inflight_lo_ = 0;
  round_lost_ = 0;
  inflight_hi_ = undo_inflight_hi_;
  if (undo_in_startup_ && state_ != State::kStartup && state_ != State::kProbeRtt) {
    state_ = State::kStartup;
    full_bw_reached_ = false;
    pacing_gain_ = s_.startup_pacing_gain;
    cwnd_gain_ = s_.startup_cwnd_gain;
  }
}

CcState Bbr::state() const {
  const char* phase = "startup";
  switch (state_) {
    case State::kStartup:
      break;
    case State::kDrain:
      phase = "drain";
      break;
    case State::kProbeRtt:
      phase = "probe_rtt";
      break;
    case State::kProbeBw:
      if (s_.version == 1) {
        phase = pacing_gain_ > 1.0 ? "probe_bw_up" : pacing_gain_ < 1.0 ? "probe_bw_down" : "probe_bw_cruise";
      } else {
        static constexpr const char* kNames[] = {"probe_bw_down", "probe_bw_cruise", "probe_bw_refill",
                                                 "probe_bw_up"};
        phase = kNames[static_cast<int>(phase_)];
      }
      break;
  }
  return CcState{cwnd_, pacing_bps_, phase};
}

std::unique_ptr<CongestionControl> make_bbr(const CcContext& ctx, const CcParams& params) {
  return std::make_unique<Bbr>(ctx, BbrSettings::from(params));
}

}  // namespace gw::cc
