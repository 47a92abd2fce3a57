// Two reports of the same scenario side by side (`gradwall compare BASE NEW`): each metric's
// change in percent and whether it is a regression beyond a tolerance. docs/reports.md
// "Comparing runs" lists the metrics and which way is better.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gw::reports {

// A number of a report that can be compared across runs. Names carry what they are about:
// "cct_p99_ns[all_reduce/ring/26214400/8]", "goodput_bps[flow 3 a/0->b/0]".
struct Metric {
  std::string name;
  double value = 0;
  bool higher_is_better = false;
};

// Per op kind: cct_p50_ns, cct_p99_ns (lower is better), busbw_GBps (higher); the run's
// gpu_idle_fraction and slowdown_vs_ideal (lower); per flow goodput_bps (higher). A metric the
// report cannot give (null: no baseline, no iterations) is left out. A field of the wrong
// type, a negative value (an idle fraction outside [0, 1]) or a report with none of the three
// sections is an InputError naming `file` and the JSON path.
std::vector<Metric> comparable_metrics(const nlohmann::json& report, const std::string& file = "report");

struct CompareRow {
  std::string metric;
  std::optional<double> base;  // absent: the metric exists in one report only
  std::optional<double> next;
  std::optional<double> change_pct;  // (new - base) / base * 100; absent when base is 0 or missing
  bool higher_is_better = false;
  // Worse than base by more than the tolerance. From a base of 0, any worsening counts; a
  // metric of BASE missing in NEW counts too (`missing`).
  bool regression = false;
  bool missing = false;
  // What the regression is judged on when it is not the metric itself: GPU time is judged by
  // the useful part (1 - idle), as a ratio, so idle 0.939 -> 0.982 (+4.6 %) is useful time
  // 0.061 -> 0.018 (-70 %, 3.4x less). Empty: the metric; then judged_change_pct = change_pct.
  std::string judged_on;
  std::optional<double> judged_change_pct;
  // The row in a user's units: "CCT p99 of all_reduce/ring/4194304/4: 40 ms -> 48 ms (+20.0 %,
  // slower)", "GPU idle 0.939 -> 0.982: useful GPU time 6.1 % -> 1.8 % of the run, 3.4x less".
  std::string says;
};

struct Comparison {
  double tolerance_pct = 0;
  std::vector<CompareRow> rows;  // in base order, then metrics new to `next`
  bool any_regression = false;
};

Comparison compare(const nlohmann::json& base_report, const nlohmann::json& new_report, double tolerance_pct,
                   const std::string& base_file = "BASE", const std::string& new_file = "NEW");

nlohmann::json to_json(const Comparison& c);
// Markdown table: metric, base, new, change %, regression, and what moved in a user's units.
std::string compare_table_md(const Comparison& c);

}  // namespace gw::reports
