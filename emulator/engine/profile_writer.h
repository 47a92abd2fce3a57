// Profiles back to JSON: the form the loader (profile.h) reads, with its keys, so that
// parse_profile(profile_to_json(p), file) gives back p and parse_direction(direction_to_json(d))
// gives back d.
//
// Units are chosen for reading: a duration is written in the largest of s, ms, us, ns that
// holds it exactly (delay_ms: 100, jitter_us: 250), a rate in the largest of gbps, mbps, kbps,
// bps (rate_gbps: 10), integers throughout. Settings equal to the loader's defaults are left
// out. Distribution, trace and Mahimahi files are written as the profile named them; a
// relative path is resolved against the folder of the file the JSON is loaded from.
#pragma once

#include <nlohmann/json.hpp>

#include "emulator/engine/spec.h"

namespace gw {

nlohmann::json direction_to_json(const DirectionSpec& dir);

// The whole profile. A direction equal to the other is written once (the loader copies a
// missing direction), and phases are written as RFC 7386 merge patches on the previous state.
nlohmann::json profile_to_json(const Profile& profile);

}  // namespace gw
