// advise's search (docs/guide/advise.md "How it searches"): every point of the space timed by
// the analytic model, the promising ones confirmed in the simulator, congestion controls
// screened by successive halving. Same scenario and seed, same search, same advice.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/advise/predict.h"
#include "harness/advise/space.h"

namespace gw::advise {

// What one simulator run of a point measured (its report.json).
struct Measured {
  bool full = false;  // the scenario's own iterations; else a screening run
  int exit_code = 0;
  std::string verdict;  // "pass", "fail" or "error"
  double gpu_idle_fraction = 1;
  double idle_ns = 0;  // exposed communication per iteration
  std::optional<double> slowdown;
  double cct_p99_ns = 0;         // the slowest op kind's p99
  double wan_drop_fraction = 0;  // packets dropped on WAN hops over packets into them
  std::vector<std::pair<std::string, bool>> checks;
  std::string out;  // the run's folder, relative to advise's --out
};

struct Point {
  std::vector<std::size_t> choice;
  std::string label;
  nlohmann::json scenario;
  Prediction predicted;
  double added_gbps = 0;
  double ranks = 0;                   // the simulated GPUs (cost.gpus, when set, prices more)
  std::vector<Measured> runs;         // in the order they ran
  const Measured* best_full() const;  // the run at the scenario's length
  const Measured* screen() const;     // the screening run
};

struct SearchOptions {
  std::filesystem::path out;
  double budget = 12;  // simulator runs of the scenario's length (a screening run counts less)
  unsigned jobs = 1;
  // A point whose predicted idle is more than this factor above the best prediction is not
  // simulated: the α-β model is a guide, not a bound, so the margin is generous.
  double prune_factor = 1.25;
  // The axes to search (names as in space.h); empty: every axis the scenario gives a meaning.
  std::vector<std::string> axes;
};

struct Search {
  std::vector<Axis> axes;
  std::vector<Point> points;         // every valid point, in space order; points[0] is the scenario
  std::vector<std::string> refused;  // points the scenario's checks refuse, with the reason
  double runs_used = 0;              // in units of the budget
};

// Builds the space, predicts every point, and confirms in the simulator as the budget allows.
Search search(const nlohmann::json& scenario, const std::string& file, const SearchOptions& options);

}  // namespace gw::advise
