// advice.html (gradwall advise, docs/guide/advise.md): the ranked changes, and slowdown (or
// idle time) against monthly cost (or added WAN capacity) with the Pareto front marked.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace gw::reports {

std::string write_advice_html(const nlohmann::json& advice);

}  // namespace gw::reports
