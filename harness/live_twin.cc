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

#include "core/errors.h"
#include "generators/endpoints/tcp_endpoint.h"
#include "harness/live_runner.h"

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

// Nearest-rank percentiles over the completed ops: the collectives, else the point-to-point
// transfers (a pipeline), else the flows.
CctSummary cct_summary(const nlohmann::json& result) {
  std::vector<double> ccts;
  double bytes = 0;
  double total_ns = 0;
  const char* ops =
      result.value("collectives", nlohmann::json::array()).empty() ? "transfers" : "collectives";
  for (const nlohmann::json& op : result.value(ops, nlohmann::json::array())) {
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
  if (ccts.empty()) {
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

int run_twin(const std::string& scenario_file, const std::string& out,
             const std::vector<std::string>& extra_args) {
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  fs::create_directories(out);
  int worst = 0;
  std::map<std::string, nlohmann::json> results;
  for (const std::string mode : {"sim", "live"}) {
    const fs::path dir = fs::path(out) / mode;
    std::vector<std::string> argv{self, "run",   scenario_file, "--mode",
                                  mode, "--out", dir.string(),  "--quiet"};
    argv.insert(argv.end(), extra_args.begin(), extra_args.end());
    // Output to the terminal: the runs say what they do.
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    std::vector<char*> args;
    for (const std::string& a : argv) {
      args.push_back(const_cast<char*>(a.c_str()));
    }
    args.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, self.c_str(), &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
      throw EnvironmentError("cannot start gradwall run --mode " + mode + ": " + std::strerror(rc));
    }
    int status = 0;
    waitpid(pid, &status, 0);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : kTwinCrashed;
    std::cerr << "both: the " << mode << " run exited " << code << "\n";
    worst = std::max(worst, code);
    if (std::ifstream in(dir / "result.json"); in) {
      results[mode] = nlohmann::json::parse(in, nullptr, false);
    }
  }
  if (!results.count("sim") || !results.count("live") || results["sim"].is_discarded() ||
      results["live"].is_discarded()) {
    std::cerr << "both: no agreement: a run wrote no result.json\n";
    return std::max(worst, 3);
  }
  const nlohmann::json agreement = twin_agreement(results["sim"], results["live"]);
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
  return worst;
}

}  // namespace gw
