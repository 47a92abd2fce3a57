// report.json (`report/v1`, docs/reports.md, schema reports/report.schema.json): what a run
// means, computed from its result.json alone. Collective completion times and bus bandwidth,
// packet-level delay and loss, GPU idle time and what it costs, per-flow goodput, and the
// scenario's thresholds turned into pass/fail checks with a verdict.
#pragma once

#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace gw::reports {

inline constexpr const char* kReportVersion = "report/v1";

// Builds report.json from a parsed result.json. `file` names the result in error messages:
// malformed input throws InputError(file, JSON path, reason); so does a threshold name that
// no check knows (with a "did you mean").
nlohmann::json build_report(const nlohmann::json& result, const std::string& file = "result.json");

// One row of a policy comparison (docs/steering.md "Comparing policies") from a run's
// result.json: its policy and mode, whether it completed, the iterations after warm-up (mean
// length), the collectives' CCT p50 / p99 over them, the bytes its steered paths delivered and
// their rate over the run, moves, resends (spurious ones apart) and timeouts.
nlohmann::json steering_row(const nlohmann::json& result);

// The threshold names build_report understands (scenario "thresholds"), for the scenario
// loader's own validation.
const std::set<std::string, std::less<>>& known_threshold_names();

}  // namespace gw::reports
