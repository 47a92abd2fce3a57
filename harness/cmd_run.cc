// `gradwall run SCENARIO.json [--out DIR] [--mode sim] [--seed S]`: runs a scenario and writes
// DIR/result.json (and, as they land, the reports). docs/guide/run.md.
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include "core/errors.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/live_runner.h"
#include "harness/scenario.h"
#include "harness/sim_runner.h"
#include "reports/report.h"
#include "reports/writers.h"

namespace gw {

namespace {

namespace fs = std::filesystem;
namespace po = boost::program_options;

// Written beside the target and renamed over it, so a reader never sees half a file.
void write_atomically(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".partial";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      throw EnvironmentError("cannot write " + tmp.string());
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    throw EnvironmentError("cannot rename " + tmp.string() + " to " + path.string() + ": " + ec.message());
  }
}

std::string mbps(std::uint64_t bps) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(1) << static_cast<double>(bps) / 1e6;
  return os.str();
}

po::variables_map parse(const Args& args, const po::options_description& opts,
                        const po::positional_options_description& pos) {
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  po::notify(vm);
  return vm;
}

std::string ms(std::int64_t ns) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(3) << static_cast<double>(ns) / 1e6;
  return os.str();
}

void print_summary(const SimResult& r, std::ostream& os) {
  os << "scenario " << r.scenario << " (" << r.scenario_file << "), mode " << r.mode << ", seed " << r.seed
     << ", " << ms(ns_of(r.duration)) << " ms simulated, " << r.events << " events\n\n";
  os << std::left << std::setw(6) << "flow" << std::setw(10) << "from" << std::setw(10) << "to"
     << std::setw(8) << "cc" << std::right << std::setw(14) << "goodput Mb/s" << std::setw(12)
     << "retransmits" << std::setw(10) << "CE marks" << std::setw(13) << "rtt p50 ms" << std::setw(13)
     << "rtt p99 ms" << std::setw(14) << "mean cwnd B"
     << "\n";
  for (const FlowResult& f : r.flows) {
    os << std::left << std::setw(6) << f.id << std::setw(10) << f.from << std::setw(10) << f.to
       << std::setw(8) << f.cc << std::right << std::setw(14) << mbps(f.goodput_bps) << std::setw(12)
       << f.retransmits << std::setw(10) << f.marks_ce << std::setw(13) << ms(f.rtt_ns.p50) << std::setw(13)
       << ms(f.rtt_ns.p99) << std::setw(14) << f.mean_cwnd_bytes << "\n";
  }
  os << "\nJain fairness " << std::setprecision(4) << r.jain_fairness << "\n\n";
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

void print_checks(const nlohmann::json& report, std::ostream& os) {
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

DirectionSpec ideal_direction(const DirectionSpec& d) {
  DirectionSpec out;
  if (d.delay) {
    out.delay = DelaySettings{};
    out.delay->delay = d.delay->delay;
    out.delay->reorder_policy = ReorderPolicy::kPreserve;
  }
  if (d.rate && !d.rate->rate.unlimited()) {
    out.rate = RateSettings{};
    out.rate->rate = d.rate->rate;
  }
  return out;
}

Scenario ideal_of(const Scenario& s) {
  Scenario ideal = s;
  for (fabric::WanLinkSpec& link : ideal.topology.wan) {
    Profile p;
    p.name = "ideal " + link.profile.name;
    p.a_to_b = ideal_direction(link.profile.a_to_b);
    p.b_to_a = ideal_direction(link.profile.b_to_a);
    link.profile = p;
  }
  ideal.workload.background.clear();  // and the job alone: no background traffic
  return ideal;
}

}  // namespace

int cmd_run(const Args& args) {
  po::options_description opts(
      "gradwall run SCENARIO.json [options]\n\nRuns a scenario and writes DIR/result.json and the reports "
      "(report.json, report.html,\njunit.xml, summary.md, nccl.txt). Exit 0 when every check passes, 1 when "
      "one fails.\nOptions");
  std::string out = "gradwall-out";
  std::string mode = "sim";
  std::string bench = "netns";
  opts.add_options()("help,h", "this help")("out", po::value<std::string>(&out)->default_value(out),
                                            "output folder (created)")(
      "mode", po::value<std::string>(&mode)->default_value(mode),
      "sim (virtual time), live (real packets through gradwall emu; root; docs/guide/live.md) or both")(
      "bench", po::value<std::string>(&bench)->default_value(bench),
      "live: the lab bench (netns: ci/bench-netns)")("seed", po::value<std::string>(),
                                                     "random seed, overrides the scenario's")(
      "quiet,q", "no summary on stdout")("scenario", po::value<std::string>(), "scenario file");
  po::positional_options_description pos;
  pos.add("scenario", 1);
  const auto vm = parse(args, opts, pos);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  if (!vm.count("scenario")) {
    throw InputError("gradwall run", "", "give a scenario file (gradwall run SCENARIO.json)");
  }
  if (mode != "sim" && mode != "live" && mode != "both") {
    throw InputError("--mode", "", "\"sim\", \"live\" or \"both\", got \"" + mode + "\"");
  }
  Scenario scenario = load_scenario(vm["scenario"].as<std::string>());
  if (mode == "both") {  // live_runner.h: a sim and a live run, and their agreement
    check_live_scenario(scenario);
    return run_twin(vm["scenario"].as<std::string>(), out,
                    vm.count("seed") ? Args{"--seed", vm["seed"].as<std::string>(), "--bench", bench}
                                     : Args{"--bench", bench});
  }
  if (vm.count("seed")) {
    scenario.seed = parse_seed_option(vm["seed"].as<std::string>());
  }
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) {
    throw EnvironmentError("cannot create " + out + ": " + ec.message());
  }
  const auto wall_start = std::chrono::steady_clock::now();
  std::optional<LiveRun> live;
  if (mode == "live") {
    live = run_live(scenario, LiveOptions{bench, (fs::path(out) / "live").string()});
  }
  const SimResult result = live ? live->result : run_sim(scenario);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  nlohmann::json result_json = to_json(result);
  if (live) {
    add_live_result(result_json, *live);
  }
  if (scenario.workload.kind != "flows") {
    // slowdown_vs_ideal: the same job on the same topology with every WAN link reduced to its
    // propagation delay and rate (no loss, jitter, AQM or queue limit) and no background
    // traffic, in virtual time.
    SimOptions quiet;
    quiet.keep_series = false;
    const nlohmann::json ideal = to_json(run_sim(ideal_of(scenario), quiet));
    result_json["baseline"] = {{"description", "same scenario on an unimpaired network"},
                               {"iterations", ideal["iterations"]},
                               {"collectives", ideal["collectives"]}};
  }
  const fs::path result_path = fs::path(out) / "result.json";
  write_atomically(result_path, result_json.dump(1) + "\n");
  // The reports are computed from result.json alone (reports/), and always written for what
  // was measured, pass or fail.
  nlohmann::json report = reports::build_report(result_json, result_path.string());
  if (live) {
    add_live_checks(report, *live);
    for (const std::string& f : live->faults) {
      std::cerr << "live: fault: " << f << "\n";
    }
  }
  std::vector<std::string> written{result_path.string()};
  for (const reports::ReportFormat& f : reports::report_formats()) {
    const fs::path path = fs::path(out) / std::string(f.file_name);
    write_atomically(path, f.write(report, result_json));
    written.push_back(path.string());
  }
  if (!vm.count("quiet")) {
    print_summary(result, std::cout);
    if (!result.collectives.empty()) {
      std::cout << "\n" << reports::nccl_table(report);
    }
    print_checks(report, std::cout);
    std::cout << "\nwrote";
    for (const std::string& w : written) {
      std::cout << " " << w;
    }
    std::cout << "\n";
  }
  if (live) {
    std::cerr << "live run: " << std::fixed << std::setprecision(2) << wall_s << " s wall\n";
  } else {
    std::cerr << "simulated in " << std::fixed << std::setprecision(2) << wall_s << " s wall ("
              << std::setprecision(2) << static_cast<double>(result.events) / wall_s / 1e6
              << " M events/s)\n";
  }
  if (!result.accounting.balanced()) {
    std::cerr << "error: packet accounting does not balance (see accounting in result.json)\n";
    return kExitCheckFailed;
  }
  if (!result.completed) {
    std::cerr << "error: the workload did not finish within workload.duration ("
              << ms(ns_of(scenario.workload.duration)) << " ms)\n";
  }
  return report.value("verdict", "fail") == "pass" && result.completed ? kExitOk : kExitCheckFailed;
}

}  // namespace gw
