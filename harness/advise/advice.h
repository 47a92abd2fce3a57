// What advise writes (docs/guide/advise.md "Outputs"): advice.json (reports/advice.schema.json),
// summary.md, advice.html, and the settings a user pastes: nccl.env, hints.json, k8s.yaml,
// ray_placement.py; applied.md compares the first choice's report with the scenario's own.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/advise/search.h"
#include "harness/run/scenario.h"

namespace gw::advise {

// The least WAN capacity factor at which the scenario passes (--capacity).
struct CapacityAnswer {
  std::string settings;          // "as the scenario says" or the first choice's label
  std::optional<double> factor;  // none: not even at the largest factor tried
  double largest_tried = 0;
  double gbps = 0;  // the WAN rate that factor gives (sum over links and directions / 2)
  std::vector<std::pair<double, std::string>> steps;  // factor, verdict
};

struct Advice {
  nlohmann::json doc;                // advice.json
  std::vector<std::size_t> ranking;  // points with a run at full length, best first
};

Advice build_advice(const Search& s, const Scenario& original, const std::string& file,
                    const std::vector<CapacityAnswer>& capacity, const std::filesystem::path& out);

// Writes every output into `out`; returns the summary printed on stdout.
std::string write_advice(const Advice& a, const Scenario& original, const std::filesystem::path& out);

}  // namespace gw::advise
