#include "generators/cc/params.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace gw::cc {
namespace {

std::string show(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

const double* ParamReader::find(std::string_view name) {
  known_.emplace_back(name);
  const auto it = params_.find(name);
  return it == params_.end() ? nullptr : &it->second;
}

void ParamReader::fail(std::string_view name, const std::string& why) const {
  throw CcConfigError{"congestion control '" + cc_name_ + "': parameter '" + std::string(name) + "' " + why};
}

double ParamReader::number(std::string_view name, double fallback, double lo, double hi, Bounds b) {
  const double* v = find(name);
  if (v == nullptr) {
    return fallback;
  }
  const bool open_lo = b == Bounds::kOpenLow || b == Bounds::kOpen;
  const bool open_hi = b == Bounds::kOpenHigh || b == Bounds::kOpen;
  const bool ok = std::isfinite(*v) && (open_lo ? *v > lo : *v >= lo) && (open_hi ? *v < hi : *v <= hi);
  if (!ok) {
    fail(name, "must be in " + std::string(open_lo ? "(" : "[") + show(lo) + ", " + show(hi) +
                   (open_hi ? ")" : "]") + ", got " + show(*v));
  }
  return *v;
}

std::uint64_t ParamReader::integer(std::string_view name, std::uint64_t fallback, std::uint64_t lo,
                                   std::uint64_t hi) {
  const double* v = find(name);
  if (v == nullptr) {
    return fallback;
  }
  if (!std::isfinite(*v) || *v != std::floor(*v) || *v < static_cast<double>(lo) ||
      *v > static_cast<double>(hi)) {
    fail(name,
         "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + show(*v));
  }
  return static_cast<std::uint64_t>(*v);
}

bool ParamReader::flag(std::string_view name, bool fallback) {
  const double* v = find(name);
  if (v == nullptr) {
    return fallback;
  }
  if (*v != 0.0 && *v != 1.0) {
    fail(name, "must be 0 or 1, got " + show(*v));
  }
  return *v == 1.0;
}

Duration ParamReader::micros(std::string_view name, double fallback_us, double lo_us, double hi_us) {
  return Duration{std::llround(number(name, fallback_us, lo_us, hi_us) * 1e3)};
}

Duration ParamReader::millis(std::string_view name, double fallback_ms, double lo_ms, double hi_ms) {
  return Duration{std::llround(number(name, fallback_ms, lo_ms, hi_ms) * 1e6)};
}

BitRate ParamReader::mbps(std::string_view name, double fallback_mbps, double lo_mbps, double hi_mbps) {
  return BitRate{
      static_cast<std::uint64_t>(std::llround(number(name, fallback_mbps, lo_mbps, hi_mbps) * 1e6))};
}

void ParamReader::finish() const {
  std::vector<std::string> known = known_;
  std::sort(known.begin(), known.end());
  for (const auto& [name, value] : params_) {
    if (std::binary_search(known.begin(), known.end(), name)) {
      continue;
    }
    std::string list;
    for (const auto& k : known) {
      list += (list.empty() ? "" : ", ") + k;
    }
    throw CcConfigError{"unknown parameter '" + name + "' for congestion control '" + cc_name_ +
                        "'; known: " + list};
  }
}

}  // namespace gw::cc
