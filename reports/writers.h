// Text forms of a report (report.json from build_report). Each returns the whole file's text;
// writing it (atomically) is the caller's business. docs/reports.md shows each form.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace gw::reports {

// report.json: indented JSON with a trailing newline.
std::string write_report_json(const nlohmann::json& report);

// JUnit XML (tests/junit.xsd): one <testsuite> per report (scenario), one <testcase> per
// check; a failed check is a <failure> whose message is the check's reason.
std::string write_junit(const nlohmann::json& report);
std::string write_junit(const std::vector<nlohmann::json>& reports);

// Compact Markdown for a CI step summary: verdict, checks, per-op CCT, GPU idle and cost (or,
// for flow workloads, the flows).
std::string write_summary_md(const nlohmann::json& report);

// nccl-tests style table, one row per collective op kind:
//   size count op algorithm time(us) algbw(GB/s) busbw(GB/s) predicted(us) ratio bound
// time is the median CCT; count is how many collectives of the kind ran; bound is which bound
// the prediction is (network, nccl_window, or - when unknown).
std::string nccl_table(const nlohmann::json& report);

// The report forms by name, for the CLI's --format: "json", "junit", "md", "nccl", "html".
// `result` is needed by "html" only (its plots come from the result's samples and series).
struct ReportFormat {
  std::string_view name;
  std::string_view file_name;  // what `gradwall run` names it in --out
  std::string (*write)(const nlohmann::json& report, const nlohmann::json& result);
};
const std::vector<ReportFormat>& report_formats();
// nullptr when unknown.
const ReportFormat* find_report_format(std::string_view name);

}  // namespace gw::reports
