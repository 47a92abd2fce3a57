// Number and text formatting shared by the report writers (Markdown, JUnit, HTML, tables).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace gw::reports {

// `v` with `digits` after the point ("12.35"); "-" for null or a non-number.
std::string fixed(const nlohmann::json& v, int digits);
// Up to 4 significant digits with a readable unit: "1.5 ms", "820 us", "12 ns".
std::string duration_text(double ns);
// A percentile (`key`: "p50", ...) of report.json's percentiles object `p` as duration_text;
// "n/a" when it holds no samples (a live run's connections report a smoothed RTT in the time
// series, not per-sample percentiles).
std::string percentile_text(const nlohmann::json& p, const char* key);
// "25 MiB", "4 KiB", "100 B".
std::string bytes_text(double bytes);
// A steered path's relays as a report shows them: "direct" or "via pop ...".
std::string via_text(const nlohmann::json& via);
// "9.41 Gbit/s".
std::string rate_text(double bps);
// A threshold value or measurement: true/false, a number with 4 significant digits, or "-".
std::string value_text(const nlohmann::json& v);

// Where an op's time went (report.json `attribution`): its parts of at least 1 %, largest
// first, as "loss recovery 52%, NCCL window 20%, propagation 15%, ..."; "-" for null.
std::string attribution_text(const nlohmann::json& attribution);
// A part's name for people: "NCCL window" for nccl_window, "CC cuts" for cc_cuts, ...
std::string time_part_label(std::string_view part);

// XML/HTML text and attribute escaping (&, <, >, ", ').
std::string xml_escape(std::string_view s);
// A Markdown table cell: "|" escaped and newlines folded.
std::string md_cell(std::string_view s);

// A policy comparison (report.json steering.comparison, docs/steering.md "Comparing
// policies"): the column titles, and one row's cells in the same order.
const std::vector<std::string>& comparison_headers();
std::vector<std::string> comparison_cells(const nlohmann::json& row);

}  // namespace gw::reports
