// `gradwall run --mode both` (live_runner.h run_twin): a sim run and a live run of one
// scenario, each a `gradwall run` process of its own, and their agreement.
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "harness/live/endpoints/tcp_endpoint.h"
#include "harness/live/live_runner.h"
#include "harness/run/workloads/workload_kind.h"

extern char** environ;

namespace gw {

namespace {

constexpr int kTwinCrashed = 3;  // a run that ended by a signal

struct CctSummary {
  std::size_t ops = 0;
  double p50_ns = 0;
  double p99_ns = 0;
  double goodput_bps = 0;
};

// Nearest-rank percentiles over the completed ops: the collectives, a pipeline's point-to-point
// transfers, or a flows workload's flows.
CctSummary cct_summary(const nlohmann::json& result) {
  std::vector<double> ccts;
  double bytes = 0;
  double total_ns = 0;
  // What to compare goes by the workload's kind, not by what completed (a live run cut short
  // may have no finished op where the simulator has them all).
  const std::string kind = result.value("scenario_json", nlohmann::json::object())
                               .value("workload", nlohmann::json::object())
                               .value("kind", "collective");
  const WorkloadKind* entry = find_workload_kind(kind);
  const bool flows = entry != nullptr && !entry->iterations;
  const std::string ops(entry != nullptr ? entry->ops_key : "collectives");
  for (const nlohmann::json& op :
       flows ? nlohmann::json::array() : result.value(ops, nlohmann::json::array())) {
    const auto start = op.value("start_ns", std::int64_t{0});
    const auto end = op.value("end_ns", std::int64_t{-1});
    if (end < start) {
      continue;
    }
    ccts.push_back(static_cast<double>(end - start));
    bytes += static_cast<double>(op.value("bytes", std::uint64_t{0}));
    total_ns += static_cast<double>(end - start);
  }
  CctSummary s;
  if (flows) {
    // A flows workload: the finite flows' completion times stand for the CCTs, and the
    // goodput is the flows' (a bulk flow's: its bytes over the run).
    for (const nlohmann::json& f : result.value("flows", nlohmann::json::array())) {
      if (f.value("class", "") == "collective") {
        continue;
      }
      s.goodput_bps += f.value("goodput_bps", 0.0);
      const nlohmann::json c = f.value("completion_ns", nlohmann::json(nullptr));  // null: bulk, unfinished
      if (c.is_number() && c.get<std::int64_t>() >= 0) {
        ccts.push_back(c.get<double>());
      }
    }
  }
  s.ops = ccts.size();
  if (ccts.empty()) {
    return s;
  }
  std::sort(ccts.begin(), ccts.end());
  auto rank = [&](double q) {
    const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(ccts.size())));
    return ccts[std::min(ccts.size(), std::max<std::size_t>(k, 1)) - 1];
  };
  s.p50_ns = rank(0.5);
  s.p99_ns = rank(0.99);
  if (total_ns > 0) {
    s.goodput_bps = bytes * 8e9 / total_ns;
  }
  return s;
}

nlohmann::json summary_json(const CctSummary& s) {
  return {{"ops", s.ops}, {"cct_p50_ns", s.p50_ns}, {"cct_p99_ns", s.p99_ns}, {"goodput_bps", s.goodput_bps}};
}

nlohmann::json ratio(double live, double sim) {
  return sim > 0 ? nlohmann::json(live / sim) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json twin_agreement(const nlohmann::json& sim, const nlohmann::json& live) {
  const CctSummary s = cct_summary(sim);
  const CctSummary l = cct_summary(live);
  return {{"gradwall", "agreement/v1"},
          {"description",
           "live / sim: CCT p50 and p99 over the completed ops (nearest rank), and the "
           "collective goodput = sum of op bytes x 8 / sum of CCTs; without collectives the same "
           "over the point-to-point transfers (a pipeline), and without those the finite flows' "
           "completion times and the sum of the flows' goodputs"},
          {"sim", summary_json(s)},
          {"live", summary_json(l)},
          {"ratio",
           {{"cct_p50", ratio(l.p50_ns, s.p50_ns)},
            {"cct_p99", ratio(l.p99_ns, s.p99_ns)},
            {"goodput", ratio(l.goodput_bps, s.goodput_bps)}}}};
}

namespace {

std::string fmt(double v, int digits) {
  std::ostringstream os;
  os.precision(digits);
  os << std::fixed << v;
  return os.str();
}

// The emulator's delay error over both directions: the larger p99 bound and the mean.
std::pair<double, double> delay_error(const nlohmann::json& emu_stats) {
  double p99 = 0;
  double sum = 0;
  double samples = 0;
  for (const char* dir : {"a_to_b", "b_to_a"}) {
    const nlohmann::json e =
        emu_stats.value(dir, nlohmann::json::object()).value("delay_error", nlohmann::json());
    if (e.is_object()) {
      p99 = std::max(p99, e.value("p99_at_most_ns", 0.0));
      sum += e.value("sum_ns", 0.0);
      samples += e.value("samples", 0.0);
    }
  }
  return {p99, samples > 0 ? sum / samples : 0.0};
}

// What twin_causes measured: one row per cause, and the causes that disturbed the bench.
struct Causes {
  nlohmann::json measured = nlohmann::json::array();
  std::vector<std::string> disturbed;
  void add(const std::string& cause, bool disturbed_bench, nlohmann::json row) {
    if (disturbed_bench) {
      disturbed.push_back(cause);
    }
    row["cause"] = cause;
    row["disturbed"] = disturbed_bench;
    measured.push_back(std::move(row));
  }
};

// The simulator's spread over seeds: how far the draws alone move the figure. Returns live's
// CCT p50 over the median of the seeds' (0 without seeds).
double seed_spread(const CctSummary& s, const CctSummary& l, const std::vector<nlohmann::json>& sim_seeds,
                   Causes& causes) {
  if (sim_seeds.empty() || s.p50_ns <= 0) {
    return 0;
  }
  std::vector<double> p50{s.p50_ns};
  for (const nlohmann::json& r : sim_seeds) {
    if (const CctSummary o = cct_summary(r); o.p50_ns > 0) {
      p50.push_back(o.p50_ns);
    }
  }
  std::sort(p50.begin(), p50.end());
  const double median = p50[(p50.size() - 1) / 2];
  const bool within = l.p50_ns >= p50.front() && l.p50_ns <= p50.back();
  const double ratio = l.p50_ns / median;
  causes.measured.push_back(
      {{"cause", "simulator spread over seeds"},
       {"seeds", p50.size()},
       {"cct_p50_min_ns", p50.front()},
       {"cct_p50_median_ns", median},
       {"cct_p50_max_ns", p50.back()},
       {"live_over_median", ratio},
       {"live_within", within},
       {"what", "CCT p50 over " + std::to_string(p50.size()) + " seeds " + fmt(p50.front() / 1e6, 1) +
                    " to " + fmt(p50.back() / 1e6, 1) + " ms (median " + fmt(median / 1e6, 1) + "); live " +
                    fmt(l.p50_ns / 1e6, 1) + " ms, " + (within ? "within it" : "outside it") + ", " +
                    fmt(ratio, 3) + " x the median"}});
  return ratio;
}

void host_load(const nlohmann::json& section, Causes& causes) {
  const nlohmann::json load = section.value("load_average", nlohmann::json());
  if (!load.is_object()) {
    return;
  }
  const double worst = std::max(load.value("start", 0.0), load.value("end", 0.0));
  const double cpus = load.value("cpus", 1.0);
  const bool busy = worst > cpus;
  causes.add("host load", busy,
             {{"load_average", load},
              {"what", "1-minute load average " + fmt(load.value("start", 0.0), 2) + " at the start, " +
                           fmt(load.value("end", 0.0), 2) + " at the end, on " + fmt(cpus, 0) + " CPUs" +
                           (busy ? ": more runnable work than CPUs" : "")}});
}

// The share of the host's CPU time in use while the live run ran: near all of it, the
// emulator and the endpoints waited for a CPU (each one a queue the simulator does not have).
void host_cpu(const nlohmann::json& section, Causes& causes) {
  const nlohmann::json cpu = section.value("cpu", nlohmann::json());
  if (!cpu.is_object()) {
    return;
  }
  const double busy = cpu.value("busy_fraction", 0.0) + cpu.value("steal_fraction", 0.0);
  causes.add("host CPU", busy > 0.9,
             {{"busy_fraction", cpu.value("busy_fraction", 0.0)},
              {"steal_fraction", cpu.value("steal_fraction", 0.0)},
              {"what", fmt(100 * cpu.value("busy_fraction", 0.0), 0) + " % of " +
                           fmt(cpu.value("cpus", 1.0), 0) + " CPUs busy during the run (" +
                           fmt(100 * cpu.value("steal_fraction", 0.0), 0) + " % stolen by the hypervisor)" +
                           (busy > 0.9 ? ": the bench's processes waited for CPUs" : "")}});
}

void emulator_delay(const nlohmann::json& section, Causes& causes) {
  const nlohmann::json emu =
      section.value("emulator", nlohmann::json::object()).value("stats", nlohmann::json());
  if (!emu.is_object()) {
    return;
  }
  const auto [p99, mean] = delay_error(emu);
  // Beyond 1 ms: the emulator's lcore was held off the CPU.
  causes.add("emulator delay error", p99 > 1e6,
             {{"p99_at_most_ns", p99},
              {"mean_ns", mean},
              {"what", "frames released p99 <= " + fmt(p99 / 1e3, 0) + " us late, mean " +
                           fmt(mean / 1e3, 1) + " us"}});
}

void host_drops(const nlohmann::json& live, Causes& causes) {
  const nlohmann::json acc = live.value("accounting", nlohmann::json::object());
  double drops = 0;
  const nlohmann::json dropped = acc.value("dropped", nlohmann::json::object());
  for (const auto& [cause, n] : dropped.items()) {
    const bool host =
        cause.rfind("host ", 0) == 0 || cause.rfind("host/", 0) == 0;  // host a/..., host/socket_overflow
    const bool ring = cause.size() >= 17 && cause.compare(cause.size() - 17, 17, "/rx_ring_overflow") == 0;
    if ((host || ring) && cause.find("after_endpoint_closed") == std::string::npos) {
      drops += n.get<double>();
    }
  }
  const double sent = acc.value("packets_sent", 0.0);
  causes.add("host drops", sent > 0 && drops > 1e-3 * sent,
             {{"packets", drops},
              {"what", fmt(drops, 0) + " packets dropped by the hosts (socket and ring overflows) of " +
                           fmt(sent, 0) + " sent"}});
}

void live_faults(const nlohmann::json& section, Causes& causes) {
  const nlohmann::json faults = section.value("faults", nlohmann::json::array());
  causes.add("live faults", !faults.empty(),
             {{"faults", faults},
              {"what", std::to_string(faults.size()) +
                           " faults of the live run's processes (an endpoint or the emulator lost, a port "
                           "down, an interrupt)"}});
}

void timeouts(const nlohmann::json& sim, const nlohmann::json& live, Causes& causes) {
  const double live_rto = live.value("packets", nlohmann::json::object()).value("timeouts", 0.0);
  const double sim_rto = sim.value("packets", nlohmann::json::object()).value("timeouts", 0.0);
  causes.add("retransmission timeouts", live_rto > sim_rto + 2,
             {{"live", live_rto},
              {"sim", sim_rto},
              {"what", fmt(live_rto, 0) + " live, " + fmt(sim_rto, 0) +
                           " in sim (more live: a process held off the CPU past an RTO)"}});
}

// The order: agreement; else the seed's own draws (live agrees with the simulator's median
// over seeds); else what was measured of the bench; else the model.
std::string twin_verdict(const CctSummary& s, const CctSummary& l, double median_ratio,
                         const std::vector<std::string>& disturbed) {
  // A figure neither run has (a bulk-only flows workload has no completion times) is no
  // disagreement; one only one run has is.
  auto in_band = [](double live_v, double sim_v) {
    return (live_v == 0 && sim_v == 0) || (sim_v > 0 && live_v / sim_v >= 0.85 && live_v / sim_v <= 1.15);
  };
  if (in_band(l.p50_ns, s.p50_ns) && in_band(l.p99_ns, s.p99_ns) && in_band(l.goodput_bps, s.goodput_bps)) {
    return "agree: CCT p50, p99 and goodput within 15 %";
  }
  if (median_ratio >= 0.85 && median_ratio <= 1.15) {
    return "the draws: live is " + fmt(median_ratio, 3) +
           " x the simulator's median over seeds; this seed's loss and jitter fell unlike most, not a model "
           "gap";
  }
  if (!disturbed.empty()) {
    std::string verdict = "a disturbed bench:";
    for (const std::string& d : disturbed) {
      verdict += (verdict.back() == ':' ? " " : ", ") + d;
    }
    return verdict + " (rerun on a quiet machine before reading it as a model gap)";
  }
  return "a model gap: outside 15 % of the simulator (and of its median over seeds) on an undisturbed bench";
}

}  // namespace

nlohmann::json twin_causes(const nlohmann::json& sim, const nlohmann::json& live,
                           const std::vector<nlohmann::json>& sim_seeds) {
  const CctSummary s = cct_summary(sim);
  const CctSummary l = cct_summary(live);
  Causes causes;
  const double median_ratio = seed_spread(s, l, sim_seeds, causes);
  const nlohmann::json section = live.value("live", nlohmann::json::object());
  host_load(section, causes);
  host_cpu(section, causes);
  emulator_delay(section, causes);
  host_drops(live, causes);
  live_faults(section, causes);
  timeouts(sim, live, causes);
  return {{"measured", causes.measured}, {"verdict", twin_verdict(s, l, median_ratio, causes.disturbed)}};
}

nlohmann::json stack_summary(const std::string& stack, const nlohmann::json& result) {
  const CctSummary s = cct_summary(result);
  const nlohmann::json live = result.value("live", nlohmann::json::object());
  const nlohmann::json packets = result.value("packets", nlohmann::json::object());
  std::size_t ops = 0;
  for (const nlohmann::json& op : result.value("collectives", nlohmann::json::array())) {
    (void)op;
    ++ops;
  }
  nlohmann::json row = {{"stack", stack},
                        {"endpoint_kind", live.value("endpoint_kind", "udp")},
                        {"completed", result.value("completed", false)},
                        {"ops_completed", s.ops},
                        {"ops", ops + live.value("unfinished", nlohmann::json::array()).size()},
                        {"cct_p50_ns", s.p50_ns},
                        {"cct_p99_ns", s.p99_ns},
                        {"goodput_bps", s.goodput_bps},
                        {"retransmits", packets.value("retransmits", std::uint64_t{0})},
                        {"faults", live.value("faults", nlohmann::json::array())}};
  if (live.contains("tcp")) {
    const nlohmann::json& t = live.at("tcp");
    row["congestion_control"] = t.at("congestion_control_seen");
    row["max_pacing_rate_bps"] = t.at("max_pacing_rate_bps");
    row["bytes_written"] = t.at("bytes_written");
    row["bytes_read"] = t.at("bytes_read");
    row["bytes_balanced"] = t.at("balanced");
  }
  return row;
}

void check_tcp_congestion_control(const std::string& option, const std::string& name) {
  std::string why;
  if (!endpoints::TcpEndpoint::congestion_control_allowed(name, why)) {
    throw InputError(option, "", why);
  }
}

namespace fs = std::filesystem;

// Runs `argv` (a gradwall command, argv[0] the binary) with the terminal's output; its exit
// code, kTwinCrashed when it ended by a signal.
int run_child(const std::vector<std::string>& argv) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  std::vector<char*> args;
  for (const std::string& a : argv) {
    args.push_back(const_cast<char*>(a.c_str()));
  }
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0].c_str(), &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    throw EnvironmentError("cannot start " + argv[0] + " " + argv[1] + ": " + std::strerror(rc));
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : kTwinCrashed;
}

nlohmann::json read_result(const fs::path& dir) {
  std::ifstream in(dir / "result.json");
  return in ? nlohmann::json::parse(in, nullptr, false) : nlohmann::json(nlohmann::json::value_t::discarded);
}

int run_twin(const std::string& scenario_file, const std::string& out,
             const std::vector<std::string>& extra_args, std::uint64_t seed, std::uint32_t sim_seeds) {
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  fs::create_directories(out);
  int worst = 0;
  std::map<std::string, nlohmann::json> results;
  for (const std::string mode : {"sim", "live"}) {
    const fs::path dir = fs::path(out) / mode;
    std::vector<std::string> argv{self,    "run",        scenario_file, "--mode", mode,
                                  "--out", dir.string(), "--quiet",     "--seed", std::to_string(seed)};
    argv.insert(argv.end(), extra_args.begin(), extra_args.end());
    std::error_code ec;
    fs::remove(dir / "result.json", ec);  // a reused --out: never read the last run's
    const int code = run_child(argv);
    std::cerr << "both: the " << mode << " run exited " << code << "\n";
    worst = std::max(worst, code);
    results[mode] = read_result(dir);
  }
  // The simulator's other seeds (quiet; their exit codes are their checks', not the twin's).
  std::vector<nlohmann::json> others;
  for (std::uint32_t k = 1; k < sim_seeds; ++k) {
    const fs::path dir = fs::path(out) / "sim-seeds" / ("seed-" + std::to_string(seed + k));
    std::error_code ec;
    fs::remove(dir / "result.json", ec);
    const int code = run_child({self, "run", scenario_file, "--mode", "sim", "--out", dir.string(), "--quiet",
                                "--seed", std::to_string(seed + k)});
    if (nlohmann::json r = read_result(dir); !r.is_discarded() && code <= 1) {
      others.push_back(std::move(r));
    }
  }
  if (sim_seeds > 1) {
    std::cerr << "both: the simulator ran " << others.size() + 1 << " seeds (" << seed << " to "
              << seed + sim_seeds - 1 << ")\n";
  }
  if (!results.count("sim") || !results.count("live") || results["sim"].is_discarded() ||
      results["live"].is_discarded()) {
    std::cerr << "both: no agreement: a run wrote no result.json\n";
    return std::max(worst, 3);
  }
  nlohmann::json agreement = twin_agreement(results["sim"], results["live"]);
  agreement["causes"] = twin_causes(results["sim"], results["live"], others);
  std::ofstream(fs::path(out) / "agreement.json") << agreement.dump(1) << "\n";
  auto text = [](const nlohmann::json& v) {
    std::ostringstream os;
    os.precision(3);
    if (v.is_number()) {
      os << std::fixed << v.get<double>();
    } else {
      os << "n/a";
    }
    return os.str();
  };
  std::cout << "agreement (live / sim), " << (fs::path(out) / "agreement.json").string() << ":\n"
            << "  CCT p50  " << text(agreement["ratio"]["cct_p50"]) << "  (sim "
            << text(agreement["sim"]["cct_p50_ns"].get<double>() / 1e6) << " ms, live "
            << text(agreement["live"]["cct_p50_ns"].get<double>() / 1e6) << " ms)\n"
            << "  CCT p99  " << text(agreement["ratio"]["cct_p99"]) << "  (sim "
            << text(agreement["sim"]["cct_p99_ns"].get<double>() / 1e6) << " ms, live "
            << text(agreement["live"]["cct_p99_ns"].get<double>() / 1e6) << " ms)\n"
            << "  goodput  " << text(agreement["ratio"]["goodput"]) << "  (sim "
            << text(agreement["sim"]["goodput_bps"].get<double>() / 1e6) << " Mbit/s, live "
            << text(agreement["live"]["goodput_bps"].get<double>() / 1e6) << " Mbit/s)\n";
  for (const nlohmann::json& c : agreement["causes"]["measured"]) {
    std::cout << "  " << c.at("cause").get<std::string>() << ": " << c.at("what").get<std::string>() << "\n";
  }
  std::cout << "  verdict: " << agreement["causes"]["verdict"].get<std::string>() << "\n";
  return worst;
}

}  // namespace gw
