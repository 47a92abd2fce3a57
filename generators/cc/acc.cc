#include "generators/cc/acc.h"

#include <algorithm>
#include <cmath>

#include "generators/cc/params.h"

namespace gw::cc {

void AccSettings::read_common(ParamReader& r) {
  gradient_threshold = r.number("gradient_threshold", gradient_threshold, 0.0, 1e6);
  queue_limit = r.micros("queue_limit_us", 50.0, 0.0, 1e9);
  int_queue_limit_bytes =
      r.integer("int_queue_limit_bytes", int_queue_limit_bytes, 0, std::uint64_t{1} << 40);
  ecn_response = r.flag("ecn_response", ecn_response);
  min_rate_bps = r.number("min_rate_mbps", 100.0, 0.0, 1e9, Bounds::kOpenLow) * 1e6;
  initial_rate_bps = r.number("initial_rate_gbps", 0.0, 0.0, 1e6) * 1e9;
}

AccSettings AccSettings::from(const CcParams& params) {
  ParamReader r("acc", params);
  AccSettings s;
  s.read_common(r);
  s.cut_fraction = r.number("cut_fraction", s.cut_fraction, 0.0, 1.0, Bounds::kOpenHigh);
  s.step_bps = r.number("step_gbps", 1.5, 0.0, 1e6) * 1e9;
  r.finish();
  return s;
}

Acc::Acc(const CcContext& ctx, const AccSettings& s)
    : s_(s),
      mss_(ctx.mss_bytes),
      line_(static_cast<double>(ctx.line_rate_bps)),
      step_(s.acc2 ? s.step_fraction * line_ : s.step_bps),
      rate_(s.initial_rate_bps > 0 ? std::min(s.initial_rate_bps, line_) : line_) {
  if (ctx.base_rtt_hint > Duration{0}) {
    rtt_.update(ctx.base_rtt_hint);
  }
  startup_ = s.acc2 && s.initial_rate_bps == 0;
  startup_cwnd_ = std::uint64_t{10} * mss_;  // RFC 6928's initial window
}

void Acc::on_ack(const AckEvent& e) {
  rtt_.update(e.rtt);
  bool sampled = true;  // a delay sample: one-way if echoed, else the RTT
  if (e.one_way_delay > Duration{0}) {
    min_owd_ = min_owd_ == Duration{0} ? e.one_way_delay : std::min(min_owd_, e.one_way_delay);
    qd_ = e.one_way_delay - min_owd_;
  } else if (e.rtt > Duration{0}) {
    const Duration floor = e.min_rtt > Duration{0} ? e.min_rtt : e.rtt;
    min_rtt_ = min_rtt_ == Duration{0} ? floor : std::min(min_rtt_, floor);
    qd_ = e.rtt - min_rtt_;
  } else {
    sampled = false;
  }
  if (s_.acc2 && sampled) {  // acc2's filtered signal (acc2.h, fix 4)
    interval_min_qd_ = interval_samples_ == 0 ? qd_ : std::min(interval_min_qd_, qd_);
    ++interval_samples_;
  }
  acked_ += e.acked_bytes;
  ce_ += e.ce_bytes;
  if (startup_) {
    startup_cwnd_ += e.acked_bytes;  // doubles per round trip, as slow start
    // Fix 13: paced at BBR's startup gain x the best delivery rate sampled so far
    // (draft-cardwell-iccrg-bbr-congestion-control §4.3.1, draft-cheng-iccrg-delivery-rate-
    // estimation), not at line rate: a doubled window sent at the NIC's rate into a link that
    // other tenants' bursts share built its own queue, and half its packets were marked while
    // it delivered 0.64 of 6 Gbit/s (microburst-heavy), ending startup 1 s of ramp too early.
    if (e.sample_interval > Duration{0}) {
      const double bw =
          static_cast<double>(e.sample_delivered) * 8e9 / static_cast<double>(e.sample_interval.count());
      startup_bw_ = std::max(startup_bw_, bw);
      rate_ = std::min(std::max(kStartupGain * startup_bw_, s_.min_rate_bps), line_);
    }
  }
  for (const IntHopEcho& hop : e.int_hops) {
    int_depth_ = std::max<std::uint64_t>(int_depth_, hop.queue_bytes);
  }
  if (!started_) {
    started_ = true;
    last_update_ = e.now;
    qd_at_update_ = qd_;
    return;
  }
  if (rtt_.has_sample() && e.now - last_update_ >= interval()) {
    update(e.now);
  }
}

double Acc::decrease_factor(double gradient) const {
  if (!s_.acc2) {
    return gradient > s_.gradient_threshold ? 1.0 - s_.cut_fraction : 1.0;
  }
  double factor = 1.0;
  if (gradient > s_.gradient_threshold) {  // fix 2: proportional to the gradient
    factor = 1.0 - s_.gradient_gain * gradient;
  }
  const Duration target = s_.target_delay + jitter_allowance();
  if (signal_ > target) {  // fix 1: the absolute-delay (Swift) term
    const double qd = static_cast<double>(signal_.count());
    factor = std::min(factor, 1.0 - s_.beta * (qd - static_cast<double>(target.count())) / qd);
  }
  return factor < 1.0 ? std::max(factor, 1.0 - s_.max_mdf) : 1.0;
}

// acc decides once per SRTT; acc2 once per base RTT when it knows one (fix 5: the SRTT grows
// with the very queue the decision has to see, so a sender starting at line rate into a slower
// link went ever longer between decisions while it filled the buffer).
Duration Acc::base_rtt() const {
  return min_owd_ > Duration{0} ? 2 * min_owd_ : min_rtt_;
}

Duration Acc::interval() const {
  if (s_.acc2) {
    const Duration base = base_rtt();
    if (base > Duration{0}) {
      return std::min(base, rtt_.srtt());
    }
  }
  return rtt_.srtt();
}

Duration Acc::jitter_allowance() const {
  if (!s_.acc2) {
    return Duration{0};
  }
  const auto rtt_part =
      Duration{static_cast<std::int64_t>(s_.target_rtt_fraction * static_cast<double>(base_rtt().count()))};
  const Duration target = std::max(s_.target_delay, rtt_part);
  return target - s_.target_delay +
         Duration{static_cast<std::int64_t>(s_.jitter_allowance * static_cast<double>(jitter_.count()))};
}

void Acc::update(Instant now) {
  const double elapsed = static_cast<double>((now - last_update_).count());
  // acc2: the least queueing delay of the interval, before the floor is taken off (fix 9).
  const Duration least = interval_samples_ > 0 ? interval_min_qd_ : qd_;
  if (s_.acc2) {
    // Fix 4: the interval's least queueing delay, and the delay noise (mean absolute difference
    // of successive samples) smoothed over intervals (1/4, as RFC 6298's RTTVAR).
    if (interval_samples_ > 0) {
      // Measured from the least interval minimum of the last kFloorWindow intervals: the
      // minimum of one interval's samples lies above the minimum of all samples ever by a
      // bias that grows with the jitter (3 ms under 2 ms Pareto-normal jitter), where the
      // minima of intervals compare like with like. A queue that stands through the whole
      // window (another sender's, which no backing off drains) becomes the floor, as BBR's
      // min_rtt window lets it (draft-cardwell-iccrg-bbr-congestion-control §4.3.3).
      floors_[floor_next_++ % floors_.size()] = interval_min_qd_;
      floor_count_ = std::min<std::size_t>(floor_count_ + 1, floors_.size());
      const Duration floor =
          *std::min_element(floors_.begin(), floors_.begin() + static_cast<std::ptrdiff_t>(floor_count_));
      signal_ = interval_min_qd_ - floor;
    }
    if (interval_samples_ > 0) {
      // The noise: how far one interval's least delay lies from the last one's (their mean
      // absolute successive difference, smoothed 1/4 as RFC 6298's RTTVAR). Jitter the path
      // adds scatters the minima (by ~1 ms under 2 ms Pareto-normal jitter, by ~0.05 ms under
      // 0.2 ms normal jitter); a queue the sender builds moves them, which the gradient sees.
      // Fix 12: the successive differences are of the second order (m_k - 2 m_k-1 + m_k-2,
      // scaled by 1/sqrt(3) to match the first-order ones on independent noise: variance
      // 6 sigma^2 against 2 sigma^2), so that a queue growing at a steady pace, which moves
      // every minimum by the same amount, is not taken for noise: on an L4S link the ramp
      // raised the noise, and with it the target, by 0.5-1 ms a decision.
      // Not while startup doubles the rate and the drain empties the queue it built: those
      // move the minima by the queue itself (to 10 ms of "noise" after a 40 ms buffer
      // filled), and a noise that large raises the target past the buffer.
      if (minima_seen_ >= 2 && !startup_ && draining_ == 0) {
        const double d2 =
            static_cast<double>((interval_min_qd_ - 2 * last_interval_min_ + before_last_min_).count());
        const auto d = Duration{static_cast<std::int64_t>(std::abs(d2) / std::sqrt(3.0))};
        jitter_ = (3 * jitter_ + d) / 4;
      }
      before_last_min_ = last_interval_min_;
      last_interval_min_ = interval_min_qd_;
      minima_seen_ = std::min(minima_seen_ + 1, 2);
    }
    interval_samples_ = 0;
  } else {
    signal_ = qd_;
  }
  const double gradient = static_cast<double>((signal_ - qd_at_update_).count()) / elapsed;
  double factor = decrease_factor(gradient);
  // Fix 8: at most one cut per SRTT, as Swift (Kumar et al. 2020, Algorithm 1: a decrease only
  // once now - t_last_decrease >= rtt): the queue a cut drains takes a round trip to show, and
  // cut after cut on the same queue took an L4S link's sender from 1.3 to 0.2 Gbit/s. Sooner
  // only if the queue still grows two decisions after the cut (its effect shown by then).
  const Instant decreased_before = last_decrease_;
  bool ecn_cut = false;
  const bool may_cut = !s_.acc2 || now - last_decrease_ >= rtt_.srtt() ||
                       (now - last_decrease_ >= 2 * interval() && gradient > 0);
  const bool cut_held = factor < 1.0 && !may_cut;
  if (cut_held) {
    factor = 1.0;
  }
  // Fix 9: CE marks count only while a queue stands through the interval, or when most
  // packets were marked (BBR v3's ecn_thresh, 50 %). Marks on a queue that empties within
  // the interval are other senders' bursts crossing a shallow marking threshold (a DCQCN-style
  // 200 KB Kmin), which no backing off of ours prevents: cutting on them held acc2 at 0.54x
  // BBR's goodput on microburst-heavy.
  const double marked = acked_ > 0 ? static_cast<double>(ce_) / static_cast<double>(acked_) : 0.0;
  const bool standing = !s_.acc2 || least > 2 * jitter_ + kStandingQueue || marked >= kMostMarked;
  if (startup_) {
    // Fix 6: the first sign of a queue (a cut, a CE mark, a queue past the limit) ends startup;
    // until then the window keeps doubling.
    const bool queue =
        factor < 1.0 || (ce_ > 0 && standing) || signal_ >= s_.queue_limit + jitter_allowance();
    if (!queue) {
      phase_ = "startup";
      finish_interval(now);
      return;
    }
    // Then a drain, as BBR's (draft-cardwell-iccrg-bbr-congestion-control §4.3.2): half the
    // rate the last interval delivered until the queue of startup's last doubling is gone,
    // then kAfterDrain x that rate. Read as congestion, that queue's delay and marks, which
    // arrive for a round trip or two after startup ends, cut the rate again and again (an L4S
    // link's sender from 957 to 132 Mbit/s in three decisions).
    startup_ = false;
    draining_ = kMaxDrainIntervals;
    startup_delivered_ = static_cast<double>(acked_) * 8e9 / elapsed;
    rate_ = std::max(startup_delivered_ / 2, s_.min_rate_bps);
    phase_ = "drain";
    last_decrease_ = now;
    finish_interval(now);
    return;
  }
  if (draining_ > 0) {
    const bool drained = signal_ < s_.queue_limit + jitter_allowance() && (ce_ == 0 || !standing);
    if (!drained && --draining_ > 0) {
      phase_ = "drain";
    } else {
      draining_ = 0;
      rate_ = std::max(rate_, kAfterDrain * startup_delivered_);
      phase_ = "hold";
    }
    finish_interval(now);
    return;
  }
  const bool int_ok = int_depth_ < s_.int_queue_limit_bytes || s_.int_queue_limit_bytes == 0;
  if (factor < 1.0) {
    rate_ *= factor;
    phase_ = "decrease";
    last_decrease_ = now;
  } else if (cut_held) {
    phase_ = "hold";
  } else if (gradient <= s_.gradient_threshold && signal_ < s_.queue_limit + jitter_allowance() && int_ok) {
    rate_ += increase_step();
    phase_ = "increase";
  } else {
    phase_ = "hold";
  }
  if (!s_.acc2) {
    if (s_.ecn_response && acked_ > 0 && ce_ > 0) {
      rate_ *= 1.0 - marked;
      phase_ = "ecn_decrease";
    }
  } else if (s_.ecn_response && acked_ > 0) {
    // Fix 7: "5 % marked -> 5 % slower" took a fully marked interval (an L4S step threshold
    // crossed) to the floor. acc2 responds as DCTCP and Prague do (RFC 8257 §3.3: alpha <-
    // (1 - g) alpha + g F, g = 1/16, alpha starting at 1; cut alpha / 2), and not on top of a
    // delay cut in the same decision: the stronger of the two.
    ecn_alpha_ = (1.0 - kEcnGain) * ecn_alpha_ + kEcnGain * (standing ? marked : 0.0);
    // Fix 10: once per round trip, as a TCP sender reduces once per window (RFC 3168 §6.1.2):
    // the marks of the next round trip are on packets sent before the cut. Later ones only
    // while the queue still grows, or after two round trips: a small DCTCP cut drains a queue
    // slowly, and its marks went on for three decisions, each cutting again.
    const Duration since = now - decreased_before;
    const bool ecn_may_cut =
        decreased_before == kEpoch || (since >= rtt_.srtt() && (gradient > 0 || since >= 2 * rtt_.srtt()));
    if (ce_ > 0 && standing && ecn_may_cut) {
      const double ecn_factor = 1.0 - ecn_alpha_ / 2;
      rate_ = factor < 1.0 ? rate_ / factor * std::min(factor, ecn_factor) : rate_ * ecn_factor;
      last_decrease_ = now;
      phase_ = "ecn_decrease";
      ecn_cut = true;
    }
  }
  rate_ = std::min(std::max(rate_, s_.min_rate_bps), line_);
  // Fix 14: after an ECN cut, BIC's search (Xu, Harfoush and Rhee, INFOCOM 2004): increase
  // by half the distance to the rate the marks were set at (what the interval delivered, at
  // least the rate after the cut), then probe past it from 1/16 of the step, doubling. A CE
  // mark says the path's capacity was crossed at that rate; at 2 % of a 10 Gbit/s NIC per
  // round trip the plain step overshot a 1 Gbit/s L4S link by 40 % before the marks came
  // back. Delay cuts set no mark (under path jitter they are often noise); a mark stays until
  // the next ECN cut, so after a delay cut below it the rate still closes half the distance.
  if (s_.acc2 && ecn_cut) {
    const double delivered = static_cast<double>(acked_) * 8e9 / elapsed;
    rate_max_ = std::max(delivered, rate_);
    probes_ = 0;
  }
  finish_interval(now);
}

double Acc::increase_step() {
  if (!s_.acc2 || rate_max_ <= 0) {
    return step_;
  }
  const double least = step_ / 16;
  if (rate_ < rate_max_) {
    return std::clamp((rate_max_ - rate_) / 2, least, step_);
  }
  return std::min(step_, least * static_cast<double>(1 << std::min(probes_++, 4)));
}

void Acc::finish_interval(Instant now) {
  last_update_ = now;
  qd_at_update_ = signal_;
  acked_ = 0;
  ce_ = 0;
  int_depth_ = 0;
}

std::uint64_t Acc::cwnd_bytes() const {
  if (startup_) {
    return startup_cwnd_;
  }
  const double srtt = std::chrono::duration<double>(rtt_.srtt()).count();
  const double w = 2.0 * rate_ / 8.0 * srtt;
  return std::max(static_cast<std::uint64_t>(w), std::uint64_t{2} * mss_);
}

CcState Acc::state() const {
  return CcState{cwnd_bytes(), pacing_rate().bps, phase_};
}

std::unique_ptr<CongestionControl> make_acc(const CcContext& ctx, const CcParams& params) {
  return std::make_unique<Acc>(ctx, AccSettings::from(params));
}

}  // namespace gw::cc
