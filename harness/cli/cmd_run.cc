// `gradwall run SCENARIO.json [--out DIR] [--mode sim] [--seed S]`: runs a scenario and writes
// DIR/result.json and the reports, computed from it alone (docs/guide/run.md). One straight
// line: the request, the scenario, one run (sim or live; `both` hands over to the twin), the
// result, the reports, the verdict.
#include <unistd.h>
#include <boost/program_options.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <iostream>
#include <optional>

#include "core/errors.h"
#include "core/text_file.h"
#include "core/units.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/cli/run_baselines.h"
#include "harness/cli/run_cost.h"
#include "harness/cli/run_summary.h"
#ifndef GW_SIM_ONLY
#include "harness/live/endpoints/ibverbs_devices.h"
#endif
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

// What the command line asks for, checked.
struct RunRequest {
  std::string scenario_file;
  std::string out = "gradwall-out";
  std::string mode = "sim";  // sim | live | both
  std::string bench = "netns";
  std::string endpoints = "udp";
  int emu_restarts = 1;
  std::uint32_t sim_seeds = 5;
  std::optional<std::string> seed;
  std::optional<std::string> baselines;
  std::optional<std::string> max_pacing_rate;
  std::optional<std::string> host_pacer;
  std::optional<std::string> edt_ce_threshold;
  std::optional<std::string> edt_horizon;
  std::optional<std::string> ports;
  std::optional<std::string> endpoint_netns;
  bool quiet = false;
  bool estimate = false;
  bool force = false;
  bool ideal = true;  // the unimpaired baseline run (slowdown_vs_ideal)
};

po::options_description run_options(RunRequest& r) {
  po::options_description opts(
      "gradwall run SCENARIO.json [options]\n\nRuns a scenario and writes DIR/result.json and the reports "
      "(report.json, report.html,\njunit.xml, summary.md, nccl.txt). Exit 0 when every check passes, 1 when "
      "one fails.\nOptions");
  opts.add_options()("help,h", "this help")("out", po::value<std::string>(&r.out)->default_value(r.out),
                                            "output folder (created)")(
      "mode", po::value<std::string>(&r.mode)->default_value(r.mode),
      "sim (virtual time), live (real packets through gradwall emu; root; docs/guide/live.md) or both")(
      "bench", po::value<std::string>(&r.bench)->default_value(r.bench),
      "live: the lab bench (netns: ci/bench-netns)")(
      "seed", po::value<std::string>(), "random seed, overrides the scenario's")("quiet,q",
                                                                                 "no summary on stdout")(
      "baselines", po::value<std::string>(),
      "live: after the run, run the scenario again once per kernel TCP congestion control in this "
      "comma-separated list (e.g. cubic,bbr) and compare (docs/guide/live.md)")(
      "endpoints", po::value<std::string>(&r.endpoints)->default_value(r.endpoints),
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
      "host-pacer", po::value<std::string>(),
      "live baselines: who paces the sending hosts: user (the sockets, default), fq (the fq qdisc) or "
      "edt-bpf (gradwall's tc-BPF program at --max-pacing-rate per connection; docs/guide/host-pacing.md)")(
      "edt-ce-threshold", po::value<std::string>(),
      "edt-bpf: frames departing this far ahead are marked CE when ECT (default 2ms)")(
      "edt-horizon", po::value<std::string>(),
      "edt-bpf: frames departing this far ahead are dropped (default 50ms)")(
      "emu-restarts", po::value<int>(&r.emu_restarts)->default_value(r.emu_restarts),
      "live: start the emulator again this many times when it dies mid-run (each death is a fault "
      "of the run; 0: the first ends it)")(
      "sim-seeds", po::value<std::uint32_t>(&r.sim_seeds)->default_value(r.sim_seeds),
      "both: the simulator also runs the next N - 1 seeds, and the agreement says where the live run "
      "falls in their spread (1: the run's seed only)")(
      "estimate", "print the estimated memory and CPU time of the run and exit (docs/scenarios.md \"Cost\")")(
      "force", "run even when the estimated memory or time is above the limit (docs/scenarios.md \"Cost\")")(
      "no-ideal",
      "skip the unimpaired baseline run: no slowdown_vs_ideal, so a slowdown check is not measured (advise's "
      "screening runs)")("scenario", po::value<std::string>(), "scenario file");
  return opts;
}

std::optional<std::string> text_of(const po::variables_map& vm, const char* option) {
  return vm.count(option) ? std::optional(vm[option].as<std::string>()) : std::nullopt;
}

// The request, or nullopt after printing the help. InputError names the option at fault.
std::optional<RunRequest> parse_request(const Args& args) {
  RunRequest r;
  const po::options_description opts = run_options(r);
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return std::nullopt;
  }
  if (!vm.count("scenario")) {
    throw InputError("gradwall run", "", "give a scenario file (gradwall run SCENARIO.json)");
  }
  r.scenario_file = vm["scenario"].as<std::string>();
  r.seed = text_of(vm, "seed");
  r.baselines = text_of(vm, "baselines");
  r.max_pacing_rate = text_of(vm, "max-pacing-rate");
  r.host_pacer = text_of(vm, "host-pacer");
  r.edt_ce_threshold = text_of(vm, "edt-ce-threshold");
  r.edt_horizon = text_of(vm, "edt-horizon");
  r.ports = text_of(vm, "ports");
  r.endpoint_netns = text_of(vm, "endpoint-netns");
  r.quiet = vm.count("quiet") > 0;
  r.estimate = vm.count("estimate") > 0;
  r.force = vm.count("force") > 0;
  r.ideal = vm.count("no-ideal") == 0;
  if (r.mode != "sim" && r.mode != "live" && r.mode != "both") {
    throw InputError("--mode", "", "\"sim\", \"live\" or \"both\", got \"" + r.mode + "\"");
  }
  return r;
}

// The checks of the options that come after the scenario is read (its errors go first).
void check_request(const RunRequest& r) {
  if ((r.ports || r.endpoint_netns) && r.mode != "live") {
    throw InputError(r.ports ? "--ports" : "--endpoint-netns", "", "goes with --mode live");
  }
  if (r.sim_seeds < 1 || r.sim_seeds > 100) {
    throw InputError("--sim-seeds", "", "must be 1 to 100, got " + std::to_string(r.sim_seeds));
  }
  if (r.emu_restarts < 0 || r.emu_restarts > 100) {
    throw InputError("--emu-restarts", "", "must be 0 to 100, got " + std::to_string(r.emu_restarts));
  }
  if (r.endpoints != "udp" && r.endpoints != "dpdk" && r.endpoints != "ibverbs") {
    throw InputError("--endpoints", "", "\"udp\", \"dpdk\" or \"ibverbs\", got \"" + r.endpoints + "\"");
  }
#ifdef GW_SIM_ONLY
  if (r.mode != "sim") {
    throw EnvironmentError("--mode " + r.mode + ": " + sim_only_message());
  }
#else
  if (r.endpoints == "ibverbs" && r.mode != "sim") {  // before anything of the bench starts
    if (endpoints::list_ibverbs_devices().empty()) {
      throw EnvironmentError(endpoints::no_rdma_devices_message());
    }
    throw EnvironmentError(
        "--endpoints ibverbs: the verbs data path is not implemented yet (gradwall endpoint "
        "--io ibverbs --list-devices shows the devices); use --endpoints udp or dpdk");
  }
#endif
}

// A pair "X,Y" of an option.
std::array<std::string, 2> pair_of(const std::string& text, const char* option) {
  const auto comma = text.find(',');
  if (comma == std::string::npos || comma == 0 || comma + 1 == text.size() ||
      text.find(',', comma + 1) != std::string::npos) {
    throw InputError(std::string("--") + option, "", "two names separated by a comma, got \"" + text + "\"");
  }
  return {text.substr(0, comma), text.substr(comma + 1)};
}

// --ports IF_A,IF_B with --endpoint-netns NS_A,NS_B (checked further by run_live: live_ports.h).
void set_ports(const RunRequest& r, LiveOptions& o) {
  if (!r.ports) {
    if (r.endpoint_netns) {
      throw InputError("--endpoint-netns", "", "goes with --ports IF_A,IF_B");
    }
    return;
  }
  if (!r.endpoint_netns) {
    throw InputError(
        "--ports", "",
        "say where the endpoints run: --endpoint-netns NS_A,NS_B (namespaces on this host holding "
        "the far ends of the two links; endpoints on remote cluster hosts are not supported yet)");
  }
  o.ports = pair_of(*r.ports, "ports");
  o.endpoint_netns = pair_of(*r.endpoint_netns, "endpoint-netns");
  o.bench = "ports";
}

LiveOptions live_options(const RunRequest& r) {
  LiveOptions o;
  o.bench = r.bench;
  o.work_dir = (fs::path(r.out) / "live").string();
  set_ports(r, o);
  o.endpoints = r.endpoints;
  o.emu_restarts = r.emu_restarts;
  return o;
}

// `--mode both` (live_runner.h): a sim and a live run, and their agreement.
int run_both(const Scenario& scenario, const RunRequest& r) {
  check_live_scenario(scenario);
  const Args twin_args{"--bench",   r.bench,          "--endpoints",
                       r.endpoints, "--emu-restarts", std::to_string(r.emu_restarts)};
  const std::uint64_t seed = r.seed ? parse_seed_option(*r.seed) : scenario.seed;
  return run_twin(r.scenario_file, r.out, twin_args, seed, r.sim_seeds);
}

void print_estimate(const Scenario& scenario) {
  const RunCost cost = estimate_cost(scenario);
  const CostLimits limits = default_cost_limits();
  std::cout << scenario.file << ": estimated " << bytes_text(cost.memory_bytes) << " of memory (limit "
            << bytes_text(limits.memory_bytes) << "), " << seconds_text(cost.cpu_seconds) << " of CPU (limit "
            << seconds_text(limits.cpu_seconds) << ")\n  connections " << cost.connections
            << ", schedule steps " << cost.schedule_steps << ", packets " << cost.packets << "; mostly "
            << cost.driver << "\n";
}

// A simulated run refused when its estimated cost is above the limits (unless --force); a live
// run takes the scenario's duration in real time.
void check_sim_cost(const Scenario& scenario, const RunRequest& r) {
  const RunCost cost = estimate_cost(scenario);
  if (!r.force) {
    check_cost(scenario, cost, default_cost_limits());
  }
  if (cost.cpu_seconds > 120 && !r.quiet) {
    std::cerr << "gradwall: " << scenario.file << ": estimated " << seconds_text(cost.cpu_seconds) << " and "
              << bytes_text(cost.memory_bytes) << " (" << cost.driver << ")\n";
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

// `controller.compare`: the same scenario in the simulator under each other policy, one row
// each after the run's own (docs/steering.md "Comparing policies"). Live runs compare with
// simulated ones: each row says its mode.
void compare_policies(const Scenario& scenario, nlohmann::json& result) {
  if (scenario.compare_policies.empty()) {
    return;
  }
  nlohmann::json rows = nlohmann::json::array({reports::steering_row(result)});
  for (const std::string& policy : scenario.compare_policies) {
    Scenario alt = scenario;
    alt.controller.policy = policy;
    alt.compare_policies.clear();
    SimOptions quiet;
    quiet.keep_series = false;
    rows.push_back(reports::steering_row(to_json(run_sim(alt, quiet))));
  }
  result["steering_comparison"] = std::move(rows);
}

// What one run measured: the result, its JSON (with the live run's parts, the kernel TCP
// baselines and the unimpaired baseline), and the live run when there was one.
struct Measured {
  SimResult result;
  nlohmann::json json;
  std::optional<LiveRun> live;
  double wall_s = 0;
};

// On a terminal, after 3 s of wall time: "simulated 12.5 s of 60 s", rewritten in place (a
// collective run's limit is its duration cap, so the figure counts up without a total then).
std::function<void(Duration, Duration)> progress_printer() {
  const auto started = std::chrono::steady_clock::now();
  return [started](Duration simulated, Duration limit) {
    if (std::chrono::steady_clock::now() - started < std::chrono::seconds(3)) {
      return;
    }
    const double s = static_cast<double>(simulated.count()) / 1e9;
    const double of = static_cast<double>(limit.count()) / 1e9;
    if (of < 3600) {
      std::fprintf(stderr, "\rsimulated %.3f s of %.3f s ", s, of);
    } else {
      std::fprintf(stderr, "\rsimulated %.3f s ", s);
    }
  };
}

Measured measure(const Scenario& scenario, const RunRequest& r, LiveBaselines baselines) {
  Measured m;
  const auto wall_start = std::chrono::steady_clock::now();
  if (r.mode == "live") {
    if (baselines.max_pacing_rate_bps == 0) {  // the scenario's transport.max_pacing_rate, if any
      baselines.max_pacing_rate_bps = scenario.transport.max_pacing_rate.bps;
    }
    if (baselines.host_pacer.mode == hostpace::HostPacerMode::edt_bpf && baselines.max_pacing_rate_bps == 0) {
      throw InputError("--host-pacer", "",
                       "edt-bpf paces each kernel TCP connection at --max-pacing-rate (or the scenario's "
                       "transport.max_pacing_rate): give one");
    }
    const LiveOptions lo = live_options(r);
    m.live = run_live(scenario, lo);
    m.result = m.live->result;
    m.json = to_json(m.result);
    add_live_result(m.json, *m.live);
    if (!baselines.names.empty()) {
      m.json["tcp_baselines"] = run_baselines(scenario, lo, r.out, baselines, m.json);
    }
  } else {
    SimOptions o;
    if (!r.quiet && isatty(STDERR_FILENO) != 0) {
      o.progress = progress_printer();
    }
    m.result = run_sim(scenario, o);
    m.json = to_json(m.result);
  }
  m.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  compare_policies(scenario, m.json);
  if (workload_kind(scenario.workload.kind).iterations && r.ideal) {
    // slowdown_vs_ideal: the same job on the same topology with every WAN link reduced to its
    // propagation delay and rate (no loss, jitter, AQM or queue limit) and no background
    // traffic, in virtual time.
    SimOptions quiet;
    quiet.keep_series = false;
    const nlohmann::json ideal = to_json(run_sim(ideal_of(scenario), quiet));
    m.json["baseline"] = {{"description", "same scenario on an unimpaired network"},
                          {"iterations", ideal["iterations"]},
                          {"collectives", ideal["collectives"]}};
  }
  return m;
}

// result.json, then the reports computed from it alone (reports/), always written for what
// was measured, pass or fail. Returns the report and the files written.
std::pair<nlohmann::json, std::vector<std::string>> write_outputs(const Measured& m, const std::string& out) {
  const fs::path result_path = fs::path(out) / "result.json";
  write_text_file_atomically(result_path.string(), m.json.dump(1) + "\n");
  nlohmann::json report = reports::build_report(m.json, result_path.string());
  if (m.live) {
    add_live_checks(report, *m.live);
    add_baseline_checks(report, m.json);
  }
  std::vector<std::string> written{result_path.string()};
  for (const reports::ReportFormat& f : reports::report_formats()) {
    const fs::path path = fs::path(out) / std::string(f.file_name);
    write_text_file_atomically(path.string(), f.write(report, m.json));
    written.push_back(path.string());
  }
  return {report, written};
}

void print_run(const Measured& m, const nlohmann::json& report, const std::vector<std::string>& written) {
  print_summary(m.result, std::cout);
  if (!m.result.collectives.empty()) {
    std::cout << "\n" << reports::nccl_table(report);
  }
  if (m.json.contains("tcp_baselines")) {
    print_baselines(m.json["tcp_baselines"], std::cout);
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

// Exit 0 when every check passed and the workload finished; 1 otherwise, and when the packet
// accounting does not balance. The run's wall time and its faults on stderr.
int verdict(const Measured& m, const nlohmann::json& report, const Scenario& scenario) {
  if (m.live) {
    for (const std::string& f : m.live->faults) {
      std::cerr << "live: fault: " << f << "\n";
    }
    std::cerr << "live run: " << std::fixed << std::setprecision(2) << m.wall_s << " s wall\n";
  } else {
    // "\r" and the padding overwrite the progress line on a terminal.
    std::cerr << (isatty(STDERR_FILENO) != 0 ? "\r" : "") << "simulated in " << std::fixed
              << std::setprecision(2) << m.wall_s << " s wall ("
              << static_cast<double>(m.result.events) / m.wall_s / 1e6 << " M events/s)"
              << (isatty(STDERR_FILENO) != 0 ? "          \n" : "\n");
  }
  if (!m.result.accounting.balanced()) {
    std::cerr << "error: packet accounting does not balance (see accounting in result.json)\n";
    return kExitCheckFailed;
  }
  if (!m.result.completed) {
    std::cerr << "error: the workload did not finish within workload.duration (" << std::setprecision(3)
              << static_cast<double>(ns_of(scenario.workload.duration)) / 1e6 << " ms)\n";
  }
  return report.value("verdict", "fail") == "pass" && m.result.completed ? kExitOk : kExitCheckFailed;
}

}  // namespace

int cmd_run(const Args& args) {
  const std::optional<RunRequest> r = parse_request(args);
  if (!r) {
    return kExitOk;  // --help
  }
  Scenario scenario = load_scenario(r->scenario_file);
  // Bad options exit 2 before anything runs.
  LiveBaselines baselines = parse_baselines(r->baselines, r->max_pacing_rate, r->mode);
  parse_host_pacer(r->host_pacer, r->edt_ce_threshold, r->edt_horizon, baselines);
  check_request(*r);
  if (r->mode == "both") {
    return run_both(scenario, *r);
  }
  if (r->seed) {
    scenario.seed = parse_seed_option(*r->seed);
  }
  if (r->estimate) {
    print_estimate(scenario);
    return kExitOk;
  }
  if (r->mode == "sim") {
    check_sim_cost(scenario, *r);
  }
  std::error_code ec;
  fs::create_directories(r->out, ec);
  if (ec) {
    throw EnvironmentError("cannot create " + r->out + ": " + ec.message());
  }
  const Measured m = measure(scenario, *r, baselines);
  const auto [report, written] = write_outputs(m, r->out);
  if (!r->quiet) {
    print_run(m, report, written);
  }
  return verdict(m, report, scenario);
}

}  // namespace gw
