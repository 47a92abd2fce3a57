#include "generators/cc/acc2.h"

#include "generators/cc/params.h"

namespace gw::cc {

AccSettings AccSettings::from2(const CcParams& params) {
  ParamReader r("acc2", params);
  AccSettings s;
  s.acc2 = true;
  s.read_common(r);
  s.target_delay = r.micros("target_delay_us", 50.0, 0.0, 1e9);
  s.beta = r.number("beta", 0.8, 0.0, 1.0, Bounds::kOpenLow);
  s.max_mdf = r.number("max_mdf", 0.5, 0.0, 1.0, Bounds::kOpen);
  s.gradient_gain = r.number("gradient_gain", 5.0, 0.0, 1e9, Bounds::kOpenLow);
  s.step_fraction = r.number("step_fraction", 0.02, 0.0, 1.0);
  s.jitter_allowance = r.number("jitter_allowance", 2.0, 0.0, 1e3);
  s.target_rtt_fraction = r.number("target_rtt_fraction", 0.05, 0.0, 10.0);
  r.finish();
  return s;
}

std::unique_ptr<CongestionControl> make_acc2(const CcContext& ctx, const CcParams& params) {
  return std::make_unique<Acc>(ctx, AccSettings::from2(params));
}

}  // namespace gw::cc
