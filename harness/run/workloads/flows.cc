// "flows": bulk and finite flows for a fixed time (docs/scenarios.md "flows"), and the flow
// entries that background traffic shares with them.
#include <tuple>
#include <utility>

#include "harness/run/workloads/kinds.h"
#include "harness/run/workloads/reading.h"

namespace gw {

FlowSpec read_flow(const JsonReader& f, const fabric::TopologySpec& topo) {
  FlowSpec flow;
  flow.from = f.string("from");
  flow.to = f.string("to");
  for (const auto& [key, name] : {std::pair{"from", &flow.from}, {"to", &flow.to}}) {
    if (!has_region(topo, *name)) {
      f.fail(key, "no region named \"" + *name + "\" with hosts");
    }
  }
  for (const auto& [key, host, region] :
       {std::tuple{"from_host", &flow.from_host, flow.from}, {"to_host", &flow.to_host, flow.to}}) {
    if (const auto h = f.optional_integer(key, 0, 65535)) {
      const auto n = hosts_of(topo, region);
      if (*h >= n) {
        f.fail(key, "region \"" + region + "\" has " + std::to_string(n) + " hosts (0 to " +
                        std::to_string(n - 1) + "), got " + std::to_string(*h));
      }
      *host = static_cast<std::uint32_t>(*h);
    }
  }
  if (flow.from == flow.to && flow.from_host && flow.to_host && *flow.from_host == *flow.to_host) {
    f.fail("to_host", "a flow from a host to itself");
  }
  if (flow.from == flow.to && hosts_of(topo, flow.from) < 2) {
    f.fail("to",
           "region \"" + flow.to + "\" has one host: a flow inside it would go from the host to itself");
  }
  flow.count = static_cast<std::uint32_t>(f.optional_integer("count", 1, 100000).value_or(1));
  flow.cc = f.optional_string("cc").value_or("");
  flow.cc_params = read_cc_params(f, "cc_params");
  default_learned_policy(f, flow.cc, flow.cc_params);
  flow.start = f.duration("start").value_or(Duration{0});
  flow.bytes = f.bytes("size", 1, std::uint64_t{1} << 50).value_or(0);
  return flow;
}

namespace kinds {

void read_flows(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec) {
  for (const JsonReader& f : w.objects("flows")) {
    FlowSpec flow = read_flow(f, topo);
    f.finish();
    spec.flows.push_back(flow);
  }
  if (spec.flows.empty()) {
    w.fail("flows", "needs at least one flow");
  }
}

}  // namespace kinds
}  // namespace gw
