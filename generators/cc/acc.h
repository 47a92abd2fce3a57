// "acc": the seed design's adaptive pacer (docs/references.md §3, last bullet), kept as designed,
// weaknesses included, so that gradwall can show them (acc2.h fixes them). Rate-based.
// Once per smoothed RTT (checked on each ACK):
//   queue delay qd = one_way_delay - min one_way_delay  (or rtt - min_rtt without OWD)
//   gradient      = (qd - qd at the previous update) / time since the previous update
//   gradient > gradient_threshold                       -> rate *= 1 - cut_fraction (0.95)
//   else qd < queue_limit and INT queue depth < limit   -> rate += step (1.5 Gbit/s)
//   L4S-style ECN response: rate *= 1 - f, f = CE-marked fraction of the interval's bytes
// It sends ECT(1). cwnd = 2 x rate x srtt, a safety window behind the pacer.
// Known weaknesses (intentional here): the fixed 5 % cut under-reacts to incast; with no
// absolute-delay term a standing queue (gradient 0, qd >= limit) is a resting point; the fixed
// step is too coarse on slow links and too timid on fast ones.
//
// Parameters (CcParams):
//   gradient_threshold      0.01   d(qd)/dt, s per s (gradwall default: a queue growing by
//                                  1 % of elapsed time, i.e. arrivals 1 % above service)
//   cut_fraction            0.05   seed design ("rate *= 0.95")
//   step_gbps                1.5   seed design ("+1.5 Gbit/s")
//   queue_limit_us            50   gradwall default
//   int_queue_limit_bytes 100000   gradwall default; INT hops' max queue depth
//   ecn_response               1   seed design ("5 % marked -> 5 % slower")
//   min_rate_mbps            100   floor on the rate
//   initial_rate_gbps          0   0 = line rate
#pragma once

#include <array>
#include <memory>

#include "generators/cc/congestion_control.h"
#include "generators/cc/rtt_estimator.h"

namespace gw::cc {

class ParamReader;

struct AccSettings {
  double gradient_threshold = 0.01;
  double cut_fraction = 0.05;
  double step_bps = 1.5e9;
  Duration queue_limit{50'000};
  std::uint64_t int_queue_limit_bytes = 100'000;
  bool ecn_response = true;
  double min_rate_bps = 100e6;
  double initial_rate_bps = 0;
  // acc2 only (acc2.h); off in acc.
  bool acc2 = false;
  Duration target_delay{0};  // Swift-like absolute-delay term
  double beta = 0;
  double max_mdf = 0;
  double gradient_gain = 0;        // k: cut = k x gradient
  double step_fraction = 0;        // step = step_fraction x line rate
  double jitter_allowance = 0;     // target and queue limit raised by this x the delay noise
  double target_rtt_fraction = 0;  // and the target at least this x the base RTT

  static AccSettings from(const CcParams& params);   // acc's parameters
  static AccSettings from2(const CcParams& params);  // acc2's (acc2.cc)
  // The parameters acc and acc2 share.
  void read_common(ParamReader& r);
};

class Acc final : public CongestionControl {
 public:
  Acc(const CcContext& ctx, const AccSettings& s);

  void on_packet_sent(const SentEvent&) override {}
  void on_ack(const AckEvent& e) override;
  void on_loss(const LossEvent&) override {}  // the pacer reacts to delay and ECN, not loss

  std::uint64_t cwnd_bytes() const override;
  BitRate pacing_rate() const override { return BitRate{static_cast<std::uint64_t>(rate_)}; }
  EcnMode ecn_mode() const override { return EcnMode::kEct1; }
  CcState state() const override;
  std::string_view name() const override { return s_.acc2 ? "acc2" : "acc"; }

  double rate_bps() const { return rate_; }
  Duration queue_delay() const { return qd_; }

 private:
  void update(Instant now);  // the once-per-srtt decision
  double decrease_factor(double gradient) const;
  double increase_step();             // acc2: BIC's search after an ECN cut (fix 14)
  Duration jitter_allowance() const;  // 0 in acc
  Duration base_rtt() const;          // from the least one-way delay (x2) or RTT; 0: none yet
  Duration interval() const;          // between decisions
  void finish_interval(Instant now);

  AccSettings s_;
  std::uint32_t mss_;
  double line_;
  double step_;
  double rate_;
  RttEstimator rtt_;
  Duration min_owd_{0};
  Duration min_rtt_{0};
  Duration qd_{0};
  Duration qd_at_update_{0};
  // The delay signal the decision uses: acc, the last sample's qd_; acc2, the least qd_ of
  // the interval (with the delay noise jitter_ to allow for).
  Duration signal_{0};
  Duration interval_min_qd_{0};
  Duration last_interval_min_{0};
  Duration before_last_min_{0};  // acc2: for the noise's second differences (fix 12)
  std::uint64_t interval_samples_ = 0;
  Duration jitter_{0};
  int minima_seen_ = 0;
  std::array<Duration, 64> floors_{};  // acc2: the last intervals' least queueing delays
  std::size_t floor_next_ = 0;
  std::size_t floor_count_ = 0;
  static constexpr double kEcnGain = 1.0 / 16;       // acc2: RFC 8257's g
  static constexpr Duration kStandingQueue{20'000};  // acc2: least delay that is a queue (fix 9)
  static constexpr double kMostMarked = 0.5;         // acc2: or this fraction marked (fix 9)
  static constexpr int kMaxDrainIntervals = 8;       // acc2: the longest drain after startup
  static constexpr double kAfterDrain = 0.9;         // acc2: x startup's last rate, after it
  double rate_max_ = 0;                          // acc2: the rate at the last ECN cut (BIC's W_max; fix 14)
  int probes_ = 0;                               // acc2: increases past rate_max_ so far
  int draining_ = 0;                             // acc2: decisions of drain left
  double startup_bw_ = 0;                        // acc2: the highest delivery rate sampled in startup
  static constexpr double kStartupGain = 2.885;  // acc2: BBR's 2/ln 2, startup's pacing gain
  double startup_delivered_ = 0;                 // acc2: what startup's last interval delivered
  double ecn_alpha_ = 1.0;
  Instant last_decrease_ = kEpoch;
  bool startup_ = false;  // acc2 from line rate: a doubling window until the first queue
  std::uint64_t startup_cwnd_ = 0;
  Instant last_update_{};
  bool started_ = false;
  std::uint64_t acked_ = 0;
  std::uint64_t ce_ = 0;
  std::uint64_t int_depth_ = 0;  // max INT queue depth seen in the interval
  const char* phase_ = "start";
};

std::unique_ptr<CongestionControl> make_acc(const CcContext& ctx, const CcParams& params);

}  // namespace gw::cc
