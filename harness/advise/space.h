// The remedies advise searches (docs/guide/advise.md "The space"): axes built from the
// scenario, each value a JSON merge patch (RFC 7396) applied to it, value 0 of every axis
// "as the scenario says". A point is one value per axis.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gw::advise {

struct Value {
  std::string label;      // "cc=bbr", "NCCL_BUFFSIZE=16777216"; "" for value 0
  nlohmann::json patch;   // merge patch onto the scenario
  double added_gbps = 0;  // WAN capacity this value adds, summed over links (each its faster direction)
};

struct Axis {
  std::string name;  // "cc", "algorithm", "nccl", "bucket", "sync", "paths", "capacity"
  std::vector<Value> values;
  // cc only: the analytic model cannot tell its values apart, the simulator must.
  bool simulated_only = false;
};

// The axes for this scenario: those its workload kind and topology give a meaning to.
// `profiles_dir` receives the scaled copies of WAN profiles the capacity axis needs.
std::vector<Axis> remedy_space(const nlohmann::json& scenario, const std::string& file,
                               const std::filesystem::path& profiles_dir);

// Every WAN link's rate and buffer times k (profiles copied, scaled, into profiles_dir).
Value capacity_value(const nlohmann::json& scenario, const std::string& file, double k,
                     const std::filesystem::path& profiles_dir);

// The scenario with one value per axis applied, in axis order.
nlohmann::json apply(const nlohmann::json& scenario, const std::vector<Axis>& axes,
                     const std::vector<std::size_t>& choice);

// "cc=bbr algorithm=hierarchical", or "as the scenario says".
std::string label_of(const std::vector<Axis>& axes, const std::vector<std::size_t>& choice);

}  // namespace gw::advise
