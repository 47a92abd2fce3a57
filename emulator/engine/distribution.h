// netem delay-distribution tables: iproute2's `.dist` text format and netem's table lookup.
//
// Format (iproute2 tc/q_netem.c get_distribution, tc-netem(8)): `#` starts a comment that runs
// to the end of the line; the rest is whitespace-separated signed 16-bit integers, the inverse
// CDF of a mean-0, sigma-1 distribution scaled by NETEM_DIST_SCALE (8192); at most 16384
// (NETEM_DIST_MAX) entries. netem draws an entry uniformly (u % size) and scales it by the
// configured jitter (sch_netem.c tabledist).
//
// Shipped tables (profiles/dist/, made by tools/gen-dist.cc) are looked up before the system's
// tc folder, so results do not depend on which iproute2 the host has.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "emulator/engine/spec.h"

namespace gw {

inline constexpr std::int64_t kNetemDistScale = 8192;  // NETEM_DIST_SCALE
inline constexpr std::size_t kNetemDistMax = 16384;    // NETEM_DIST_MAX

// Parses `.dist` text. `file` names the source in errors, which are InputError(file,
// "line N", reason) for a token that is not an integer, a value outside [-32768, 32767] and
// the 16385th value, and InputError(file, "", ...) for a table without values.
DistributionTable parse_distribution(std::string_view text, const std::string& file, std::string name);

// Reads and parses one `.dist` file; an unreadable file is an InputError naming it.
DistributionTable read_distribution_file(const std::string& path);

// Folders searched for "<name>.dist", in order: the project's shipped tables
// (data_search_dirs("dist")), then the system tc folders (/usr/lib/x86_64-linux-gnu/tc,
// /usr/lib/tc, /usr/lib64/tc, /usr/share/tc).
std::vector<std::string> distribution_search_dirs();

// "uniform" -> empty table (netem's default uniform jitter). Text containing '/' or ending in
// ".dist" -> that file, used as given (the profile loader resolves relative paths first). Any
// other text is a table name ("normal", "pareto", "paretonormal", "experimental", ...) looked
// up as "<name>.dist" in distribution_search_dirs(); an unknown name is an InputError that lists
// the folders searched. The result's `name` is the name or the path as given.
DistributionTable load_distribution(std::string_view name_or_path);

// One jitter sample from a table entry, as sch_netem.c tabledist computes
// sigma * t / NETEM_DIST_SCALE: split sigma into quotient and remainder by the scale so the
// product cannot overflow, and round the remainder's part half away from zero. Units are those
// of sigma (gradwall: nanoseconds). Exact for |sigma| < 2^47.
constexpr std::int64_t netem_table_offset(std::int64_t sigma, std::int16_t t) {
  std::int64_t x = (sigma % kNetemDistScale) * t;
  x += x >= 0 ? kNetemDistScale / 2 : -kNetemDistScale / 2;
  return x / kNetemDistScale + (sigma / kNetemDistScale) * t;
}

}  // namespace gw
