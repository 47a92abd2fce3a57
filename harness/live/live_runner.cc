// Live mode's wiring (live_runner.h): the scenario checked, the bench and the emulator up
// (live_bench.h), the endpoints connected and the real-time run (live_coordinator.h), every
// process down again, and the result from what they measured (live_result.h).
#include "harness/live/live_runner.h"

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "emulator/engine/profile_writer.h"
#include "emulator/fabric/path_ports.h"
#include "harness/live/emu_control.h"
#include "harness/live/live_accounting.h"
#include "harness/live/live_bench.h"
#include "harness/live/live_context.h"
#include "harness/live/live_coordinator.h"
#include "harness/live/live_host_counters.h"
#include "harness/live/live_profile.h"
#include "harness/live/live_result.h"
#include "harness/run/queue_pairs.h"
#include "harness/sim/sim_runner.h"

namespace gw {

std::atomic<int> g_interrupted{0};

namespace {

namespace fs = std::filesystem;
using endpoints::LineChannel;

// Payload per packet that fits the bench's 1500-byte IP MTU: IP 20 + UDP 8 + BTH 12 + RETH 16
// + gradwall data metadata 32 + ICRC 4 leave 1408 bytes (a multiple of 4: no pad).
constexpr std::uint32_t kMaxLiveMtu = 1408;

}  // namespace

namespace {

// With several paths between the sides, the relays and WAN links are those of the paths: the
// emulator carries each path as one class (live_profile.h).
void check_live_paths(const Scenario& s, const std::vector<LivePath>& paths) {
  const auto& regions = s.topology.regions;
  std::set<std::string> on_paths;
  for (const LivePath& p : paths) {
    for (const auto* nodes : {&p.a_to_b, &p.b_to_a}) {
      for (std::size_t i = 0; i + 1 < nodes->size(); ++i) {
        on_paths.insert(std::min((*nodes)[i], (*nodes)[i + 1]) + " " +
                        std::max((*nodes)[i], (*nodes)[i + 1]));
      }
    }
  }
  if (s.topology.intra_region_analytic) {
    throw InputError(s.file, "$.topology.intra_region",
                     "\"analytic\" is a simulator option: a live run sends every hop (use \"packet\")");
  }
  for (std::size_t i = 2; i < regions.size(); ++i) {
    if (regions[i].hosts != 0) {
      throw InputError(s.file, "$.topology.regions[" + std::to_string(i) + "]",
                       "live mode runs two regions with hosts (side A and side B); " + regions[i].name +
                           " has hosts (relays have none)");
    }
  }
  for (std::size_t i = 0; i < s.topology.wan.size(); ++i) {
    const fabric::WanLinkSpec& l = s.topology.wan[i];
    if (on_paths.count(std::min(l.a, l.b) + " " + std::max(l.a, l.b)) == 0) {
      throw InputError(s.file, "$.topology.wan[" + std::to_string(i) + "]",
                       "live mode emulates the paths between " + regions[0].name + " and " + regions[1].name +
                           "; the link " + l.a + " - " + l.b + " is on none of them");
    }
  }
  if (paths.size() > fabric::kMaxPaths) {
    throw InputError(s.file, "$.routes", "at most " + std::to_string(fabric::kMaxPaths) + " paths");
  }
  // The emulator publishes its counters every 20 ms (--publish-ms): a shorter interval would
  // read some intervals with nothing new.
  if (s.controller.interval < Duration{40'000'000}) {
    throw InputError(
        s.file, "$.controller.interval",
        "live mode reads the emulator's counters, published every 20 ms: give at least 40ms, got " +
            std::to_string(static_cast<double>(s.controller.interval.count()) / 1e6) + " ms");
  }
}

}  // namespace

void check_live_scenario(const Scenario& s) {
  const auto& regions = s.topology.regions;
  if (regions.size() < 2 || regions[0].hosts == 0 || regions[1].hosts == 0) {
    throw InputError(s.file, "$.topology.regions",
                     "live mode runs two regions (region 0 on side A, region 1 on side B of the emulator), "
                     "with relays only on a route's paths; this scenario has " +
                         std::to_string(regions.size()) + " regions/relays");
  }
  const std::vector<LivePath> paths = live_paths(s);
  if (!paths.empty()) {
    check_live_paths(s, paths);
  } else if (regions.size() != 2) {
    throw InputError(s.file, "$.topology.regions",
                     "live mode runs two regions (region 0 on side A, region 1 on side B of the emulator) "
                     "and relays only on a route's paths; this scenario has " +
                         std::to_string(regions.size()) + " regions/relays");
  } else if (s.topology.wan.size() != 1) {
    throw InputError(s.file, "$.topology.wan",
                     "live mode needs exactly one WAN link (the emulator between the two sides), got " +
                         std::to_string(s.topology.wan.size()));
  }
  if (!paths.empty() && s.controller.spray) {
    throw InputError(s.file, "$.controller.spray",
                     "per-packet spraying runs in the simulator only; live mode steers each queue pair");
  }
  (void)emu_profile(s);  // the paths' links compose (InputError otherwise)
  std::size_t flows = 0;
  for (const auto& [list, path] : {std::pair{&s.workload.flows, std::string("$.workload.flows")},
                                   std::pair{&s.workload.background, std::string("$.background")}}) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      const FlowSpec& f = (*list)[i];
      flows += f.count;
    }
  }
  if (kFirstFlowQp + 2 * flows > kFirstControlQp) {
    throw InputError(s.file, "$.workload.flows",
                     "live mode runs at most " + std::to_string((kFirstControlQp - kFirstFlowQp) / 2) +
                         " flows (background included), got " + std::to_string(flows));
  }
  if (s.transport.config.mtu_bytes > kMaxLiveMtu) {
    throw InputError(s.file, "$.transport.mtu",
                     "live mode on the namespace bench carries at most " + std::to_string(kMaxLiveMtu) +
                         " payload bytes per packet (1500-byte IP MTU minus IP, UDP, BTH, RETH, gradwall's "
                         "32-byte data header and the ICRC); got " +
                         std::to_string(s.transport.config.mtu_bytes) + " (set \"mtu\": 1400)");
  }
}

namespace {

extern "C" void on_interrupt(int sig) {
  g_interrupted = sig;
}

// The coordinator runs at the instruments' priority while the run lasts (it starts each step
// when the previous one is reported delivered), and SIGINT / SIGTERM end the run as a fault;
// both are restored however the run leaves, a throw included.
class RunSignalsAndPriority {
 public:
  RunSignalsAndPriority()
      : old_nice_(getpriority(PRIO_PROCESS, 0)),
        old_int_(std::signal(SIGINT, on_interrupt)),
        old_term_(std::signal(SIGTERM, on_interrupt)) {
    (void)setpriority(PRIO_PROCESS, 0, std::stoi(kPriority));
    g_interrupted = 0;
  }
  ~RunSignalsAndPriority() {
    std::signal(SIGINT, old_int_);
    std::signal(SIGTERM, old_term_);
    (void)setpriority(PRIO_PROCESS, 0, old_nice_);
  }
  RunSignalsAndPriority(const RunSignalsAndPriority&) = delete;
  RunSignalsAndPriority& operator=(const RunSignalsAndPriority&) = delete;

 private:
  int old_nice_;
  void (*old_int_)(int);
  void (*old_term_)(int);
};

// The result's run fields: mode "live", the scenario as given, how long it ran and whether
// its work completed.
void describe_run(const Scenario& scenario, Instant stop, bool completed, SimResult& r) {
  r.mode = "live";
  r.scenario = scenario.name;
  r.scenario_file = scenario.file;
  r.seed = scenario.seed;
  r.duration = stop - kEpoch;
  r.completed = completed;
  r.scenario_json = scenario.source;
  r.warmup_iterations = scenario.warmup_iterations;
}

LiveContext context_of(const Scenario& scenario, const LiveOptions& options) {
  check_live_scenario(scenario);
  const bool ports = !options.ports[0].empty();
  if (options.bench != "netns" && !(ports && options.bench == "ports")) {
    throw InputError("--bench", "",
                     "only \"netns\" (ci/bench-netns) is supported, got \"" + options.bench + "\"");
  }
  if (geteuid() != 0) {
    throw EnvironmentError("live mode needs root (network namespaces, af_packet ports for the emulator)");
  }
  LiveContext c(scenario, options);
  c.ports = ports;
  // The namespace bench, or the given ports with the endpoints in the given namespaces.
  c.sides = ports ? port_sides(options.ports, options.endpoint_netns) : netns_bench_sides();
  c.regions = {scenario.topology.regions[0].name, scenario.topology.regions[1].name};
  c.work = fs::absolute(options.work_dir);
  fs::create_directories(c.work);
  c.self = fs::read_symlink("/proc/self/exe").string();
  c.scenario_file = fs::absolute(scenario.file).string();
  c.tcp = !options.tcp_cc.empty();
  if (c.tcp && !live_paths(scenario).empty()) {
    throw InputError(scenario.file, "$.routes",
                     "kernel TCP baselines do not steer paths (the kernel picks their source ports); run "
                     "this scenario's paths with gradwall's endpoints");
  }
  return c;
}

// With several paths, the path controller reads the emulator's counters at run time: its
// control endpoint on a free loopback port, a random token in a file only root reads.
std::optional<EmuControl> steering_control(const LiveContext& c, EmulatorLauncher& emu) {
  if (live_paths(c.scenario).empty()) {
    return std::nullopt;
  }
  std::random_device urandom;  // the kernel's entropy, not the run's seeded draws
  std::ostringstream token;
  token << std::hex;
  for (int i = 0; i < 4; ++i) {
    token << urandom();
  }
  const fs::path file = c.work / "emu-control-token";
  {
    std::ofstream out(file);
    out << token.str() << "\n";
  }
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
  const std::uint16_t port = EmuControl::free_port();
  emu.serve_control(port, file);
  return EmuControl(port, token.str());
}

}  // namespace

LiveRun run_live(const Scenario& scenario, const LiveOptions& options) {
  const LiveContext c = context_of(scenario, options);
  LiveRun run;
  RunSignalsAndPriority signals_and_priority;  // restored after the teardown (declared before it)
  Teardown td;
  const double load_at_start = load_average();

  // The bench and the emulator with the scenario's WAN profile.
  Profile profile = emu_profile(scenario);
  // With paths, the coordinator applies the links' phases at run time (live_profile.h).
  std::vector<TimedProfile> phases =
      live_paths(scenario).empty() ? std::vector<TimedProfile>{} : take_phases(profile);
  const fs::path profile_file = c.work / "emu-profile.json";
  std::ofstream(profile_file) << profile_to_json(profile).dump(2) << "\n";
  bring_up_bench(c, td);
  // The hosts' counters are read on the namespace bench only (live_host_counters.h).
  const nlohmann::json hosts_before = c.ports ? nlohmann::json::object() : read_host_counters();
  td.dpdk_prefix = "gw-live-" + std::to_string(getpid());
  EmulatorLauncher emu(c, profile_file, td.dpdk_prefix);
  const std::optional<EmuControl> emu_control = steering_control(c, emu);
  td.emu = emu.start();
  std::cerr << "live: emu started (pid " << td.emu->pid() << "), profile " << profile_file.string() << "\n";
  const std::int64_t ready_by = endpoints::monotonic_ns() + options.start_timeout.count();
  wait_forwarding(c, *td.emu, ready_by);

  // The endpoints, one per side, and their control connections.
  std::array<std::unique_ptr<LineChannel>, 2> ch = connect_endpoints(c, td, ready_by);
  const endpoints::RunTime rt = start_endpoints_clock(c, td, ch);

  RealTimeRun real_time(c, td, emu, ch, rt, profile, emu_control, std::move(phases), run.faults);
  const CpuTimes cpu_at_start = cpu_times();
  const Instant stop = real_time.run();
  const CpuTimes cpu_at_stop = cpu_times();
  const bool completed = real_time.driver().done();
  real_time.stop_endpoints();
  const nlohmann::json processes = stop_processes(td, emu, run.faults);
  const nlohmann::json emu_stats = emulator_stats(emu.stats_files());
  const nlohmann::json host_delta =
      c.ports ? nlohmann::json::object() : host_counter_delta(hosts_before, read_host_counters());
  // An emulator that left no final counts died with packets in it: one restarted, or the
  // last one killed (its periodic stats say "final": false). One that exited 1 on its own
  // checks did write them.
  const bool emulator_died =
      !td.past_emus.empty() || !(emu_stats.is_object() && emu_stats.value("final", false));
  td.run();

  SimResult& r = run.result;
  describe_run(scenario, stop, completed, r);
  run.series_flows = real_time.series().fill(r.series, stop);
  const nlohmann::json unfinished = add_driver_results(real_time.driver(), true, r);
  const std::array<nlohmann::json, 2>& stats = real_time.stats();
  fill_counters(stats, emu_stats, host_delta, c.regions, c.tcp, !c.ports, emulator_died, r);
  real_time.flows().add_results(stats, stop, r);
  summarize_flows(r);
  if (real_time.steering().active()) {
    r.steering = real_time.steering().result();
  }
  run.live = {{"bench", options.bench},
              {"work_dir", c.work.string()},
              {"clock",
               "CLOCK_MONOTONIC of one host: one-way delays are exact on the namespace bench; "
               "endpoints on two hosts need PTP-synchronised clocks"},
              {"connections", real_time.coordinator().connections()},
              {"unfinished", unfinished},
              {"one_way_delay_between_sides_ns",
               percentiles_of(histogram_of(stats, "one_way_delay_remote_us").summary())},
              {"endpoints", endpoints_section(c, stats)},
              {"emulator", {{"profile", profile_file.string()}, {"stats", emu_stats}}},
              {"hosts", host_delta},
              {"load_average",
               {{"start", load_at_start},
                {"end", load_average()},
                {"cpus", sysconf(_SC_NPROCESSORS_ONLN)},
                {"what", "/proc/loadavg's 1-minute figure when the run started and when it ended"}}},
              {"cpu", cpu_section(cpu_at_start, cpu_at_stop)},
              {"processes", processes},
              {"faults", run.faults}};
  run.live["endpoint_kind"] = c.tcp ? std::string("tcp") : options.endpoints;  // udp, dpdk or tcp
  if (c.ports) {
    run.live["ports"] = {c.sides[0].port, c.sides[1].port};
  }
  if (c.tcp) {
    run.live["tcp"] = tcp_section(options, stats, completed, !real_time.flows().empty());
  }
  return run;
}

void add_live_result(nlohmann::json& result_json, const LiveRun& run) {
  result_json["live"] = run.live;
  // The series' flows are the sending queue pairs (live_series.h): say which, with their srtt.
  nlohmann::json& flows = result_json["series"]["flows"];
  for (std::size_t i = 0; i < flows.size() && i < run.series_flows.size(); ++i) {
    flows[i].update(run.series_flows[i]);
  }
}

void add_live_checks(nlohmann::json& report, const LiveRun& run) {
  if (run.live.contains("tcp")) {
    const nlohmann::json& t = run.live.at("tcp");
    const bool ok = t.at("balanced").get<bool>();
    report["checks"].push_back(
        {{"name", "tcp_bytes_balanced"},
         {"passed", ok},
         {"measured", t.at("bytes_read")},
         {"limit", t.at("bytes_written")},
         {"reason",
          !ok ? "bytes read " + t.at("bytes_read").dump() + " != bytes written " +
                    t.at("bytes_written").dump() +
                    " (a connection still held data when the run ended, or an endpoint failed)"
          : t.value("open_ended", false)
              ? "no TCP connection read more than was written to it (flows still sending at the end)"
              : "every byte written to a TCP socket was read at the other end"}});
    if (!ok) {
      report["verdict"] = "fail";
    }
  }
  std::string reason = "every process of the live run behaved";
  if (!run.faults.empty()) {
    reason.clear();
    for (const std::string& f : run.faults) {
      reason += (reason.empty() ? "" : "; ") + f;
    }
  }
  report["checks"].push_back({{"name", "live_processes"},
                              {"passed", run.faults.empty()},
                              {"measured", run.faults.size()},
                              {"limit", 0},
                              {"reason", reason}});
  if (!run.faults.empty()) {
    report["verdict"] = "fail";
  }
}

}  // namespace gw
