// Reading one controller's CcParams into its typed settings (docs/style.md habit 2): the
// controller asks for every parameter it knows, with a default and the valid range, and
// finish() then rejects any name it was not asked for, listing the known ones, so a typo in a
// scenario is an error rather than a silently ignored setting.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/rate.h"
#include "core/time.h"
#include "generators/cc/congestion_control.h"

namespace gw::cc {

// Which ends of [lo, hi] are allowed.
enum class Bounds : std::uint8_t { kClosed, kOpenLow, kOpenHigh, kOpen };

class ParamReader {
 public:
  ParamReader(std::string_view cc_name, const CcParams& params) : cc_name_(cc_name), params_(params) {}

  // The value of `name`, or `fallback` when the scenario does not set it; CcConfigError when
  // the value lies outside the range.
  double number(std::string_view name, double fallback, double lo, double hi, Bounds b = Bounds::kClosed);
  // An integer in [lo, hi].
  std::uint64_t integer(std::string_view name, std::uint64_t fallback, std::uint64_t lo, std::uint64_t hi);
  // 0 or 1.
  bool flag(std::string_view name, bool fallback);
  // Convenience conversions for parameters whose name carries the unit.
  Duration micros(std::string_view name, double fallback_us, double lo_us, double hi_us);
  Duration millis(std::string_view name, double fallback_ms, double lo_ms, double hi_ms);
  BitRate mbps(std::string_view name, double fallback_mbps, double lo_mbps, double hi_mbps);

  // Throws CcConfigError for the first parameter that no call above asked for.
  void finish() const;

  [[noreturn]] void fail(std::string_view name, const std::string& why) const;

 private:
  const double* find(std::string_view name);

  std::string cc_name_;
  const CcParams& params_;
  std::vector<std::string> known_;
};

}  // namespace gw::cc
