#include "generators/cc/fixed.h"

#include <cmath>
#include <string>

namespace gw::cc {
namespace {

std::uint64_t whole_number(const std::string& name, double v, double lo) {
  if (!std::isfinite(v) || v < lo || v > 1e19 || v != std::floor(v)) {
    throw CcConfigError{"fixed: " + name + " must be a whole number >= " +
                        std::to_string(static_cast<long long>(lo)) + ", got " + std::to_string(v)};
  }
  return static_cast<std::uint64_t>(v);
}

}  // namespace

std::unique_ptr<CongestionControl> make_fixed(const CcContext& /*ctx*/, const CcParams& params) {
  std::uint64_t cwnd = std::uint64_t{1} << 30;
  std::uint64_t rate = 0;
  for (const auto& [name, value] : params) {
    if (name == "cwnd_bytes") {
      cwnd = whole_number(name, value, 1);
    } else if (name == "rate_bps") {
      rate = whole_number(name, value, 0);
    } else {
      throw CcConfigError{"fixed: unknown parameter '" + name + "' (known: cwnd_bytes, rate_bps)"};
    }
  }
  return std::make_unique<FixedCc>(cwnd, BitRate{rate});
}

}  // namespace gw::cc
