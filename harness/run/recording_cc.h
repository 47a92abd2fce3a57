// A congestion controller seen from outside: forwards every event to the real controller and
// records what reports need (RTT samples, CNPs, the window and pacing rate integrated over
// time). It changes nothing: the transport sees exactly the inner controller's answers.
#pragma once

#include <memory>

#include "core/histogram.h"
#include "generators/cc/congestion_control.h"

namespace gw {

class RecordingCc final : public cc::CongestionControl {
 public:
  RecordingCc(std::unique_ptr<cc::CongestionControl> inner, Instant start)
      : inner_(std::move(inner)), last_(start), start_(start) {
    sample_state();
  }

  void on_packet_sent(const cc::SentEvent& e) override {
    integrate(e.now);
    inner_->on_packet_sent(e);
    sample_state();
  }
  void on_ack(const cc::AckEvent& e) override {
    integrate(e.now);
    if (e.rtt.count() > 0) {
      rtt_.record(e.rtt.count());
    }
    inner_->on_ack(e);
    sample_state();
  }
  void on_loss(const cc::LossEvent& e) override {
    integrate(e.now);
    inner_->on_loss(e);
    sample_state();
  }
  void on_loss_undone(Instant now) override {
    integrate(now);
    inner_->on_loss_undone(now);
    sample_state();
  }
  void on_cnp(Instant now) override {
    integrate(now);
    ++cnps_;
    inner_->on_cnp(now);
    sample_state();
  }
  Instant next_timer() const override { return inner_->next_timer(); }
  void on_timer(Instant now) override {
    integrate(now);
    inner_->on_timer(now);
    sample_state();
  }
  std::uint64_t cwnd_bytes() const override { return inner_->cwnd_bytes(); }
  BitRate pacing_rate() const override { return inner_->pacing_rate(); }
  EcnMode ecn_mode() const override { return inner_->ecn_mode(); }
  cc::CcState state() const override { return inner_->state(); }
  std::string_view name() const override { return inner_->name(); }

  const LogHistogram& rtt() const { return rtt_; }
  std::uint64_t cnps() const { return cnps_; }
  // Time-weighted means from the start up to `now`.
  std::uint64_t mean_cwnd(Instant now) const { return mean(cwnd_area_, cwnd_, now); }
  std::uint64_t mean_rate(Instant now) const { return mean(rate_area_, rate_, now); }

 private:
  void integrate(Instant now) {
    const auto dt = static_cast<long double>((now - last_).count());
    cwnd_area_ += static_cast<long double>(cwnd_) * dt;
    rate_area_ += static_cast<long double>(rate_) * dt;
    last_ = now;
  }
  void sample_state() {
    cwnd_ = inner_->cwnd_bytes();
    rate_ = inner_->pacing_rate().bps;
  }
  std::uint64_t mean(long double area, std::uint64_t current, Instant now) const {
    const auto total = static_cast<long double>((now - start_).count());
    if (total <= 0) {
      return current;
    }
    const long double a =
        area + static_cast<long double>(current) * static_cast<long double>((now - last_).count());
    return static_cast<std::uint64_t>(a / total);
  }

  std::unique_ptr<cc::CongestionControl> inner_;
  LogHistogram rtt_;
  std::uint64_t cnps_ = 0;
  Instant last_;
  Instant start_;
  std::uint64_t cwnd_ = 0;
  std::uint64_t rate_ = 0;
  long double cwnd_area_ = 0;
  long double rate_area_ = 0;
};

}  // namespace gw
