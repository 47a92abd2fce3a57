#include "harness/cli/run_summary.h"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <string>

#include "reports/text.h"

namespace gw {
namespace {

std::string mbps(std::uint64_t bps) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(1) << static_cast<double>(bps) / 1e6;
  return os.str();
}

std::string ms(std::int64_t ns) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(3) << static_cast<double>(ns) / 1e6;
  return os.str();
}

}  // namespace

void print_summary(const SimResult& r, std::ostream& os) {
  os << "scenario " << r.scenario << " (" << r.scenario_file << "), mode " << r.mode << ", seed " << r.seed
     << ", " << ms(ns_of(r.duration)) << " ms simulated, " << r.events << " events\n\n";
  os << std::left << std::setw(6) << "flow" << std::setw(10) << "from" << std::setw(10) << "to"
     << std::setw(8) << "cc" << std::setw(12) << "class" << std::right << std::setw(14) << "goodput Mb/s"
     << std::setw(12) << "retransmits" << std::setw(10) << "CE marks" << std::setw(13) << "rtt p50 ms"
     << std::setw(13) << "rtt p99 ms" << std::setw(14) << "mean cwnd B"
     << "\n";
  for (const FlowResult& f : r.flows) {
    os << std::left << std::setw(6) << f.id << std::setw(10) << f.from << std::setw(10) << f.to
       << std::setw(8) << f.cc << std::setw(12) << (f.traffic_class.empty() ? "-" : f.traffic_class)
       << std::right << std::setw(14) << mbps(f.goodput_bps) << std::setw(12) << f.retransmits
       << std::setw(10) << f.marks_ce << std::setw(13) << ms(f.rtt_ns.p50) << std::setw(13)
       << ms(f.rtt_ns.p99) << std::setw(14) << f.mean_cwnd_bytes << "\n";
  }
  // Fairness is over bulk flows; a collective's queue pairs carry what its schedule gives them.
  const bool bulk = std::any_of(r.flows.begin(), r.flows.end(), [](const FlowResult& f) {
    return f.size_bytes == 0 && f.traffic_class != "collective";
  });
  if (bulk) {
    os << "\nJain fairness " << std::setprecision(4) << r.jain_fairness << "\n";
  }
  os << "\n";
  os << std::left << std::setw(18) << "hop" << std::right << std::setw(12) << "packets" << std::setw(10)
     << "dropped" << std::setw(10) << "CE marks" << std::setw(16) << "queue p50 ms" << std::setw(16)
     << "queue p99 ms"
     << "\n";
  for (const HopResult& h : r.hops) {
    std::uint64_t dropped = 0;
    for (const auto& [cause, n] : h.dropped) {
      dropped += n;
    }
    os << std::left << std::setw(18) << h.name << std::right << std::setw(12) << h.packets_in << std::setw(10)
       << dropped << std::setw(10) << h.marked_ce << std::setw(16) << ms(h.queue_delay_ns.p50)
       << std::setw(16) << ms(h.queue_delay_ns.p99) << "\n";
  }
  const Accounting& a = r.accounting;
  os << "\npackets: " << a.packets_sent << " sent + " << a.duplicates_made
     << " duplicated = " << a.packets_received << " received + "
     << (a.packets_sent + a.duplicates_made - a.packets_received - a.in_flight_at_end) << " dropped + "
     << a.in_flight_at_end << " in flight at the end: " << (a.balanced() ? "balanced" : "NOT BALANCED")
     << "\n";
}

void print_gpu(const nlohmann::json& report, std::ostream& os) {
  const nlohmann::json& g = report.at("gpu");
  if (g.is_null()) {
    return;
  }
  const nlohmann::json& t = g.at("totals");
  os << std::fixed << std::setprecision(3) << "\nGPU idle " << t.at("gpu_idle_fraction").get<double>()
     << ", mean iteration " << t.at("mean_iteration_ns").get<double>() / 1e6 << " ms";
  if (const nlohmann::json& b = g.at("baseline"); !b.is_null()) {
    os << "; unimpaired network: GPU idle " << b.at("gpu_idle_fraction").get<double>() << ", mean iteration "
       << b.at("mean_iteration_ns").get<double>() / 1e6 << " ms";
  }
  if (!g.at("slowdown_vs_ideal").is_null()) {
    os << "; slowdown " << g.at("slowdown_vs_ideal").get<double>() << "x";
  }
  os << std::defaultfloat << "\n";
}

void print_attribution(const nlohmann::json& report, std::ostream& os) {
  bool header = false;
  for (const nlohmann::json& op : report.at("collectives").at("ops")) {
    const nlohmann::json& a = op.value("attribution", nlohmann::json());
    if (a.is_null()) {
      continue;
    }
    if (!header) {
      os << "\nwhere the time went (mean CCT, parts of at least 1 %):\n";
      header = true;
    }
    os << "  " << op.at("key").get<std::string>() << ": "
       << reports::duration_text(a.at("mean_cct_ns").get<double>()) << " = " << reports::attribution_text(a)
       << "\n";
    const nlohmann::json& b = op.value("baseline_attribution", nlohmann::json());
    if (!b.is_null()) {
      os << "    unimpaired: " << reports::duration_text(b.at("mean_cct_ns").get<double>()) << " = "
         << reports::attribution_text(b) << "\n";
    }
  }
}

void print_checks(const nlohmann::json& report, std::ostream& os) {
  for (const auto& w : report.value("warnings", nlohmann::json::array())) {
    os << "\nwarning (" << w.value("kind", "") << "): " << w.value("message", "") << "\n";
  }
  const auto& checks = report.at("checks");
  os << "\nchecks: " << report.value("verdict", "?") << "\n";
  for (const auto& c : checks) {
    os << "  " << (c.value("passed", false) ? "PASS " : "FAIL ") << c.value("name", "") << ": measured "
       << c.at("measured").dump() << ", limit " << c.at("limit").dump();
    if (!c.value("passed", false)) {
      os << " (" << c.value("reason", "") << ")";
    }
    os << "\n";
  }
}

void print_baselines(const nlohmann::json& rows, std::ostream& os) {
  os << "\n"
     << std::left << std::setw(34) << "stack" << std::setw(12) << "TCP_INFO cc" << std::right << std::setw(8)
     << "ops" << std::setw(14) << "CCT p50 ms" << std::setw(14) << "CCT p99 ms" << std::setw(15)
     << "goodput Mb/s" << std::setw(13) << "retransmits"
     << "\n";
  for (const nlohmann::json& r : rows) {
    std::string cc;
    for (const nlohmann::json& c : r.value("congestion_control", nlohmann::json::array())) {
      cc += (cc.empty() ? "" : ",") + c.get<std::string>();
    }
    os << std::left << std::setw(34) << r.value("stack", std::string()) << std::setw(12)
       << (r.value("endpoint_kind", "") == "tcp" ? cc : "-") << std::right << std::setw(8)
       << (std::to_string(r.value("ops_completed", 0)) + "/" + std::to_string(r.value("ops", 0)))
       << std::setw(14) << ms(static_cast<std::int64_t>(r.value("cct_p50_ns", 0.0))) << std::setw(14)
       << ms(static_cast<std::int64_t>(r.value("cct_p99_ns", 0.0))) << std::setw(15)
       << mbps(static_cast<std::uint64_t>(r.value("goodput_bps", 0.0))) << std::setw(13)
       << r.value("retransmits", std::uint64_t{0}) << "\n";
  }
}

}  // namespace gw
