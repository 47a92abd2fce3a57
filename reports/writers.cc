#include "reports/writers.h"

#include <cstdio>
#include <sstream>
#include <string_view>

#include "reports/html.h"
#include "reports/result_input.h"
#include "reports/text.h"

namespace gw::reports {
namespace {

using nlohmann::json;

std::string str(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

std::string scenario_name(const json& report) {
  const std::string s = str(report["run"], "scenario");
  return s.empty() ? std::string("scenario") : s;
}

std::size_t failures(const json& report) {
  std::size_t n = 0;
  for (const json& c : report["checks"]) {
    n += c["passed"].get<bool>() ? 0 : 1;
  }
  return n;
}

void junit_suite(std::ostringstream& os, const json& report) {
  const std::string name = scenario_name(report);
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.6f", report["run"]["duration_ns"].get<double>() / 1e9);
  os << "  <testsuite name=\"" << xml_escape(name) << "\" tests=\"" << report["checks"].size()
     << "\" failures=\"" << failures(report) << "\" errors=\"0\" skipped=\"0\" time=\"" << seconds << "\">\n";
  for (const json& c : report["checks"]) {
    const std::string reason = c["reason"].get<std::string>();
    os << "    <testcase name=\"" << xml_escape(c["name"].get<std::string>()) << "\" classname=\"gradwall."
       << xml_escape(name) << "\" time=\"0\"";
    if (c["passed"].get<bool>()) {
      os << "/>\n";
      continue;
    }
    os << ">\n      <failure message=\"" << xml_escape(reason) << "\" type=\"threshold\">measured "
       << xml_escape(value_text(c["measured"])) << ", limit " << xml_escape(value_text(c["limit"])) << ": "
       << xml_escape(reason) << "</failure>\n    </testcase>\n";
  }
  os << "    <system-out>verdict: " << report["verdict"].get<std::string>()
     << "; result: " << xml_escape(str(report["run"], "result_file")) << "</system-out>\n  </testsuite>\n";
}

void md_checks(std::ostringstream& os, const json& report) {
  os << "| check | | measured | limit | reason |\n|---|---|---|---|---|\n";
  for (const json& c : report["checks"]) {
    os << "| " << md_cell(c["name"].get<std::string>()) << " | "
       << (c["passed"].get<bool>() ? "pass" : "**FAIL**") << " | " << value_text(c["measured"]) << " | "
       << value_text(c["limit"]) << " | " << md_cell(c["reason"].get<std::string>()) << " |\n";
  }
}

// Live runs with --baselines: the user-space stack next to kernel TCP (docs/guide/live.md).
void md_tcp_baselines(std::ostringstream& os, const json& rows) {
  os << "\n### Kernel TCP baselines (same scenario, same emulator)\n\n| stack | congestion control | ops | "
        "CCT p50 | CCT p99 | goodput | retransmits |\n|---|---|---|---|---|---|---|\n";
  for (const json& r : rows) {
    std::string cc;
    for (const json& c : r.value("congestion_control", json::array())) {
      cc += (cc.empty() ? "" : ", ") + c.get<std::string>();
    }
    os << "| " << md_cell(r.value("stack", std::string())) << " | " << md_cell(cc) << " | "
       << r.value("ops_completed", 0) << "/" << r.value("ops", 0) << " | "
       << duration_text(r.value("cct_p50_ns", 0.0)) << " | " << duration_text(r.value("cct_p99_ns", 0.0))
       << " | " << rate_text(r.value("goodput_bps", 0.0)) << " | " << r.value("retransmits", 0) << " |\n";
  }
}

void md_collectives(std::ostringstream& os, const json& ops) {
  os << "\n### Collectives (CCT)\n\n| op | algorithm | size | ranks | count | p50 | p99 | max | unimpaired "
        "p50 | "
        "busbw GB/s | measured/predicted |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const json& op : ops) {
    const json& cct = op["cct_ns"];
    os << "| " << md_cell(op["op"].get<std::string>()) << " | " << md_cell(op["algorithm"].get<std::string>())
       << " | " << bytes_text(op["bytes"].get<double>()) << " | " << op["ranks"] << " | " << op["count"]
       << " | " << duration_text(cct["p50"].get<double>()) << " | " << duration_text(cct["p99"].get<double>())
       << " | " << duration_text(cct["max"].get<double>()) << " | "
       << (op["baseline_cct_p50_ns"].is_null() ? std::string("-")
                                               : duration_text(op["baseline_cct_p50_ns"].get<double>()))
       << " | " << fixed(op["busbw_GBps"], 2) << " | " << fixed(op["measured_over_predicted"], 2) << " |\n";
  }
}

// Per op, where the time went (the mean of each part), the unimpaired network's below it.
void md_attribution(std::ostringstream& os, const json& ops) {
  bool any = false;
  for (const json& op : ops) {
    any = any || !op.value("attribution", json()).is_null();
  }
  if (!any) {
    return;
  }
  os << "\n### Where the time went\n\n| op | size | network | mean CCT |";
  for (const std::string_view part : kTimePartNames) {
    os << " " << time_part_label(part) << " |";
  }
  os << "\n|---|---|---|---|";
  for (std::size_t i = 0; i < kTimePartNames.size(); ++i) {
    os << "---|";
  }
  os << "\n";
  for (const json& op : ops) {
    for (const char* which : {"attribution", "baseline_attribution"}) {
      const json& a = op.value(which, json());
      if (a.is_null()) {
        continue;
      }
      os << "| " << md_cell(op["op"].get<std::string>()) << " | " << bytes_text(op["bytes"].get<double>())
         << " | " << (std::string_view(which) == "attribution" ? "impaired" : "unimpaired") << " | "
         << duration_text(a["mean_cct_ns"].get<double>()) << " |";
      for (const std::string_view part : kTimePartNames) {
        os << " " << fixed(a["shares"][std::string(part)].get<double>() * 100, 1) << " % |";
      }
      os << "\n";
    }
  }
  os << "\nEach part is a share of the mean CCT; the parts add up to it (docs/reports.md, \"Where the "
        "time went\").\n";
}

void md_gpu(std::ostringstream& os, const json& gpu) {
  const json& t = gpu["totals"];
  os << "\n### GPU idle\n\n- iterations: " << t["iterations"] << ", mean "
     << duration_text(t["mean_iteration_ns"].get<double>()) << ", exposed communication "
     << duration_text(t["exposed_comm_ns"].get<double>() / t["iterations"].get<double>())
     << " per iteration\n"
     << "- GPU idle fraction: " << fixed(t["gpu_idle_fraction"], 3);
  if (const json& base = gpu["baseline"]; !base.is_null()) {
    os << " (unimpaired network: " << fixed(base["gpu_idle_fraction"], 3) << ", mean iteration "
       << duration_text(base["mean_iteration_ns"].get<double>()) << ")";
  }
  os << "\n- slowdown vs unimpaired: "
     << (gpu["slowdown_vs_ideal"].is_null() ? "n/a (" + gpu["slowdown_reason"].get<std::string>() + ")"
                                            : fixed(gpu["slowdown_vs_ideal"], 3) + "x")
     << "\n";
  const json& cost = gpu["cost"];
  if (cost.is_null()) {
    os << "- cost: n/a (" << gpu["cost_reason"].get<std::string>() << ")\n";
    return;
  }
  const bool scaled = cost.value("basis", "simulated") == "scaled";
  os << "- idle cost (" << value_text(cost["gpus"])
     << (scaled ? " GPUs, scaled linearly from " + value_text(cost["simulated_ranks"]) + " simulated ranks,"
                : " simulated GPUs")
     << " at $" << value_text(cost["usd_per_gpu_hour"]) << "/GPU-hour): $"
     << fixed(cost["per_iteration"]["usd"], 2) << " per iteration, $" << fixed(cost["run"]["usd"], 0)
     << " and " << fixed(cost["run"]["energy_kwh"], 0) << " kWh over " << value_text(cost["run_hours"])
     << " h\n";
  if (!cost["slowdown"].is_null()) {
    os << "- of which the impairment adds: $" << fixed(cost["slowdown"]["run"]["usd"], 0)
       << " over the run\n";
  }
}

void md_flows(std::ostringstream& os, const json& flows) {
  constexpr std::size_t kMaxRows = 20;
  const json& list = flows["flows"];
  os << "\n### Flows\n\n| flow | from | to | cc | goodput | RTT p50 | RTT p99 | retransmits |\n"
        "|---|---|---|---|---|---|---|---|\n";
  for (std::size_t i = 0; i < list.size() && i < kMaxRows; ++i) {
    const json& f = list[i];
    os << "| " << f["id"] << " | " << md_cell(f["from"].get<std::string>()) << " | "
       << md_cell(f["to"].get<std::string>()) << " | " << md_cell(f["cc"].get<std::string>()) << " | "
       << rate_text(f["goodput_bps"].get<double>()) << " | " << percentile_text(f["rtt_ns"], "p50") << " | "
       << percentile_text(f["rtt_ns"], "p99") << " | " << f["retransmits"] << " |\n";
  }
  if (list.size() > kMaxRows) {
    os << "\n(" << list.size() - kMaxRows << " more flows in report.json)\n";
  }
  os << "\nJain fairness: " << fixed(flows["jain_fairness"], 3) << "\n";
}

// Background traffic by class: what the workload shared the network with.
void md_background(std::ostringstream& os, const json& background) {
  os << "\n### Background traffic\n\n| class | flows | goodput | delivered | retransmits "
        "|\n|---|---|---|---|---|\n";
  for (const json& b : background) {
    os << "| " << md_cell(b["class"].get<std::string>()) << " | " << b["flows"] << " | "
       << rate_text(b["goodput_bps"].get<double>()) << " | " << bytes_text(b["bytes_delivered"].get<double>())
       << " | " << b["retransmits"] << " |\n";
  }
}

// Multipath steering: each path's share of the bytes and the controller's last weight.
void md_steering(std::ostringstream& os, const json& s) {
  os << "\n### Multipath steering (" << md_cell(s["policy"].get<std::string>()) << ", " << s["moves"]
     << " moves)\n\n| from | to | path | bytes | share | mean utilization | final weight | queue pairs "
        "|\n|---|---|---|---|---|---|---|---|\n";
  for (const json& p : s["paths"]) {
    const std::string via = via_text(p["via"]);
    os << "| " << md_cell(p["from"].get<std::string>()) << " | " << md_cell(p["to"].get<std::string>())
       << " | " << md_cell(via) << " | " << bytes_text(p["bytes"].get<double>()) << " | "
       << fixed(p["byte_share"], 3) << " | " << fixed(p["mean_utilization"], 3) << " | "
       << fixed(p["final_weight"], 3) << " | " << value_text(p["final_queue_pairs"]) << " |\n";
  }
  if (!s.contains("comparison")) {
    return;
  }
  os << "\n### Policies side by side (the same scenario; the alternatives in the simulator)\n\n|";
  for (const std::string& h : comparison_headers()) {
    os << " " << h << " |";
  }
  os << "\n|";
  for (std::size_t i = 0; i < comparison_headers().size(); ++i) {
    os << "---|";
  }
  os << "\n";
  for (const json& row : s["comparison"]) {
    os << "|";
    for (const std::string& cell : comparison_cells(row)) {
      os << " " << md_cell(cell) << " |";
    }
    os << "\n";
  }
}

std::string html_format(const json& report, const json& result) {
  return write_html(report, result);
}

}  // namespace

std::string write_report_json(const json& report) {
  return report.dump(1) + "\n";
}

std::string write_junit(const json& report) {
  return write_junit(std::vector<json>{report});
}

std::string write_junit(const std::vector<json>& reports) {
  std::size_t tests = 0;
  std::size_t failed = 0;
  for (const json& r : reports) {
    tests += r["checks"].size();
    failed += failures(r);
  }
  std::ostringstream os;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"gradwall\" tests=\"" << tests
     << "\" failures=\"" << failed << "\" errors=\"0\" skipped=\"0\">\n";
  for (const json& r : reports) {
    junit_suite(os, r);
  }
  os << "</testsuites>\n";
  return os.str();
}

std::string write_summary_md(const json& report) {
  std::ostringstream os;
  const bool pass = report["verdict"] == "pass";
  os << "## gradwall: " << md_cell(scenario_name(report)) << " - " << (pass ? "PASS" : "**FAIL**") << "\n\n";
  md_checks(os, report);
  if (const json warnings = report.value("warnings", json::array()); !warnings.empty()) {
    os << "\n### Warnings\n\n";
    for (const json& w : warnings) {
      os << "- **" << md_cell(w["kind"].get<std::string>())
         << "**: " << md_cell(w["message"].get<std::string>()) << "\n";
    }
  }
  if (!report["collectives"]["ops"].empty()) {
    md_collectives(os, report["collectives"]["ops"]);
    md_attribution(os, report["collectives"]["ops"]);
  }
  if (report.contains("tcp_baselines")) {
    md_tcp_baselines(os, report["tcp_baselines"]);
  }
  if (!report["gpu"].is_null()) {
    md_gpu(os, report["gpu"]);
  }
  if (report["collectives"]["ops"].empty() && !report["flows"]["flows"].empty()) {
    md_flows(os, report["flows"]);
  }
  if (const json background = report["flows"].value("background", json::array()); !background.empty()) {
    md_background(os, background);
  }
  if (report.contains("steering") && !report["steering"].is_null()) {
    md_steering(os, report["steering"]);
  }
  return os.str();
}

std::string nccl_table(const json& report) {
  std::ostringstream os;
  char line[256];
  std::snprintf(line, sizeof line, "#%13s %8s %16s %10s %12s %12s %12s %14s %8s %12s\n", "size(B)", "count",
                "op", "algorithm", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "predicted(us)", "ratio",
                "bound");
  os << line;
  for (const json& op : report["collectives"]["ops"]) {
    const json& pred = op["predicted_ns"];
    const json bound = op.value("bound", json());
    std::snprintf(line, sizeof line, " %13llu %8llu %16s %10s %12.2f %12s %12s %14s %8s %12s\n",
                  op["bytes"].get<unsigned long long>(), op["count"].get<unsigned long long>(),
                  op["op"].get<std::string>().c_str(), op["algorithm"].get<std::string>().c_str(),
                  op["cct_ns"]["p50"].get<double>() / 1e3, fixed(op["algbw_GBps"], 2).c_str(),
                  fixed(op["busbw_GBps"], 2).c_str(),
                  pred.is_null() ? "-" : fixed(pred.get<double>() / 1e3, 2).c_str(),
                  fixed(op["measured_over_predicted"], 2).c_str(),
                  bound.is_string() ? bound.get<std::string>().c_str() : "-");
    os << line;
  }
  return os.str();
}

const std::vector<ReportFormat>& report_formats() {
  static const std::vector<ReportFormat> formats = {
      {"json", "report.json", [](const json& r, const json&) { return write_report_json(r); }},
      {"junit", "junit.xml", [](const json& r, const json&) { return write_junit(r); }},
      {"md", "summary.md", [](const json& r, const json&) { return write_summary_md(r); }},
      {"nccl", "nccl.txt", [](const json& r, const json&) { return nccl_table(r); }},
      {"html", "report.html", html_format},
  };
  return formats;
}

const ReportFormat* find_report_format(std::string_view name) {
  for (const ReportFormat& f : report_formats()) {
    if (f.name == name) {
      return &f;
    }
  }
  return nullptr;
}

}  // namespace gw::reports
