// `gradwall advise SCENARIO.json [--out DIR] [--budget RUNS] [--jobs N] [--capacity]`: from a
// verdict to the cheapest change that passes (docs/guide/advise.md). Searches the remedies
// (harness/advise/space.h), prunes with the α-β model, confirms in the simulator, ranks, and
// writes advice.json, summary.md, advice.html and the settings to paste. When no change in the
// space passes (or with --capacity), bisects the least WAN capacity that would.
#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "core/errors.h"
#include "core/json_reader.h"
#include "harness/advise/advice.h"
#include "harness/advise/search.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/cli/run_points.h"
#include "harness/run/workloads/workload_kind.h"

namespace gw {

namespace {

namespace fs = std::filesystem;
namespace po = boost::program_options;
using nlohmann::json;

// Capacity factors tried, smallest first; the answer is the least that passes.
constexpr double kFactors[] = {1, 1.5, 2, 3, 4, 6, 8, 12, 16};

std::string verdict_at(const json& doc, const std::string& file, double k, const fs::path& dir) {
  json scaled = doc;
  scaled.merge_patch(advise::capacity_value(doc, file, k, dir / "profiles").patch);
  fs::create_directories(dir);
  std::ofstream(dir / "scenario.json") << scaled.dump(2) << "\n";
  const int code = run_points({fs::absolute(dir / "scenario.json")}, {dir}, 1, {}, true).front();
  return code == 0 ? "pass" : code == 1 ? "fail" : "error";
}

// Bisection over kFactors: each step one simulator run at the scenario's length.
advise::CapacityAnswer least_capacity(const json& doc, const std::string& file, const std::string& label,
                                      const fs::path& dir) {
  advise::CapacityAnswer a;
  a.settings = label;
  const std::size_t n = std::size(kFactors);
  a.largest_tried = kFactors[n - 1];
  auto probe = [&](std::size_t i) {
    char name[32];
    std::snprintf(name, sizeof name, "x%g", kFactors[i]);
    const std::string v = verdict_at(doc, file, kFactors[i], dir / name);
    a.steps.emplace_back(kFactors[i], v);
    return v == "pass";
  };
  if (!probe(n - 1)) {
    return a;
  }
  std::size_t lo = 0, hi = n - 1;  // hi passes; lo is not known to pass
  if (probe(0)) {
    hi = 0;
  }
  while (hi > lo + 1) {
    const std::size_t mid = (lo + hi) / 2;
    (probe(mid) ? hi : lo) = mid;
  }
  a.factor = kFactors[hi];
  // Doubling adds the WAN's own capacity (summed over links).
  a.gbps = advise::capacity_value(doc, file, 2, dir / "profiles").added_gbps * kFactors[hi];
  return a;
}

}  // namespace

int cmd_advise(const Args& args) {
  po::options_description opts(
      "gradwall advise SCENARIO.json [options]\n\nSearches the changes a user can make (congestion control, "
      "collective algorithm, NCCL channels and buffer, DDP bucket, DiLoCo sync, path policy, WAN capacity), "
      "prunes with the analytic model, confirms in the simulator and ranks them; writes DIR/advice.json, "
      "summary.md, advice.html, nccl.env, hints.json, k8s.yaml, ray_placement.py and applied.md.\n"
      "Exit 0 when the first choice passes the scenario's checks, 1 when no change does.\nOptions");
  std::string out = "gradwall-out/advise";
  advise::SearchOptions so;
  so.jobs = std::max(1U, std::thread::hardware_concurrency());
  opts.add_options()("help,h", "this help")("out", po::value<std::string>(&out)->default_value(out),
                                            "output folder")(
      "budget", po::value<double>(&so.budget)->default_value(so.budget),
      "simulator runs of the scenario's length at most (screening runs count their share)")(
      "jobs", po::value<unsigned>(&so.jobs)->default_value(so.jobs), "runs at once")(
      "axes", po::value<std::string>(),
      "comma-separated axes to search: cc, algorithm, nccl, bucket, sync, paths, capacity (default: all "
      "that apply)")("capacity", "also find the least WAN capacity at which the scenario passes (bisection)")(
      "scenario", po::value<std::string>(), "scenario file");
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  if (!vm.count("scenario")) {
    throw InputError("gradwall advise", "", "give a scenario file");
  }
  if (!(so.budget >= 1)) {
    throw InputError("--budget", "", "at least 1 simulator run");
  }
  if (vm.count("axes")) {
    std::string list = vm["axes"].as<std::string>() + ",";
    std::string one;
    for (const char c : list) {
      if (c != ',') {
        one += c;
        continue;
      }
      static const std::vector<std::string> kKnown{"cc",   "algorithm", "nccl",    "bucket",
                                                   "sync", "paths",     "capacity"};
      if (std::find(kKnown.begin(), kKnown.end(), one) == kKnown.end()) {
        throw InputError("--axes", "",
                         "unknown axis \"" + one + "\" (cc, algorithm, nccl, bucket, sync, paths, capacity)");
      }
      so.axes.push_back(one);
      one.clear();
    }
  }
  const std::string file = vm["scenario"].as<std::string>();
  const json doc = read_json_file(file);
  const Scenario original = parse_scenario(doc, file);
  if (!workload_kind(original.workload.kind).iterations) {
    throw InputError(file, "$.workload.kind",
                     "advise ranks changes by GPU idle time per iteration: a \"" + original.workload.kind +
                         "\" run has no iterations");
  }
  fs::create_directories(out);
  so.out = out;
  const advise::Search s = advise::search(doc, file, so);
  std::vector<advise::CapacityAnswer> capacity;
  advise::Advice a = advise::build_advice(s, original, file, capacity, out);
  if (vm.count("capacity") || !a.doc["a_change_passes"].get<bool>()) {
    json own = doc;
    absolute_profiles(own, file);
    capacity.push_back(
        least_capacity(own, file, "as the scenario says", fs::path(out) / "capacity" / "original"));
    const json& first = a.doc["first_choice"];
    if (!first.is_null() && first["change"] != "as the scenario says") {
      const json chosen = read_json_file(
          (fs::path(out) / first["measured"]["run"].get<std::string>() / "scenario.json").string());
      capacity.push_back(least_capacity(chosen, file, first["change"].get<std::string>(),
                                        fs::path(out) / "capacity" / "first-choice"));
    }
    a = advise::build_advice(s, original, file, capacity, out);
  }
  std::cout << advise::write_advice(a, original, out);
  std::cout << "wrote " << out << "/advice.json, summary.md, advice.html, nccl.env, hints.json, k8s.yaml, "
            << "ray_placement.py" << (a.doc["applied"].is_object() ? ", applied.md" : "") << "\n";
  return a.doc["a_change_passes"].get<bool>() ? kExitOk : kExitCheckFailed;
}

}  // namespace gw
