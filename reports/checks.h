// The scenario's thresholds as checks. One table entry per threshold name: how to measure it
// from the report, and whether the limit is a maximum or a minimum. A threshold that cannot be
// measured from this result (a slowdown without a baseline run, a CCT limit without
// collectives) fails with the reason: a missing measurement never passes silently.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "reports/result_input.h"

namespace gw::reports {

// What a check measured: a value and which part of the run it came from ("all_reduce/ring/
// 26214400/8"), or no value and why.
struct Measurement {
  std::optional<double> value;
  std::string where;
  std::string missing_reason;
};

// `report` holds the computed sections (collectives, gpu, packets, flows, accounting).
// Returns the "checks" array; throws InputError for an unknown name or a limit of the wrong
// type. accounting_balanced is checked even when not listed (set it false to waive it).
nlohmann::json evaluate_checks(const ResultInput& in, const nlohmann::json& report);

const std::set<std::string, std::less<>>& check_names();

// The range a threshold's limit must lie in; nullopt for an unknown name or a boolean check.
struct LimitRange {
  double lo;
  double hi;
};
std::optional<LimitRange> limit_range(std::string_view name);

}  // namespace gw::reports
