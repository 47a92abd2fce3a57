// netem syntax in and out: `tc qdisc ... netem ARGS` (tc-netem(8)) to a DirectionSpec, and a
// DirectionSpec back to netem arguments.
//
// Reading follows iproute2 tc/q_netem.c netem_parse_opt: keywords may be abbreviated to any
// prefix, resolved in iproute2's order (matches(): "d" is delay, "di" distribution, "s" seed);
// optional values are taken only when the next word starts with a digit (NEXT_IS_NUMBER); a
// bare number is a percentage for probabilities, microseconds for delay/jitter (tc-netem(8)
// and iproute2 before 6.9; 6.9 reads it as nanoseconds, so give a unit), nanoseconds for slot
// times, bits per second for rates; a keyword given twice keeps its last value. What
// iproute2 rejects is rejected with the same meaning, as InputError("netem", "argument N
// (`word`)", reason). Values tc would accept but a gradwall profile cannot hold (limit 0, a
// seed above 2^63-1, overheads outside the profile's ranges, delays above 3600s, loss-state
// rows summing above 1) are rejected as well, so that the result always writes to a profile
// that loads. `distribution uniform` is accepted (netem's default; tc ships no uniform.dist).
//
// Mapping (docs/references.md §1): delay, jitter, correlation, distribution and reorder ->
// DelaySettings (reorder_policy netem); loss/drop and ecn -> LossSettings; duplicate,
// corrupt -> ChanceSettings; rate -> RateSettings (netem keeps whole bytes per second, so the
// rate is rounded down to a multiple of 8 bit/s); limit -> DirectionSpec::limit_packets, 1000
// when not given (netem's default, which `tc qdisc show` always prints); slot -> SlotSettings.
// Settings netem would ignore (a probability that rounds to 0 in netem's 2^-32 fixed point, a
// rate under one byte per second) are left out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "emulator/engine/spec.h"

namespace gw {

// netem's packet limit when `limit` is not given (netem_parse_opt: opt.limit = 1000).
inline constexpr std::uint64_t kNetemDefaultLimit = 1000;

struct NetemResult {
  DirectionSpec dir;
  std::optional<std::uint64_t> seed;  // netem `seed N`, for Profile::seed
};

// Splits a netem argument string on blanks (space, tab, newline); no quoting.
std::vector<std::string> split_args(std::string_view text);

// Reads netem arguments (the words after `netem`). Distribution names are looked up with
// load_distribution (emulator/engine/distribution.h).
NetemResult netem_to_direction(const std::vector<std::string>& args);

enum class NetemForm : std::uint8_t {
  // Exactly what `tc qdisc show` prints for the qdisc (q_netem.c netem_print_opt as of
  // iproute2 6.9, which has `seed` and 64-bit delays): "limit 1000 delay 100ms  10ms 25% loss
  // 0.3% 25%". Lossy where tc is (three significant digits for times, truncated rates),
  // without distribution names, and not always valid input ("loss state p13 1% p31 ...").
  // iproute2 before 6.9 shows delay and jitter after a trip through 64 ns psched ticks
  // truncated to whole microseconds (delay 100us shows as 99us); that is not reproduced.
  kShow,
  // Arguments for `tc qdisc add ... netem` that read back to the same settings: exact units,
  // positional loss-model and rate-overhead values, distribution names.
  kCommand,
};

struct NetemPrintOptions {
  NetemForm form = NetemForm::kShow;
  std::optional<std::uint64_t> seed;  // printed as `seed N` (kernels >= 6.6 always show one)
};

// Prints a direction as netem arguments. Whatever netem cannot express (AQMs, queue limits in
// bytes or time, microbursts, incast, rate traces, reorder_policy preserve, distance_km,
// distribution files, no packet limit...) is appended to `not_expressible` as a short phrase;
// the printed arguments then describe the closest netem.
std::string direction_to_netem(const DirectionSpec& dir, std::vector<std::string>& not_expressible,
                               const NetemPrintOptions& options = {});

}  // namespace gw
