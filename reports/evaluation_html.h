// evaluation.html (`gradwall train --evaluate POLICY --html FILE`, docs/cc.md "learned"): the
// learned policy beside acc, acc2, bbr and cubic on each held-out path, with issue 20's goals
// checked against acc2 on each.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace gw::reports {

// Goals, each against acc2 on the same path (docs/cc.md "learned").
inline constexpr double kLearnedMinUtilization = 0.9;  // x acc2's utilization
inline constexpr double kLearnedMaxQueue = 1.2;        // x acc2's p99 queueing delay
inline constexpr double kLearnedMinJain = 0.9;         // where a path has two flows

// `evaluation`: {"policy", "weights_fnv1a64", "rows": [{path, cc, utilization, queue_p99_ns,
// congestion_loss, jain, reward, flows}]} as `--evaluate --out` writes it.
std::string write_evaluation_html(const nlohmann::json& evaluation);

}  // namespace gw::reports
