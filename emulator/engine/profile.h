// Profiles: loading and validating the JSON form (docs/profiles.md) into the typed model in
// spec.h. One loader serves every command (validate, probe, replay, emu, run), so every
// command reports bad input the same way: file, JSON path, reason (InputError).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "emulator/engine/spec.h"

namespace gw {

class JsonReader;

inline constexpr const char* kProfileVersion = "profile/v1";

// Light travels through fibre at about 200,000 km/s (docs/references.md §5): 5 us per km, how
// the loader turns distance_km into delay and the writer turns it back.
inline constexpr double kFibreNsPerKm = 5000.0;

// Reads and validates a profile file. Relative trace and distribution paths are resolved
// against the profile's folder.
Profile load_profile(const std::string& file);

// Validates an already parsed profile document; `file` names it in errors and anchors
// relative paths (its folder).
Profile parse_profile(const nlohmann::json& doc, const std::string& file);

// Parses one direction object (the value of "a_to_b"), e.g. for a scenario's WAN link.
DirectionSpec parse_direction(const nlohmann::json& j, const std::string& file, const std::string& path);

// Parses a class's "match" object.
ClassMatch parse_match(const JsonReader& r);

// Parses "198.18.0.0/24", "198.18.0.2", "2001:db8::/32".
Prefix parse_prefix(const std::string& text, const std::string& file, const std::string& path);
bool prefix_contains(const Prefix& p, const IpAddress& a);

// Reads a rate trace ("seconds,bits_per_second" per line) and a Mahimahi trace (one
// millisecond timestamp per line).
std::vector<RateTracePoint> load_rate_trace(const std::string& file);
std::vector<Duration> load_mahimahi_trace(const std::string& file);

}  // namespace gw
