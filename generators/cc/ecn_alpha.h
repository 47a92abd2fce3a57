// The DCTCP congestion estimate (RFC 8257 §3.3): the fraction F of bytes acknowledged with
// CE marks over one window of data, folded into alpha = (1 - g) alpha + g F when the window
// ends. Shared by DCTCP and Prague (which keeps DCTCP's estimator, draft-briscoe-iccrg-
// prague-congestion-control §2.3.1).
#pragma once

#include <cstdint>

namespace gw::cc {

class EcnAlpha {
 public:
  EcnAlpha(double g, double initial_alpha) : g_(g), alpha_(initial_alpha) {}

  void on_ack(std::uint64_t acked_bytes, std::uint64_t ce_bytes) {
    acked_ += acked_bytes;
    marked_ += ce_bytes;
  }
  // The observation window ended: update alpha from this window's F (RFC 8257 §3.3 step 7-9).
  void end_window() {
    if (acked_ > 0) {
      const double f = static_cast<double>(marked_) / static_cast<double>(acked_);
      alpha_ = (1.0 - g_) * alpha_ + g_ * f;
    }
    acked_ = 0;
    marked_ = 0;
  }
  double alpha() const { return alpha_; }

 private:
  double g_;
  double alpha_;
  std::uint64_t acked_ = 0;
  std::uint64_t marked_ = 0;
};

}  // namespace gw::cc
