#include "harness/live/live_profile.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "core/errors.h"
#include "core/rng.h"
#include "emulator/engine/in_series.h"
#include "emulator/fabric/path_ports.h"

namespace gw {

namespace {

const fabric::RouteSpec* route_between(const Scenario& s, const std::string& from, const std::string& to) {
  for (const fabric::RouteSpec& r : s.topology.routes) {
    if (r.from == from && r.to == to && !r.paths.empty()) {
      return &r;
    }
  }
  return nullptr;
}

std::vector<std::string> chain(const std::string& from, const std::vector<std::string>& via,
                               const std::string& to) {
  std::vector<std::string> nodes{from};
  nodes.insert(nodes.end(), via.begin(), via.end());
  nodes.push_back(to);
  return nodes;
}

// One WAN link's direction from node `x` to node `y` as it is from `at` on (its phases).
struct LinkStep {
  const fabric::WanLinkSpec* link = nullptr;
  bool forward = true;  // x is the link's a
  std::string name;

  const DirectionSpec& at(Duration t) const {
    const DirectionSpec* d = forward ? &link->profile.a_to_b : &link->profile.b_to_a;
    for (const PhaseSpec& ph : link->profile.phases) {
      if (ph.at <= t) {
        d = forward ? &ph.a_to_b : &ph.b_to_a;
      }
    }
    return *d;
  }
};

std::vector<LinkStep> steps(const Scenario& s, const std::vector<std::string>& nodes,
                            const std::string& where) {
  std::vector<LinkStep> out;
  for (std::size_t i = 0; i + 1 < nodes.size(); ++i) {
    const std::string& x = nodes[i];
    const std::string& y = nodes[i + 1];
    const auto it = std::find_if(
        s.topology.wan.begin(), s.topology.wan.end(),
        [&](const fabric::WanLinkSpec& l) { return (l.a == x && l.b == y) || (l.a == y && l.b == x); });
    if (it == s.topology.wan.end()) {
      throw InputError(s.file, where, "no WAN link between " + x + " and " + y);
    }
    out.push_back({&*it, it->a == x, x + " -> " + y});
  }
  return out;
}

DirectionSpec series_at(const Scenario& s, const std::vector<LinkStep>& path, Duration t,
                        const std::string& where) {
  std::vector<SeriesLink> links;
  for (const LinkStep& l : path) {
    links.push_back({l.name, &l.at(t)});
  }
  try {
    return in_series(links);
  } catch (const std::invalid_argument& e) {
    throw InputError(s.file, where,
                     std::string("live mode carries each path as one emulator class: ") + e.what());
  }
}

ClassMatch path_match(std::uint32_t k) {
  ClassMatch m;
  m.protocol = 17;
  const std::uint16_t first = fabric::path_port(k, 0);
  m.src_ports.push_back({first, static_cast<std::uint16_t>(first + fabric::kPathPortSpan - 1)});
  return m;
}

Profile paths_profile(const Scenario& s, const std::vector<LivePath>& paths) {
  std::vector<std::array<std::vector<LinkStep>, 2>> chains;
  std::map<Duration, std::string> changes;  // when a link changes phase: the phases' names
  for (std::size_t k = 0; k < paths.size(); ++k) {
    chains.push_back({steps(s, paths[k].a_to_b, "$.routes"), steps(s, paths[k].b_to_a, "$.routes")});
    for (const auto& dir : chains.back()) {
      for (const LinkStep& l : dir) {
        for (const PhaseSpec& ph : l.link->profile.phases) {
          std::string& name = changes[ph.at];
          if (name.find(ph.name) == std::string::npos) {
            name += (name.empty() ? "" : " + ") + ph.name;
          }
        }
      }
    }
  }
  const auto directions_at = [&](Duration t) {
    std::vector<ClassDirections> out;
    for (std::size_t k = 0; k < chains.size(); ++k) {
      const std::string where = "$.routes (path " + std::to_string(k) + ")";
      out.push_back({series_at(s, chains[k][0], t, where), series_at(s, chains[k][1], t, where)});
    }
    return out;
  };
  Profile p;
  p.name = s.name + " paths";
  p.description = "live: one class per path between " + s.topology.regions[0].name + " and " +
                  s.topology.regions[1].name + ", matched on the UDP source ports it owns";
  const std::vector<ClassDirections> base = directions_at(Duration{0});
  p.a_to_b = base[0].a_to_b;
  p.b_to_a = base[0].b_to_a;
  for (std::uint32_t k = 0; k < base.size(); ++k) {
    p.classes.push_back({path_class_name(k), path_match(k), base[k].a_to_b, base[k].b_to_a});
  }
  for (const auto& [at, name] : changes) {
    PhaseSpec ph;
    ph.at = at;
    ph.name = name;
    ph.classes = directions_at(at);
    ph.a_to_b = ph.classes[0].a_to_b;
    ph.b_to_a = ph.classes[0].b_to_a;
    p.phases.push_back(std::move(ph));
  }
  return p;
}

}  // namespace

std::vector<TimedProfile> take_phases(Profile& p) {
  std::vector<TimedProfile> out;
  for (const PhaseSpec& ph : p.phases) {
    TimedProfile t{ph.at, ph.name, p};
    t.profile.phases.clear();
    t.profile.a_to_b = ph.a_to_b;
    t.profile.b_to_a = ph.b_to_a;
    for (std::size_t k = 0; k < ph.classes.size() && k < t.profile.classes.size(); ++k) {
      t.profile.classes[k].a_to_b = ph.classes[k].a_to_b;
      t.profile.classes[k].b_to_a = ph.classes[k].b_to_a;
    }
    t.profile.name = p.name + " (" + ph.name + ")";
    out.push_back(std::move(t));
  }
  p.phases.clear();
  return out;
}

std::string path_class_name(std::uint32_t k) {
  return "path" + std::to_string(k);
}

std::vector<LivePath> live_paths(const Scenario& s) {
  const std::string& a = s.topology.regions[0].name;
  const std::string& b = s.topology.regions[1].name;
  const fabric::RouteSpec* forward = route_between(s, a, b);
  const fabric::RouteSpec* back = route_between(s, b, a);
  if (forward == nullptr && back == nullptr) {
    return {};
  }
  const std::size_t n = forward != nullptr ? forward->paths.size() : back->paths.size();
  if (forward != nullptr && back != nullptr && back->paths.size() != n) {
    throw InputError(s.file, "$.routes",
                     "live mode carries path k of both directions in one emulator class: the routes " + a +
                         " -> " + b + " and " + b + " -> " + a + " need as many paths (" + std::to_string(n) +
                         " and " + std::to_string(back->paths.size()) + ")");
  }
  std::vector<LivePath> out(n);
  for (std::size_t k = 0; k < n; ++k) {
    if (forward != nullptr) {
      out[k].a_to_b = chain(a, forward->paths[k], b);
    } else {
      out[k].a_to_b = chain(b, back->paths[k], a);
      std::reverse(out[k].a_to_b.begin(), out[k].a_to_b.end());
    }
    if (back != nullptr) {
      out[k].b_to_a = chain(b, back->paths[k], a);
    } else {
      out[k].b_to_a = out[k].a_to_b;
      std::reverse(out[k].b_to_a.begin(), out[k].b_to_a.end());
    }
  }
  return out;
}

Profile emu_profile(const Scenario& s) {
  const std::vector<LivePath> paths = live_paths(s);
  Profile p;
  if (!paths.empty()) {
    p = paths_profile(s, paths);
  } else {
    const fabric::WanLinkSpec& link = s.topology.wan.front();
    p = link.profile;
    if (link.a != s.topology.regions[0].name) {
      if (!p.phases.empty()) {
        throw InputError(s.file, "$.topology.wan[0]",
                         "live mode: write this link as between [\"" + s.topology.regions[0].name + "\", \"" +
                             s.topology.regions[1].name +
                             "\"] (its profile has phases, which are not flipped)");
      }
      std::swap(p.a_to_b, p.b_to_a);
    }
  }
  // Each direction seeded as the simulator seeds that direction's WAN hop (network.cc), from
  // the scenario's seed (--seed): the same draws live and in the simulator (common random
  // numbers, docs/profiles.md "Determinism"); a profile's own seed would give every live run
  // the same draws whatever the seed.
  const std::string& a = s.topology.regions[0].name;
  const std::string& b = s.topology.regions[1].name;
  p.seed = s.seed ^ hash_name("wan " + a + "->" + b);
  p.seed_b_to_a = s.seed ^ hash_name("wan " + b + "->" + a);
  return p;
}

}  // namespace gw
