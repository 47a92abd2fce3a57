// `gradwall run SCENARIO.json [--out DIR] [--mode sim] [--seed S]`: runs a scenario and writes
// DIR/result.json (and, as they land, the reports). docs/guide/run.md.
#include <algorithm>
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
#include "core/units.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/cli/run_cost.h"
#include "harness/live/endpoints/ibverbs_devices.h"
#include "harness/live/live_runner.h"
#include "harness/run/scenario.h"
#include "harness/run/workloads/workload_kind.h"
#include "harness/sim/sim_runner.h"
#include "reports/report.h"
#include "reports/text.h"
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

// GPU idle and the mean iteration beside the unimpaired network's (the slowdown's denominator).
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

// Per op, where the time went, the unimpaired network's beside it (docs/reports.md).
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

// --baselines / --max-pacing-rate (live mode): kernel TCP runs of the same scenario.
struct LiveBaselines {
  std::vector<std::string> names;
  std::uint64_t max_pacing_rate_bps = 0;
};

LiveBaselines parse_baselines(const po::variables_map& vm, const std::string& mode) {
  LiveBaselines b;
  if (vm.count("baselines")) {
    if (mode != "live") {
      throw InputError("--baselines", "", "kernel TCP baselines run beside a live run: use --mode live");
    }
    std::stringstream list(vm["baselines"].as<std::string>());
    for (std::string name; std::getline(list, name, ',');) {
      if (std::find(b.names.begin(), b.names.end(), name) != b.names.end()) {
        throw InputError("--baselines", "", "\"" + name + "\" is listed twice");
      }
      check_tcp_congestion_control("--baselines", name);  // exit 2: unknown or not allowed
      b.names.push_back(name);
    }
    if (b.names.empty()) {
      throw InputError("--baselines", "", "give congestion controls, e.g. cubic,bbr");
    }
  }
  if (vm.count("max-pacing-rate")) {
    const std::string text = vm["max-pacing-rate"].as<std::string>();
    const std::optional<BitRate> rate = parse_rate(text);
    if (b.names.empty()) {
      throw InputError("--max-pacing-rate", "", "paces the kernel TCP baselines: give --baselines too");
    }
    if (!rate || rate->unlimited() || rate->bps < 8) {
      throw InputError("--max-pacing-rate", "",
                       "a rate such as 45Mbit (at least 8bit), got \"" + text + "\"");
    }
    b.max_pacing_rate_bps = rate->bps;
  }
  return b;
}

// A pair "X,Y" of an option.
std::array<std::string, 2> pair_of(const po::variables_map& vm, const char* option) {
  const std::string text = vm[option].as<std::string>();
  const auto comma = text.find(',');
  if (comma == std::string::npos || comma == 0 || comma + 1 == text.size() ||
      text.find(',', comma + 1) != std::string::npos) {
    throw InputError(std::string("--") + option, "", "two names separated by a comma, got \"" + text + "\"");
  }
  return {text.substr(0, comma), text.substr(comma + 1)};
}

// --ports IF_A,IF_B with --endpoint-netns NS_A,NS_B (checked further by run_live: live_ports.h).
void set_ports(const po::variables_map& vm, LiveOptions& o) {
  if (!vm.count("ports")) {
    if (vm.count("endpoint-netns")) {
      throw InputError("--endpoint-netns", "", "goes with --ports IF_A,IF_B");
    }
    return;
  }
  if (!vm.count("endpoint-netns")) {
    throw InputError(
        "--ports", "",
        "say where the endpoints run: --endpoint-netns NS_A,NS_B (namespaces on this host holding "
        "the far ends of the two links; endpoints on remote cluster hosts are not supported yet)");
  }
  o.ports = pair_of(vm, "ports");
  o.endpoint_netns = pair_of(vm, "endpoint-netns");
  o.bench = "ports";
}

// Runs the scenario once per baseline (OUT/baseline-tcp-NAME/result.json) and returns the
// comparison table: the user-space run first, then each kernel TCP run. A baseline that
// cannot run (environment) is a row with its error; the other rows still run.
nlohmann::json run_baselines(const Scenario& scenario, const LiveOptions& base, const std::string& out,
                             const LiveBaselines& b, const nlohmann::json& main_result) {
  nlohmann::json rows = nlohmann::json::array();
  nlohmann::json own = stack_summary("gradwall " + scenario.transport.cc + " (user space)", main_result);
  own["congestion_control"] = {scenario.transport.cc};
  own["result_file"] = (fs::path(out) / "result.json").string();
  rows.push_back(own);
  for (const std::string& name : b.names) {
    const fs::path dir = fs::path(out) / ("baseline-tcp-" + name);
    std::cerr << "live: kernel TCP baseline " << name << " into " << dir.string() << "\n";
    LiveOptions o = base;
    o.work_dir = (dir / "live").string();
    o.tcp_cc = name;
    o.max_pacing_rate_bps = b.max_pacing_rate_bps;
    try {
      const LiveRun run = run_live(scenario, o);
      nlohmann::json r = to_json(run.result);
      add_live_result(r, run);
      write_atomically(dir / "result.json", r.dump(1) + "\n");
      nlohmann::json row = stack_summary("kernel tcp " + name, r);
      row["result_file"] = (dir / "result.json").string();
      rows.push_back(row);
    } catch (const EnvironmentError& e) {
      rows.push_back({{"stack", "kernel tcp " + name},
                      {"endpoint_kind", "tcp"},
                      {"completed", false},
                      {"faults", {std::string(e.what())}}});
    }
  }
  return rows;
}

// A `tcp_baselines` check: every baseline completed every op, without faults, every byte
// read that was written. The table itself goes into report.json for the writers.
void add_baseline_checks(nlohmann::json& report, const nlohmann::json& result) {
  if (!result.contains("tcp_baselines")) {
    return;
  }
  report["tcp_baselines"] = result["tcp_baselines"];
  std::string reason;
  std::size_t bad = 0;
  for (const nlohmann::json& row : result["tcp_baselines"]) {
    if (row.value("endpoint_kind", "") != "tcp") {
      continue;
    }
    const bool ok = row.value("completed", false) && row.value("faults", nlohmann::json::array()).empty() &&
                    row.value("bytes_balanced", false);
    if (!ok) {
      ++bad;
      reason += (reason.empty() ? "" : "; ") + row.value("stack", std::string()) + ": " +
                (row.value("faults", nlohmann::json::array()).empty()
                     ? std::string(row.value("completed", false) ? "bytes not balanced" : "did not complete")
                     : row["faults"].dump());
    }
  }
  report["checks"].push_back(
      {{"name", "tcp_baselines"},
       {"passed", bad == 0},
       {"measured", bad},
       {"limit", 0},
       {"reason", bad == 0 ? "every kernel TCP baseline completed with every byte read" : reason}});
  if (bad > 0) {
    report["verdict"] = "fail";
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

}  // namespace

int cmd_run(const Args& args) {
  po::options_description opts(
      "gradwall run SCENARIO.json [options]\n\nRuns a scenario and writes DIR/result.json and the reports "
      "(report.json, report.html,\njunit.xml, summary.md, nccl.txt). Exit 0 when every check passes, 1 when "
      "one fails.\nOptions");
  std::string out = "gradwall-out";
  std::string mode = "sim";
  std::string bench = "netns";
  std::string endpoint_io = "udp";
  int emu_restarts = 1;
  std::uint32_t sim_seeds = 5;
  opts.add_options()("help,h", "this help")("out", po::value<std::string>(&out)->default_value(out),
                                            "output folder (created)")(
      "mode", po::value<std::string>(&mode)->default_value(mode),
      "sim (virtual time), live (real packets through gradwall emu; root; docs/guide/live.md) or both")(
      "bench", po::value<std::string>(&bench)->default_value(bench),
      "live: the lab bench (netns: ci/bench-netns)")(
      "seed", po::value<std::string>(), "random seed, overrides the scenario's")("quiet,q",
                                                                                 "no summary on stdout")(
      "baselines", po::value<std::string>(),
      "live: after the run, run the scenario again once per kernel TCP congestion control in this "
      "comma-separated list (e.g. cubic,bbr) and compare (docs/guide/live.md)")(
      "endpoints", po::value<std::string>(&endpoint_io)->default_value(endpoint_io),
      "live: udp (UDP sockets), dpdk (DPDK af_packet ports) or ibverbs (RDMA devices; docs/guide/live.md)")(
      "ports", po::value<std::string>(),
      "live: IF_A,IF_B: the emulator forwards between these two interfaces instead of the namespace "
      "bench; give --endpoint-netns too (docs/guide/live.md)")(
      "endpoint-netns", po::value<std::string>(),
      "live with --ports: NS_A,NS_B: the network namespaces the endpoints run in (each with one IPv4 "
      "address on the link toward its port)")(
      "max-pacing-rate", po::value<std::string>(),
      "live baselines: SO_MAX_PACING_RATE of every kernel TCP socket (e.g. 45Mbit; overrides the "
      "scenario's transport.max_pacing_rate)")(
      "emu-restarts", po::value<int>(&emu_restarts)->default_value(emu_restarts),
      "live: start the emulator again this many times when it dies mid-run (each death is a fault "
      "of the run; 0: the first ends it)")(
      "sim-seeds", po::value<std::uint32_t>(&sim_seeds)->default_value(sim_seeds),
      "both: the simulator also runs the next N - 1 seeds, and the agreement says where the live run "
      "falls in their spread (1: the run's seed only)")(
      "estimate", "print the estimated memory and CPU time of the run and exit (docs/scenarios.md \"Cost\")")(
      "force", "run even when the estimated memory or time is above the limit (docs/scenarios.md \"Cost\")")(
      "scenario", po::value<std::string>(), "scenario file");
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
  LiveBaselines baselines = parse_baselines(vm, mode);
  if (baselines.max_pacing_rate_bps == 0) {  // the scenario's transport.max_pacing_rate, if any
    baselines.max_pacing_rate_bps = scenario.transport.max_pacing_rate.bps;
  }
  if ((vm.count("ports") || vm.count("endpoint-netns")) && mode != "live") {
    throw InputError(vm.count("ports") ? "--ports" : "--endpoint-netns", "", "goes with --mode live");
  }
  if (sim_seeds < 1 || sim_seeds > 100) {
    throw InputError("--sim-seeds", "", "must be 1 to 100, got " + std::to_string(sim_seeds));
  }
  if (emu_restarts < 0 || emu_restarts > 100) {
    throw InputError("--emu-restarts", "", "must be 0 to 100, got " + std::to_string(emu_restarts));
  }
  if (endpoint_io != "udp" && endpoint_io != "dpdk" && endpoint_io != "ibverbs") {
    throw InputError("--endpoints", "", "\"udp\", \"dpdk\" or \"ibverbs\", got \"" + endpoint_io + "\"");
  }
  if (endpoint_io == "ibverbs" && mode != "sim") {  // before anything of the bench starts
    if (endpoints::list_ibverbs_devices().empty()) {
      throw EnvironmentError(endpoints::no_rdma_devices_message());
    }
    throw EnvironmentError(
        "--endpoints ibverbs: the verbs data path is not implemented yet (gradwall endpoint "
        "--io ibverbs --list-devices shows the devices); use --endpoints udp or dpdk");
  }
  if (mode == "both") {  // live_runner.h: a sim and a live run, and their agreement
    check_live_scenario(scenario);
    Args twin_args{
        "--bench", bench, "--endpoints", endpoint_io, "--emu-restarts", std::to_string(emu_restarts)};
    const std::uint64_t seed =
        vm.count("seed") ? parse_seed_option(vm["seed"].as<std::string>()) : scenario.seed;
    return run_twin(vm["scenario"].as<std::string>(), out, twin_args, seed, sim_seeds);
  }
  if (vm.count("seed")) {
    scenario.seed = parse_seed_option(vm["seed"].as<std::string>());
  }
  if (vm.count("estimate")) {
    const RunCost cost = estimate_cost(scenario);
    const CostLimits limits = default_cost_limits();
    std::cout << scenario.file << ": estimated " << bytes_text(cost.memory_bytes) << " of memory (limit "
              << bytes_text(limits.memory_bytes) << "), " << seconds_text(cost.cpu_seconds)
              << " of CPU (limit " << seconds_text(limits.cpu_seconds) << ")\n  connections "
              << cost.connections << ", schedule steps " << cost.schedule_steps << ", packets "
              << cost.packets << "; mostly " << cost.driver << "\n";
    return kExitOk;
  }
  if (mode == "sim") {  // live runs take the scenario's duration in real time
    const RunCost cost = estimate_cost(scenario);
    if (!vm.count("force")) {
      check_cost(scenario, cost, default_cost_limits());
    }
    if (cost.cpu_seconds > 120 && !vm.count("quiet")) {
      std::cerr << "gradwall: " << scenario.file << ": estimated " << seconds_text(cost.cpu_seconds)
                << " and " << bytes_text(cost.memory_bytes) << " (" << cost.driver << ")\n";
    }
  }
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) {
    throw EnvironmentError("cannot create " + out + ": " + ec.message());
  }
  const auto wall_start = std::chrono::steady_clock::now();
  std::optional<LiveRun> live;
  LiveOptions lo;
  if (mode == "live") {
    lo.bench = bench;
    lo.work_dir = (fs::path(out) / "live").string();
    set_ports(vm, lo);
    lo.endpoints = endpoint_io;
    lo.emu_restarts = emu_restarts;
    live = run_live(scenario, lo);
  }
  const SimResult result = live ? live->result : run_sim(scenario);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  nlohmann::json result_json = to_json(result);
  if (live) {
    add_live_result(result_json, *live);
    if (!baselines.names.empty()) {
      result_json["tcp_baselines"] = run_baselines(scenario, lo, out, baselines, result_json);
    }
  }
  if (workload_kind(scenario.workload.kind).iterations) {
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
    add_baseline_checks(report, result_json);
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
    if (result_json.contains("tcp_baselines")) {
      print_baselines(result_json["tcp_baselines"], std::cout);
    }
    print_attribution(report, std::cout);
    print_gpu(report, std::cout);
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
