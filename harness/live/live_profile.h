// The emulator's profile for a live run (live_runner.cc): the scenario's WAN between the two
// sides, side A = region 0.
//   - One WAN link: its profile, seeded from the scenario's seed.
//   - A route with several `paths` (docs/steering.md "Live"): one class per path, matched on
//     the UDP source ports the path owns (emulator/fabric/path_ports.h) with each direction its
//     links in series (emulator/engine/in_series.h); traffic that names no path (a ping) takes
//     path 0's settings. Every time a link of some path changes phase is a phase of the
//     profile, with each class as it is from then on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "emulator/engine/spec.h"
#include "harness/run/scenario.h"

namespace gw {

// Throws InputError naming the scenario's file and JSON path when a WAN link is not between
// the sides (one link) or a path's links do not compose.
Profile emu_profile(const Scenario& s);

// The paths between the sides, each its nodes from side A to side B (region 0, relays...,
// region 1) and from B to A; empty when the scenario routes them over one path.
struct LivePath {
  std::vector<std::string> a_to_b;
  std::vector<std::string> b_to_a;
};
std::vector<LivePath> live_paths(const Scenario& s);

// With several paths the coordinator, not the emulator's own clock, changes the links at the
// phases' times (run time, as the simulator does; the emulator starts a while before the run):
// the profile without its phases, and per phase the whole profile from then on.
struct TimedProfile {
  Duration at{0};
  std::string name;
  Profile profile;
};
std::vector<TimedProfile> take_phases(Profile& p);

// The class name of path `k` in the profile.
std::string path_class_name(std::uint32_t k);

}  // namespace gw
