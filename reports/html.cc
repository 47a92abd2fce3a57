#include "reports/html.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "reports/compare.h"
#include "reports/result_input.h"
#include "reports/svg.h"
#include "reports/text.h"

namespace gw::reports {
namespace {

using nlohmann::json;

constexpr const char* kStyle = R"(<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}td{white-space:nowrap}
figure.chart{margin:8px 0}.wide{overflow-x:auto}
.pass{color:#fff;background:#2a7d2a;padding:2px 10px;border-radius:4px}
.fail{color:#fff;background:#b22222;padding:2px 10px;border-radius:4px}
tr.bad td{background:#fde8e8}
svg.chart text{font-size:11px;fill:#333}svg.chart .ct{font-size:13px;font-weight:600}
svg.chart .yt{text-anchor:end}svg.chart .xt,svg.chart .xl,svg.chart .yl{text-anchor:middle}
svg.chart .grid{stroke:#eee}svg.chart .plot{fill:none;stroke:#999}svg.chart .lg{font-size:11px}
</style>)";

std::string esc(const json& v) {
  return xml_escape(v.is_string() ? v.get<std::string>() : v.dump());
}

// Tick labels without exponents (value_text's 4 significant digits print 20000 as 2e+04).
std::string tick_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Each plot sits in a <figure> with a stable id, so tests and stylesheets can find it.
std::string figure(const std::string& id, const std::string& svg) {
  return "<figure class=\"chart\" id=\"" + id + "\">" + svg + "</figure>\n";
}

std::string head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + xml_escape(title) +
         "</title>" + kStyle + "</head><body>\n";
}

std::string verdict_badge(const json& report) {
  const bool pass = report["verdict"] == "pass";
  return std::string("<span class=\"") + (pass ? "pass\">PASS" : "fail\">FAIL") + "</span>";
}

void checks_table(std::ostringstream& os, const json& report) {
  os << "<h2>Checks</h2><table><tr><th class=\"l\">check</th><th>result</th><th>measured</th><th>limit</th>"
        "<th class=\"l\">reason</th></tr>\n";
  for (const json& c : report["checks"]) {
    const bool ok = c["passed"].get<bool>();
    os << "<tr" << (ok ? "" : " class=\"bad\"") << "><td class=\"l\">" << esc(c["name"]) << "</td><td>"
       << (ok ? "pass" : "FAIL") << "</td><td>" << value_text(c["measured"]) << "</td><td>"
       << value_text(c["limit"]) << "</td><td class=\"l\">" << esc(c["reason"]) << "</td></tr>\n";
  }
  os << "</table>\n";
}

std::string key_of(const json& c) {
  return c["op"].get<std::string>() + "/" + c.value("algorithm", std::string()) + "/" +
         std::to_string(c["bytes"].get<std::uint64_t>()) + "/" +
         std::to_string(c["ranks"].get<std::int64_t>());
}

// The CDF of each op kind's CCT, from the result's collectives (report.json has percentiles only).
std::string cct_cdf(const json& result) {
  std::map<std::string, std::vector<double>> by_key;
  for (const json& c : result.value("collectives", json::array())) {
    by_key[key_of(c)].push_back(c["end_ns"].get<double>() - c["start_ns"].get<double>());
  }
  std::vector<Line> lines;
  for (auto& [key, v] : by_key) {
    std::sort(v.begin(), v.end());
    Line l{key, {}, {}};
    for (std::size_t i = 0; i < v.size(); ++i) {
      l.x.push_back(v[i] / 1e6);
      l.y.push_back(static_cast<double>(i + 1) / static_cast<double>(v.size()));
    }
    lines.push_back(std::move(l));
  }
  const auto ms = [](double v) { return v == 0 ? std::string("0") : duration_text(v * 1e6); };
  return figure("plot-cct-cdf",
                svg_line_chart({"CCT CDF per op", "collective completion time", "fraction", ms, tick_text},
                               lines, true));
}

void collectives(std::ostringstream& os, const json& report, const json& result) {
  const json& ops = report["collectives"]["ops"];
  if (ops.empty()) {
    return;
  }
  os << "<h2>Collectives</h2><div class=\"wide\"><table><tr><th class=\"l\">op</th><th "
        "class=\"l\">algorithm</th><th>size</th>"
        "<th>ranks</th><th>count</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th>"
        "<th>algbw GB/s</th><th>busbw GB/s</th><th>predicted</th><th>measured / predicted</th></tr>\n";
  for (const json& op : ops) {
    const json& c = op["cct_ns"];
    os << "<tr><td class=\"l\">" << esc(op["op"]) << "</td><td class=\"l\">" << esc(op["algorithm"])
       << "</td><td>" << bytes_text(op["bytes"].get<double>()) << "</td><td>" << op["ranks"] << "</td><td>"
       << op["count"] << "</td>";
    for (const char* q : {"p50", "p90", "p99", "p999", "max"}) {
      os << "<td>" << duration_text(c[q].get<double>()) << "</td>";
    }
    os << "<td>" << fixed(op["algbw_GBps"], 2) << "</td><td>" << fixed(op["busbw_GBps"], 2) << "</td><td>"
       << (op["predicted_ns"].is_null() ? "-" : duration_text(op["predicted_ns"].get<double>()))
       << (op.value("bound", json()) == "nccl_window" ? " (NCCL window)" : "") << "</td><td>"
       << fixed(op["measured_over_predicted"], 2) << "</td></tr>\n";
  }
  os << "</table></div><p>algbw = size / median CCT (GB = 1e9 B); busbw = algbw &times; the op's bus "
        "factor. predicted = the &alpha;-&beta; bound: the slower of the links and NCCL's window (one "
        "buffer per round trip per channel), marked (NCCL window) when the window binds.</p>\n"
     << cct_cdf(result);
}

// Per op, where the time went: a stacked bar of the mean parts, the unimpaired network's bar
// beside it, and the shares in a table (docs/reports.md "Where the time went").
void attribution(std::ostringstream& os, const json& report) {
  std::vector<Bar> bars;
  std::ostringstream rows;
  for (const json& op : report["collectives"]["ops"]) {
    for (const char* which : {"attribution", "baseline_attribution"}) {
      const json& a = op.value(which, json());
      if (a.is_null()) {
        continue;
      }
      const bool impaired = std::string_view(which) == "attribution";
      const std::string label = op["op"].get<std::string>() + " " + bytes_text(op["bytes"].get<double>());
      Bar bar{impaired ? label : "unimpaired", {}};
      rows << "<tr><td class=\"l\">" << esc(label) << "</td><td class=\"l\">"
           << (impaired ? "impaired" : "unimpaired") << "</td><td>"
           << duration_text(a["mean_cct_ns"].get<double>()) << "</td>";
      for (const std::string_view part : kTimePartNames) {
        bar.parts.push_back(a["parts_ns"][std::string(part)].get<double>() / 1e6);
        rows << "<td>" << fixed(a["shares"][std::string(part)].get<double>() * 100, 1) << " %</td>";
      }
      rows << "<td>" << a["retransmits"] << "</td><td>" << a["timeouts"] << "</td></tr>\n";
      bars.push_back(std::move(bar));
    }
  }
  if (bars.empty()) {
    return;
  }
  std::vector<std::string> names;
  os << "<h2>Where the time went</h2><div class=\"wide\"><table><tr><th class=\"l\">op</th><th "
        "class=\"l\">network</th><th>mean CCT</th>";
  for (const std::string_view part : kTimePartNames) {
    names.push_back(time_part_label(part));
    os << "<th>" << esc(names.back()) << "</th>";
  }
  os << "<th>retransmits</th><th>RTOs</th></tr>\n"
     << rows.str() << "</table></div>"
     << figure("plot-attribution",
               svg_stacked_bars({"Where each op's time went (mean CCT)", "op", "time", tick_text,
                                 [](double v) { return v == 0 ? std::string("0") : duration_text(v * 1e6); }},
                                names, bars))
     << "<p>propagation and serialization: what a perfect transport still spends (the &alpha;-&beta; "
        "model's latency and bandwidth terms); NCCL window: what NCCL's buffers add over the links; "
        "queueing, cwnd window, CC cuts, loss recovery: the time beyond the model, split by what the WAN "
        "senders measured; other: beyond the model and unexplained by them. Retransmits and RTOs: the WAN "
        "connections', over these ops.</p>\n";
}

void gpu(std::ostringstream& os, const json& report) {
  const json& g = report["gpu"];
  if (g.is_null()) {
    return;
  }
  const json& t = g["totals"];
  const json& base = g["baseline"];
  os << "<h2>GPU idle</h2><ul><li>iterations: " << t["iterations"] << ", mean "
     << duration_text(t["mean_iteration_ns"].get<double>())
     << (base.is_null()
             ? ""
             : " (unimpaired network: " + duration_text(base["mean_iteration_ns"].get<double>()) + ")")
     << "</li><li>GPU idle fraction (exposed / iteration): " << fixed(t["gpu_idle_fraction"], 3)
     << (base.is_null() ? "" : " (unimpaired network: " + fixed(base["gpu_idle_fraction"], 3) + ")")
     << "</li><li>slowdown vs unimpaired: "
     << (g["slowdown_vs_ideal"].is_null() ? "n/a (" + esc(g["slowdown_reason"]) + ")"
                                          : fixed(g["slowdown_vs_ideal"], 3))
     << "</li>";
  if (const json& c = g["cost"]; !c.is_null()) {
    os << "<li>priced for " << value_text(c["gpus"]) << " GPUs"
       << (c.value("basis", "simulated") == "scaled"
               ? ", scaled linearly from " + value_text(c["simulated_ranks"]) + " simulated ranks"
               : " (the simulated ranks)")
       << " at $" << value_text(c["usd_per_gpu_hour"]) << "/GPU-hour</li>";
    os << "<li>idle cost per iteration: $" << fixed(c["per_iteration"]["usd"], 2) << " ("
       << fixed(c["per_iteration"]["energy_kwh"], 3) << " kWh)</li><li>over " << value_text(c["run_hours"])
       << " h: " << fixed(c["run"]["idle_gpu_hours"], 0) << " idle GPU-hours, $" << fixed(c["run"]["usd"], 0)
       << ", " << fixed(c["run"]["energy_kwh"], 0) << " kWh</li>";
  } else {
    os << "<li>cost: n/a (" << esc(g["cost_reason"]) << ")</li>";
  }
  os << "</ul>\n";
  constexpr std::size_t kMaxBars = 200;
  std::vector<Bar> bars;
  for (const json& it : g["iterations"]) {
    if (bars.size() == kMaxBars) {
      break;
    }
    const double compute = it["compute_ns"].get<double>() / 1e6;
    const double exposed = it["exposed_comm_ns"].get<double>() / 1e6;
    const double other = std::max(0.0, it["length_ns"].get<double>() / 1e6 - compute - exposed);
    bars.push_back({std::to_string(it["index"].get<std::int64_t>()), {compute, exposed, other}});
  }
  os << figure(
      "plot-iterations",
      svg_stacked_bars({"Per iteration: compute vs exposed communication", "iteration", "time", tick_text,
                        [](double v) { return v == 0 ? std::string("0") : duration_text(v * 1e6); }},
                       {"compute", "exposed comm", "other"}, bars));
}

void packets(std::ostringstream& os, const json& report) {
  const json& p = report["packets"];
  os << "<h2>Packets</h2><table><tr><th class=\"l\">one-way delay</th><th>p50</th><th>p90</th><th>p99</th>"
        "<th>p99.9</th><th>max</th></tr><tr><td class=\"l\">all packets</td>";
  for (const char* q : {"p50", "p90", "p99", "p999", "max"}) {
    os << "<td>"
       << (p["one_way_delay_ns"].is_null() ? "-" : duration_text(p["one_way_delay_ns"][q].get<double>()))
       << "</td>";
  }
  os << "</tr></table><p>sent " << p["packets_sent"] << ", retransmitted " << p["retransmits"] << " ("
     << fixed(p["retransmit_fraction"], 5) << "), timeouts " << p["timeouts"] << ", CE marks "
     << p["marked_ce"] << ", dropped " << p["dropped"];
  for (const auto& [cause, n] : p["dropped_by_cause"].items()) {
    os << "; " << xml_escape(cause) << " " << n;
  }
  os << "</p>\n";
}

std::vector<double> as_vector(const json& a, double scale) {
  std::vector<double> v;
  for (const json& x : a) {
    v.push_back(x.get<double>() * scale);
  }
  return v;
}

void series(std::ostringstream& os, const json& result) {
  const json s = result.value("series", json::object());
  if (!s.contains("t_ns") || s["t_ns"].empty()) {
    return;
  }
  const std::vector<double> t = as_vector(s["t_ns"], 1e-9);
  const auto secs = [](double v) { return value_text(v) + " s"; };
  std::vector<Line> rates;
  for (const json& f : s.value("flows", json::array())) {
    rates.push_back({"flow " + f["flow"].dump(), t, as_vector(f["rate_bps"], 1e-9)});
  }
  // Queue depth in KiB, or in MiB when a queue reaches 1 MiB (tick labels stay short).
  double max_queue = 0;
  for (const json& h : s.value("hops", json::array())) {
    for (const json& q : h["queue_bytes"]) {
      max_queue = std::max(max_queue, q.get<double>());
    }
  }
  const bool mib = max_queue >= 1024.0 * 1024.0;
  std::vector<Line> queues;
  for (const json& h : s.value("hops", json::array())) {
    queues.push_back(
        {h["hop"].get<std::string>(), t, as_vector(h["queue_bytes"], mib ? 1.0 / 1048576 : 1.0 / 1024)});
  }
  os << "<h2>Over time</h2>\n";
  if (!rates.empty()) {
    os << figure("plot-throughput",
                 svg_line_chart({"Throughput per flow", "time", "Gbit/s", secs, tick_text}, rates));
  }
  // Live runs (docs/guide/live.md "Time series"): each flow is a sending queue pair or TCP
  // connection with its sampled srtt and cwnd.
  std::vector<Line> rtts;
  std::vector<Line> cwnds;
  for (const json& f : s.value("flows", json::array())) {
    if (f.contains("srtt_ns")) {
      rtts.push_back({"flow " + f["flow"].dump(), t, as_vector(f["srtt_ns"], 1e-6)});
      cwnds.push_back({"flow " + f["flow"].dump(), t, as_vector(f["cwnd_bytes"], 1.0 / 1024)});
    }
  }
  if (!rtts.empty()) {
    os << figure("plot-srtt", svg_line_chart({"Smoothed RTT per flow", "time", "ms", secs, tick_text}, rtts));
    os << figure("plot-cwnd",
                 svg_line_chart({"Congestion window per flow", "time", "KiB", secs, tick_text}, cwnds));
  }
  if (!queues.empty()) {
    os << figure(
        "plot-queue",
        svg_line_chart({"Queue depth per hop", "time", mib ? "MiB" : "KiB", secs, tick_text}, queues));
  }
}

void flows_and_paths(std::ostringstream& os, const json& report) {
  const json& flows = report["flows"]["flows"];
  if (!flows.empty()) {
    os << "<h2>Flows</h2><p>Jain fairness (bulk flows): " << fixed(report["flows"]["jain_fairness"], 3)
       << "</p><table><tr><th>id</th><th class=\"l\">from</th><th class=\"l\">to</th><th class=\"l\">cc</th>"
          "<th class=\"l\">class</th><th>goodput</th><th>RTT p50</th><th>RTT p99</th><th>sent</th>"
          "<th>retransmits</th><th>timeouts</th><th>completion</th></tr>\n";
    for (const json& f : flows) {
      const json cls = f.value("class", json(nullptr));
      os << "<tr><td>" << f["id"] << "</td><td class=\"l\">" << esc(f["from"]) << "</td><td class=\"l\">"
         << esc(f["to"]) << "</td><td class=\"l\">" << esc(f["cc"]) << "</td><td class=\"l\">"
         << (cls.is_null() ? std::string("workload") : esc(cls)) << "</td><td>"
         << rate_text(f["goodput_bps"].get<double>()) << "</td><td>" << percentile_text(f["rtt_ns"], "p50")
         << "</td><td>" << percentile_text(f["rtt_ns"], "p99") << "</td><td>" << f["packets_sent"]
         << "</td><td>" << f["retransmits"] << "</td><td>" << f["timeouts"] << "</td><td>"
         << (f["completion_ns"].is_null() ? "-" : duration_text(f["completion_ns"].get<double>()))
         << "</td></tr>\n";
    }
    os << "</table>\n";
  }
  if (const json background = report["flows"].value("background", json::array()); !background.empty()) {
    os << "<h2>Background traffic</h2><table><tr><th class=\"l\">class</th><th>flows</th><th>goodput</th>"
          "<th>delivered</th><th>retransmits</th></tr>\n";
    for (const json& b : background) {
      os << "<tr><td class=\"l\">" << esc(b["class"]) << "</td><td>" << b["flows"] << "</td><td>"
         << rate_text(b["goodput_bps"].get<double>()) << "</td><td>"
         << bytes_text(b["bytes_delivered"].get<double>()) << "</td><td>" << b["retransmits"]
         << "</td></tr>\n";
    }
    os << "</table>\n";
  }
  os << "<h2>Paths</h2><table><tr><th class=\"l\">hop</th><th>packets "
        "in</th><th>delivered</th><th>dropped</th>"
        "<th>CE marked</th><th>queue p50</th><th>queue p99</th><th>queue max</th><th>queue delay "
        "p99</th></tr>\n";
  for (const json& p : report["paths"]) {
    os << "<tr><td class=\"l\">" << esc(p["name"]) << "</td><td>" << p["packets_in"] << "</td><td>"
       << p["delivered"] << "</td><td>" << p["dropped"] << "</td><td>" << p["marked_ce"] << "</td>";
    for (const char* q : {"p50", "p99", "max"}) {
      os << "<td>" << bytes_text(p["queue_bytes"][q].get<double>()) << "</td>";
    }
    os << "<td>" << duration_text(p["queue_delay_ns"]["p99"].get<double>()) << "</td></tr>\n";
  }
  os << "</table>\n";
}

// Multipath steering (docs/steering.md): each path's share and load, and the controller's
// weights and each path's rate over time.
void steering(std::ostringstream& os, const json& report, const json& result) {
  const json& s = report.value("steering", json(nullptr));
  if (s.is_null()) {
    return;
  }
  os << "<h2>Multipath steering</h2><p>policy <b>" << esc(s["policy"]) << "</b>, every "
     << duration_text(s["interval_ns"].get<double>()) << "; " << s["moves"] << " queue-pair moves in "
     << s["decisions"] << " decisions"
     << (s["last_move_ns"].is_null() ? std::string()
                                     : ", the last at " + duration_text(s["last_move_ns"].get<double>()))
     << "</p><table><tr><th class=\"l\">from</th><th class=\"l\">to</th><th class=\"l\">path</th>"
        "<th>capacity</th><th>bytes</th><th>share</th><th>mean utilization</th><th>final weight</th>"
        "<th>queue pairs</th></tr>\n";
  for (const json& p : s["paths"]) {
    const std::string via = via_text(p["via"]);
    os << "<tr><td class=\"l\">" << esc(p["from"]) << "</td><td class=\"l\">" << esc(p["to"])
       << "</td><td class=\"l\">" << p["index"] << ": " << xml_escape(via) << "</td><td>"
       << (p["capacity_bps"].get<double>() > 0 ? rate_text(p["capacity_bps"].get<double>()) : "unlimited")
       << "</td><td>" << bytes_text(p["bytes"].get<double>()) << "</td><td>" << fixed(p["byte_share"], 3)
       << "</td><td>" << fixed(p["mean_utilization"], 3) << "</td><td>" << fixed(p["final_weight"], 3)
       << "</td><td>" << value_text(p["final_queue_pairs"]) << "</td></tr>\n";
  }
  os << "</table>\n";
  if (s.contains("comparison")) {
    os << "<h3>Controller vs alternatives</h3><p>The same scenario under each policy (the first row is "
          "this run; the others ran in the simulator).</p><table id=\"policy-comparison\"><tr>";
    for (const std::string& h : comparison_headers()) {
      os << "<th" << (h == "policy" || h == "run" ? " class=\"l\"" : "") << ">" << xml_escape(h) << "</th>";
    }
    os << "</tr>\n";
    for (const json& row : s["comparison"]) {
      const std::vector<std::string> cells = comparison_cells(row);
      os << "<tr>";
      for (std::size_t i = 0; i < cells.size(); ++i) {
        os << "<td" << (i < 2 ? " class=\"l\"" : "") << ">" << xml_escape(cells[i]) << "</td>";
      }
      os << "</tr>\n";
    }
    os << "</table>\n";
  }
  if (!s["events"].empty()) {
    os << "<p>Capacity events (when the controller first saw them, and how long until it acted: up, until "
          "the "
          "path carried traffic; down, until no queue pair was left on it; capacity, until the last move of "
          "the re-split):</p><table><tr><th>at</th><th class=\"l\">pair</th><th>path</th><th "
          "class=\"l\">event</th><th>reaction</th></tr>\n";
    for (const json& e : s["events"]) {
      os << "<tr><td>" << duration_text(e["t_ns"].get<double>()) << "</td><td class=\"l\">" << esc(e["from"])
         << "->" << esc(e["to"]) << "</td><td>" << e["index"] << "</td><td class=\"l\">" << esc(e["kind"])
         << "</td><td>"
         << (e["reaction_ns"].is_null() ? "not within the run"
                                        : duration_text(e["reaction_ns"].get<double>()))
         << "</td></tr>\n";
    }
    os << "</table>\n";
  }
  const json& rs = result.value("steering", json(nullptr));
  if (rs.is_null() || rs["t_ns"].empty()) {
    return;
  }
  const std::vector<double> t = as_vector(rs["t_ns"], 1e-9);
  const auto secs = [](double v) { return value_text(v) + " s"; };
  std::vector<Line> weights;
  std::vector<Line> rates;
  for (const json& p : rs["paths"]) {
    const std::string name =
        p["from"].get<std::string>() + "->" + p["to"].get<std::string>() + " path " + p["index"].dump();
    weights.push_back({name, t, as_vector(p["weight"], 1)});
    rates.push_back({name, t, as_vector(p["rate_bps"], 1e-9)});
  }
  os << figure(
      "plot-path-weight",
      svg_line_chart({"Controller weight per path", "time", "share", secs, tick_text}, weights, true));
  os << figure("plot-path-rate", svg_line_chart({"Rate per path", "time", "Gbit/s", secs, tick_text}, rates));
}

// Live runs with --baselines: the user-space stack next to kernel TCP (docs/guide/live.md).
void tcp_baselines(std::ostringstream& os, const json& report) {
  if (!report.contains("tcp_baselines")) {
    return;
  }
  os << "<h2>Kernel TCP baselines</h2><p>The same scenario through the same emulator, its messages on "
        "kernel TCP sockets (congestion control as TCP_INFO reported it).</p><table><tr><th class=\"l\">stack"
        "</th><th class=\"l\">congestion control</th><th>ops</th><th>CCT p50</th><th>CCT p99</th><th>goodput"
        "</th><th>retransmits</th></tr>\n";
  for (const json& r : report["tcp_baselines"]) {
    std::string cc;
    for (const json& c : r.value("congestion_control", json::array())) {
      cc += (cc.empty() ? "" : ", ") + c.get<std::string>();
    }
    os << "<tr><td class=\"l\">" << xml_escape(r.value("stack", std::string())) << "</td><td class=\"l\">"
       << xml_escape(cc) << "</td><td>" << r.value("ops_completed", 0) << "/" << r.value("ops", 0)
       << "</td><td>" << duration_text(r.value("cct_p50_ns", 0.0)) << "</td><td>"
       << duration_text(r.value("cct_p99_ns", 0.0)) << "</td><td>" << rate_text(r.value("goodput_bps", 0.0))
       << "</td><td>" << r.value("retransmits", 0) << "</td></tr>\n";
  }
  os << "</table>\n";
}

std::string run_label(const json& report) {
  return report["run"]["scenario"].get<std::string>() + " seed " + report["run"]["seed"].dump();
}

}  // namespace

std::string write_html(const json& report, const json& result) {
  std::ostringstream os;
  const std::string name = report["run"]["scenario"].get<std::string>();
  os << head("gradwall: " + name) << "<h1>gradwall: " << xml_escape(name) << " " << verdict_badge(report)
     << "</h1><p>" << xml_escape(report["run"]["mode"].get<std::string>()) << " run, seed "
     << report["run"]["seed"] << ", " << duration_text(report["run"]["duration_ns"].get<double>())
     << " simulated; result " << esc(report["run"]["result_file"]) << "</p>\n";
  checks_table(os, report);
  if (const json warnings = report.value("warnings", json::array()); !warnings.empty()) {
    os << "<h2>Warnings</h2><ul>";
    for (const json& w : warnings) {
      os << "<li><b>" << esc(w["kind"]) << "</b>: " << esc(w["message"]) << "</li>";
    }
    os << "</ul>\n";
  }
  collectives(os, report, result);
  attribution(os, report);
  tcp_baselines(os, report);
  gpu(os, report);
  packets(os, report);
  series(os, result);
  steering(os, report, result);
  flows_and_paths(os, report);
  os << "</body></html>\n";
  return os.str();
}

std::string write_html_compare(const std::vector<json>& reports, const std::vector<std::string>& labels,
                               double tolerance_pct) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    names.push_back(i < labels.size() ? labels[i] : run_label(reports[i]));
  }
  std::ostringstream os;
  os << head("gradwall: comparison") << "<h1>gradwall: comparison of " << reports.size() << " runs</h1>\n";
  os << "<h2>Runs</h2><table><tr><th class=\"l\">run</th><th>verdict</th><th>failed checks</th></tr>\n";
  for (std::size_t i = 0; i < reports.size(); ++i) {
    std::size_t failed = 0;
    for (const json& c : reports[i]["checks"]) {
      failed += c["passed"].get<bool>() ? 0 : 1;
    }
    os << "<tr><td class=\"l\">" << xml_escape(names[i]) << "</td><td>" << verdict_badge(reports[i])
       << "</td><td>" << failed << "</td></tr>\n";
  }
  os << "</table>\n";
  // Bars: each op kind's p99 CCT and the GPU idle fraction, per run.
  std::map<std::string, std::vector<Bar>> charts;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    for (const Metric& m : comparable_metrics(reports[i])) {
      if (m.name.rfind("cct_p99_ns", 0) == 0 || m.name == "gpu_idle_fraction") {
        charts[m.name].push_back({names[i], {m.name == "gpu_idle_fraction" ? m.value : m.value / 1e6}});
      }
    }
  }
  std::size_t charts_shown = 0;
  for (const auto& [metric, bars] : charts) {
    const bool idle = metric == "gpu_idle_fraction";
    os << figure(idle ? "plot-compare-idle" : "plot-compare-cct-p99-" + std::to_string(charts_shown),
                 svg_stacked_bars({metric, "run", idle ? "fraction" : "ms", tick_text, tick_text},
                                  {idle ? "idle fraction" : "p99 CCT"}, bars));
    charts_shown += idle ? 0 : 1;
  }
  for (std::size_t i = 1; i < reports.size(); ++i) {
    const Comparison c = compare(reports[0], reports[i], tolerance_pct);
    os << "<h2>" << xml_escape(names[i]) << " vs " << xml_escape(names[0]) << ": "
       << (c.any_regression ? "regression" : "no regression") << " at " << value_text(tolerance_pct)
       << " %</h2><table><tr><th class=\"l\">metric</th><th>base</th><th>new</th><th>change "
          "%</th><th></th><th class=\"l\">what moved</th></tr>\n";
    for (const CompareRow& r : c.rows) {
      // Times (cct_p50_ns[...]) as durations, not 3.295e+08.
      const bool ns = r.metric.find("_ns[") != std::string::npos;
      const auto cell = [ns](const std::optional<double>& v) {
        return !v ? std::string("-") : ns ? duration_text(*v) : value_text(json(*v));
      };
      os << "<tr" << (r.regression ? " class=\"bad\"" : "") << "><td class=\"l\">" << xml_escape(r.metric)
         << "</td><td>" << cell(r.base) << "</td><td>" << cell(r.next) << "</td><td>"
         << fixed(r.change_pct ? json(*r.change_pct) : json(), 1) << "</td><td>"
         << (r.regression ? "regression" : "") << "</td><td class=\"l\">" << xml_escape(r.says)
         << "</td></tr>\n";
    }
    os << "</table>\n";
  }
  os << "</body></html>\n";
  return os.str();
}

std::string html_page_head(const std::string& title) {
  return head(title);
}

}  // namespace gw::reports
