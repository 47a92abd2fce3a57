// What `gradwall run` prints on stdout for a run: its flows and hops, the kernel TCP
// baselines' table, where the time went, GPU idle and the checks (docs/guide/run.md).
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "harness/run/sim_result.h"

namespace gw {

// The result's flows, hops and packet accounting.
void print_summary(const SimResult& r, std::ostream& os);
// GPU idle and the mean iteration beside the unimpaired network's (the slowdown's denominator).
void print_gpu(const nlohmann::json& report, std::ostream& os);
// Per op, where the time went, the unimpaired network's beside it (docs/reports.md).
void print_attribution(const nlohmann::json& report, std::ostream& os);
// The report's warnings, verdict and checks.
void print_checks(const nlohmann::json& report, std::ostream& os);
// The kernel TCP baselines' comparison table (result.json's tcp_baselines).
void print_baselines(const nlohmann::json& rows, std::ostream& os);

}  // namespace gw
