#include "core/units.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace gw {
namespace {

constexpr double kTwoTo64 = 18446744073709551616.0;
constexpr double kMaxNs = 9.2e18;           // a little under 2^63: what a Duration holds
constexpr double kNetemOne = 4294967295.0;  // UINT32_MAX: netem's fixed point for 1.0

struct Number {
  double value;
  std::string_view suffix;
};

// The leading number as strtod reads it (tc reads every quantity this way), and the rest.
std::optional<Number> leading_number(std::string_view text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front())) != 0) {
    return std::nullopt;
  }
  const std::string s(text);  // strtod needs a terminated string
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !std::isfinite(v)) {
    return std::nullopt;
  }
  return Number{v, text.substr(static_cast<std::size_t>(end - s.c_str()))};
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// Scale of a suffix from `table` (case-insensitive); the empty suffix scales by `bare`.
template <std::size_t N>
std::optional<double> scale_of(std::string_view suffix,
                               const std::array<std::pair<std::string_view, double>, N>& table, double bare) {
  if (suffix.empty()) {
    return bare;
  }
  for (const auto& [name, scale] : table) {
    if (iequals(suffix, name)) {
      return scale;
    }
  }
  return std::nullopt;
}

// lib/utils_math.c get_rate64 suffixes, in bit/s per unit.
constexpr std::array<std::pair<std::string_view, double>, 18> kRateUnits{{
    {"bit", 1.},
    {"kibit", 1024.},
    {"kbit", 1e3},
    {"mibit", 1024. * 1024.},
    {"mbit", 1e6},
    {"gibit", 1024. * 1024. * 1024.},
    {"gbit", 1e9},
    {"tibit", 1024. * 1024. * 1024. * 1024.},
    {"tbit", 1e12},
    {"bps", 8.},
    {"kibps", 8. * 1024.},
    {"kbps", 8e3},
    {"mibps", 8. * 1024. * 1024.},
    {"mbps", 8e6},
    {"gibps", 8. * 1024. * 1024. * 1024.},
    {"gbps", 8e9},
    {"tibps", 8. * 1024. * 1024. * 1024. * 1024.},
    {"tbps", 8e12},
}};

// lib/utils.c get_time / get_time64 suffixes, in nanoseconds per unit.
constexpr std::array<std::pair<std::string_view, double>, 9> kTimeUnits{{
    {"s", 1e9},
    {"sec", 1e9},
    {"secs", 1e9},
    {"ms", 1e6},
    {"msec", 1e6},
    {"msecs", 1e6},
    {"us", 1e3},
    {"usec", 1e3},
    {"usecs", 1e3},
}};
constexpr std::array<std::pair<std::string_view, double>, 12> kTime64Units{{
    {"s", 1e9},
    {"sec", 1e9},
    {"secs", 1e9},
    {"ms", 1e6},
    {"msec", 1e6},
    {"msecs", 1e6},
    {"us", 1e3},
    {"usec", 1e3},
    {"usecs", 1e3},
    {"ns", 1.},
    {"nsec", 1.},
    {"nsecs", 1.},
}};

// lib/utils_math.c get_size64 suffixes, in bytes per unit ("kbit" is 1024 / 8 there).
constexpr std::array<std::pair<std::string_view, double>, 10> kSizeUnits{{
    {"b", 1.},
    {"k", 1024.},
    {"kb", 1024.},
    {"m", 1024. * 1024.},
    {"mb", 1024. * 1024.},
    {"g", 1024. * 1024. * 1024.},
    {"gb", 1024. * 1024. * 1024.},
    {"kbit", 1024. / 8},
    {"mbit", 1024. * 1024. / 8},
    {"gbit", 1024. * 1024. * 1024. / 8},
}};

template <std::size_t N>
std::optional<Duration> parse_duration(std::string_view text,
                                       const std::array<std::pair<std::string_view, double>, N>& units,
                                       double bare_ns) {
  const auto n = leading_number(text);
  if (!n) {
    return std::nullopt;
  }
  const auto scale = scale_of(n->suffix, units, bare_ns);
  if (!scale) {
    return std::nullopt;
  }
  const double ns = n->value * *scale;
  if (ns < 0 || ns >= kMaxNs) {
    return std::nullopt;
  }
  return Duration{std::llround(ns)};
}

std::string printf_string(const char* format, double v, const char* unit) {
  std::array<char, 64> buf{};
  std::snprintf(buf.data(), buf.size(), format, v);
  return std::string(buf.data()) + unit;
}

}  // namespace

std::optional<BitRate> parse_rate(std::string_view text) {
  const auto n = leading_number(text);
  if (!n) {
    return std::nullopt;
  }
  const auto scale = scale_of(n->suffix, kRateUnits, 1.0);
  if (!scale) {
    return std::nullopt;
  }
  const double bits = std::round(n->value * *scale);
  if (bits < 0 || bits >= kTwoTo64) {
    return std::nullopt;
  }
  return BitRate{static_cast<std::uint64_t>(bits)};
}

std::optional<Duration> parse_time(std::string_view text) {
  return parse_duration(text, kTimeUnits, 1e3);  // bare number: microseconds (TIME_UNITS_PER_SEC)
}

std::optional<Duration> parse_time64(std::string_view text) {
  return parse_duration(text, kTime64Units, 1.0);  // bare number: nanoseconds
}

std::optional<std::uint64_t> parse_size(std::string_view text) {
  const auto n = leading_number(text);
  if (!n) {
    return std::nullopt;
  }
  const auto scale = scale_of(n->suffix, kSizeUnits, 1.0);
  if (!scale) {
    return std::nullopt;
  }
  const double bytes = std::floor(n->value * *scale);
  if (bytes < 0 || bytes >= kTwoTo64) {
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(bytes);
}

std::optional<double> parse_percent(std::string_view text) {
  const auto n = leading_number(text);
  if (!n || !(n->suffix.empty() || n->suffix == "%")) {
    return std::nullopt;
  }
  // "99.9" -> "0.999" in the text, then strtod: the double nearest the fraction the user
  // wrote, which value / 100 is not always (99.9 / 100 is one unit in the last place above
  // 0.999), so format_percent_exact's text reads back to the same double.
  double p = n->value / 100.;
  const std::string digits(text.substr(0, text.size() - n->suffix.size()));
  if (digits.find_first_not_of("0123456789.") == std::string::npos && !digits.empty()) {
    const auto dot = digits.find('.');
    std::string whole = digits.substr(0, dot);
    const std::string frac = dot == std::string::npos ? "" : digits.substr(dot + 1);
    whole.insert(0, std::string(whole.size() < 2 ? 2 - whole.size() : 0, '0'));
    const std::string moved = whole.substr(0, whole.size() - 2) + "." + whole.substr(whole.size() - 2) + frac;
    p = std::strtod(("0" + moved).c_str(), nullptr);
  }
  if (p < 0 || p > 1) {
    return std::nullopt;
  }
  return p;
}

std::string format_rate(BitRate rate) {
  static constexpr std::array<const char*, 5> kPrefix{"", "K", "M", "G", "T"};
  std::uint64_t r = rate.bps;
  std::size_t i = 0;
  for (; i + 1 < kPrefix.size(); ++i) {
    if (r < 1000 || (r % 1000 != 0 && r < 1'000'000)) {
      break;
    }
    r /= 1000;
  }
  return std::to_string(r) + kPrefix[i] + "bit";
}

std::string format_time(Duration d) {
  const std::int64_t ns = d.count();
  const auto v = static_cast<double>(ns);
  if (ns >= 1'000'000'000) {
    return printf_string("%.3g", v / 1e9, "s");
  }
  if (ns >= 1'000'000) {
    return printf_string("%.3g", v / 1e6, "ms");
  }
  if (ns >= 1'000) {
    return printf_string("%.3g", v / 1e3, "us");
  }
  return std::to_string(ns) + "ns";
}

std::uint32_t netem_probability(double p) {
  const double x = std::rint(p * kNetemOne);
  if (!(x > 0)) {
    return 0;
  }
  return x >= kNetemOne ? UINT32_MAX : static_cast<std::uint32_t>(x);
}

std::string format_percent(double p) {
  return printf_string("%g", (100. * netem_probability(p)) / kNetemOne, "%");
}

std::string format_rate_exact(BitRate rate) {
  static constexpr std::array<std::pair<std::uint64_t, const char*>, 4> kUnits{{
      {1'000'000'000'000, "Tbit"},
      {1'000'000'000, "Gbit"},
      {1'000'000, "Mbit"},
      {1'000, "Kbit"},
  }};
  if (rate.bps != 0) {
    for (const auto& [unit, name] : kUnits) {
      if (rate.bps % unit == 0) {
        return std::to_string(rate.bps / unit) + name;
      }
    }
  }
  return std::to_string(rate.bps) + "bit";
}

std::string format_time_exact(Duration d) {
  static constexpr std::array<std::pair<std::int64_t, const char*>, 3> kUnits{{
      {1'000'000'000, "s"},
      {1'000'000, "ms"},
      {1'000, "us"},
  }};
  const std::int64_t ns = d.count();
  for (const auto& [unit, name] : kUnits) {
    if (ns % unit == 0) {
      return std::to_string(ns / unit) + name;
    }
  }
  return std::to_string(ns) + "ns";
}

std::string format_percent_exact(double p) {
  // Shortest fixed-point text of p that reads back to p, with the point moved two places.
  std::array<char, 512> buf{};
  const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), p, std::chars_format::fixed);
  if (ec != std::errc{}) {
    return format_percent(p);
  }
  std::string text(buf.data(), end);
  std::string sign;
  if (!text.empty() && text.front() == '-') {
    sign = "-";
    text.erase(0, 1);
  }
  const auto dot = text.find('.');
  std::string whole = text.substr(0, dot);
  std::string frac = dot == std::string::npos ? "" : text.substr(dot + 1);
  frac.resize(std::max<std::size_t>(frac.size(), 2), '0');
  whole += frac.substr(0, 2);
  frac.erase(0, 2);
  const auto first = whole.find_first_not_of('0');
  whole = first == std::string::npos ? "0" : whole.substr(first);
  return sign + whole + (frac.empty() ? "" : "." + frac) + "%";
}

}  // namespace gw
