// The HTML report: one self-contained file (inline CSS, inline SVG drawn in C++, no script,
// no external URL), readable offline and attachable to a CI run.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gw::reports {

// Verdict and checks, per-op CCT table and CDF, per-iteration compute vs exposed communication,
// packets, throughput per flow and queue depth over time (the result's "series"), flows and
// paths. `result` is the result.json the report was built from (the CDFs and time series need
// its samples).
std::string write_html(const nlohmann::json& report, const nlohmann::json& result);

// Several runs (a sweep, or base and new): key metrics side by side, each run against the
// first (reports/compare.h), and bar charts of the per-op p99 CCT and the GPU idle fraction.
// `labels` name the runs (default: scenario and seed).
// The start of a page in the reports' style, up to and including <body>.
std::string html_page_head(const std::string& title);

std::string write_html_compare(const std::vector<nlohmann::json>& reports,
                               const std::vector<std::string>& labels = {}, double tolerance_pct = 10);

}  // namespace gw::reports
