#include "harness/run/steering_result.h"

namespace gw {

static void to_json(nlohmann::json& j, const RoutePathResult& p) {
  j = {{"from", p.from},
       {"to", p.to},
       {"index", p.index},
       {"via", p.via},
       {"hops", p.hops},
       {"capacity_bps", p.capacity_bps},
       {"bytes", p.bytes},
       {"weight", p.weight},
       {"rate_bps", p.rate_bps},
       {"utilization", p.utilization},
       {"queue_pairs", p.queue_pairs}};
}

static void to_json(nlohmann::json& j, const SteeringMove& m) {
  j = {{"flow", m.flow}, {"from", m.from}, {"to", m.to}, {"lag_ns", m.lag_ns}};
}

static void to_json(nlohmann::json& j, const SteeringDecision& d) {
  j = {{"t_ns", d.t_ns}, {"from", d.from}, {"to", d.to}, {"weights", d.weights}, {"moves", d.moves}};
}

static void to_json(nlohmann::json& j, const SteeringEvent& e) {
  j = {{"t_ns", e.t_ns},
       {"from", e.from},
       {"to", e.to},
       {"index", e.index},
       {"kind", e.kind},
       {"capacity_bps", e.capacity_bps},
       {"reaction_ns", e.reaction_ns}};
}

void to_json(nlohmann::json& j, const SteeringResult& s) {
  j = {{"policy", s.policy}, {"interval_ns", ns_of(s.interval)}, {"t_ns", s.t_ns},
       {"paths", s.paths},   {"decisions", s.decisions},         {"events", s.events},
       {"moves", s.moves}};
}

}  // namespace gw
