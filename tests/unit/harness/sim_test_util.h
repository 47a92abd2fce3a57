// Small scenario builders for simulator tests.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "harness/run/scenario.h"

namespace gw::testutil {

// Two regions a and b, one host each unless `hosts` says otherwise, 10 Gbit/s NICs, joined by
// one WAN link with the given netem arguments; `flows` bulk flows from a to b.
inline nlohmann::json two_regions_json(const std::string& netem, const std::string& cc,
                                       const std::string& duration, int flows,
                                       std::uint64_t limit_bytes = 64 << 20, int hosts = 1) {
  return {{"gradwall", "scenario/v1"},
          {"name", "test"},
          {"seed", 1},
          {"topology",
           {{"regions",
             {{{"name", "a"}, {"hosts", hosts}, {"nic_rate", "10Gbit"}},
              {{"name", "b"}, {"hosts", hosts}, {"nic_rate", "10Gbit"}}}},
            {"wan", {{{"between", {"a", "b"}}, {"netem", netem}, {"limit_bytes", limit_bytes}}}}}},
          {"workload",
           {{"kind", "flows"},
            {"duration", duration},
            {"flows", {{{"from", "a"}, {"to", "b"}, {"count", flows}}}}}},
          {"transport", {{"cc", cc}}}};
}

inline Scenario two_regions(const std::string& netem, const std::string& cc, const std::string& duration,
                            int flows, std::uint64_t limit_bytes = 64 << 20) {
  return parse_scenario(two_regions_json(netem, cc, duration, flows, limit_bytes), "test.json");
}

}  // namespace gw::testutil
