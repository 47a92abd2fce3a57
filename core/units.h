// Quantities in iproute2 `tc` syntax: parsing as `tc qdisc add` does and printing as
// `tc qdisc show` does, so that gradwall reads netem command lines and prints what tc would.
// Shared by the netem translator (emulator/engine/netem.h) and the CLI.
//
// Sources (iproute2, read for the semantics; this is an independent implementation):
//   lib/utils_math.c  get_rate64, get_size64 (suffix tables)
//   lib/utils.c       get_time, get_time64, print_time, print_time64
//   tc/tc_util.c      parse_percent
//   lib/json_print.c  print_color_rate (what tc_print_rate prints)
//   tc/q_netem.c      set_percent / __print_percent (2^32 - 1 fixed point, "%g%%")
//
// Numbers are read like strtod (so "1e3", "0x10", "+5" are numbers, as in tc); suffixes are
// case-insensitive. Every parser returns nullopt for text tc rejects, and also for negative,
// non-finite or out-of-range values (tc would wrap those around silently).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/rate.h"
#include "core/time.h"

namespace gw {

// ---- parsing ----------------------------------------------------------------------------

// A rate as tc get_rate64. Bare number = bit/s. Bit units: bit, kbit, mbit, gbit, tbit (powers
// of 1000), kibit, mibit, gibit, tibit (powers of 1024). Byte units (x 8): bps, kbps, mbps,
// gbps, tbps, kibps, mibps, gibps, tibps -- tc's "bps" is BYTES per second. A trailing '%'
// (tc's share of the device speed) is not accepted: it needs a device.
// The result is the bit rate rounded to a whole bit/s; tc itself keeps whole bytes per second
// (netem_to_direction applies that rounding where netem would).
std::optional<BitRate> parse_rate(std::string_view text);

// A time as tc get_time (netem delay and jitter). Bare number = MICROSECONDS. Units: s, sec,
// secs, ms, msec, msecs, us, usec, usecs. No "ns": tc get_time rejects it. Rounded to 1 ns.
std::optional<Duration> parse_time(std::string_view text);

// A time as tc get_time64 (netem slot). Bare number = NANOSECONDS. Units as parse_time plus
// ns, nsec, nsecs. Rounded to 1 ns.
std::optional<Duration> parse_time64(std::string_view text);

// A size in bytes as tc get_size64. Bare number = bytes. b; k, kb (1024); m, mb (1024^2);
// g, gb (1024^3); kbit, mbit, gbit = 1024^n / 8 bytes. Fractions round down, as in tc.
std::optional<std::uint64_t> parse_size(std::string_view text);

// A probability written as tc parse_percent reads it: "1%" and "1" both mean 1 % (a bare
// number is a percentage too). Returns the probability in [0, 1]; out of range is nullopt.
std::optional<double> parse_percent(std::string_view text);

// ---- printing as `tc qdisc show` ---------------------------------------------------------

// print_color_rate: divide by 1000 while the rate is >= 1000 and either divisible or >= 10^6
// (truncating), then "<n><K|M|G|T>bit": 20000 -> "20Kbit", 1500000 -> "1500Kbit",
// 10^11 -> "100Gbit", 999 -> "999bit". Lossy for rates that are not round.
std::string format_rate(BitRate rate);

// print_time64: three significant digits in the largest unit not above the value:
// "100ms", "1.5ms", "1.23s", "100us", "10ns". Lossy beyond three digits.
std::string format_time(Duration d);

// netem's percent print: the probability is stored as rint(p * (2^32 - 1)) and printed as
// "%g%%" of that: 0.01 -> "1%", 0.003 -> "0.3%", 1/3 -> "33.3333%".
std::string format_percent(double p);

// Netem's fixed point for a probability: rint(p * (2^32 - 1)), clamped to [0, 2^32 - 1].
std::uint32_t netem_probability(double p);

// ---- exact printing (valid tc input that reads back to the same value) -------------------

// Largest of Tbit, Gbit, Mbit, Kbit that divides the rate, else bit: "1234567bit", "10Gbit".
std::string format_rate_exact(BitRate rate);

// Largest of s, ms, us, ns that divides the time: "1500ms", "250us", "1500ns". Note that tc's
// netem delay (get_time) does not read "ns"; callers that print a delay pass whole us.
std::string format_time_exact(Duration d);

// The shortest decimal that reads back to p, as a percentage: 0.003 -> "0.3%", 1 -> "100%".
std::string format_percent_exact(double p);

}  // namespace gw
