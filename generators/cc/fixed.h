// "fixed": a constant congestion window and a constant pacing rate, whatever the network
// says. The baseline every adaptive controller is compared against, and the controller the
// transport's own tests use so that what they observe is the transport alone.
// Parameters: cwnd_bytes (default 2^30, i.e. effectively unlimited), rate_bps (default 0 =
// unpaced).
#pragma once

#include <cstdint>
#include <memory>

#include "generators/cc/congestion_control.h"

namespace gw::cc {

class FixedCc final : public CongestionControl {
 public:
  FixedCc(std::uint64_t cwnd_bytes, BitRate rate) : cwnd_(cwnd_bytes), rate_(rate) {}

  void on_packet_sent(const SentEvent& /*e*/) override {}
  void on_ack(const AckEvent& /*e*/) override {}
  void on_loss(const LossEvent& /*e*/) override {}

  std::uint64_t cwnd_bytes() const override { return cwnd_; }
  BitRate pacing_rate() const override { return rate_; }
  CcState state() const override { return CcState{cwnd_, rate_.bps, "fixed"}; }
  std::string_view name() const override { return "fixed"; }

 private:
  std::uint64_t cwnd_;
  BitRate rate_;
};

// Throws CcConfigError for an unknown parameter or a value out of range.
std::unique_ptr<CongestionControl> make_fixed(const CcContext& ctx, const CcParams& params);

}  // namespace gw::cc
