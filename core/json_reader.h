// A reader over one JSON object that knows where it is. Every accessor validates and, on bad
// input, throws InputError naming the file, the JSON path and the reason:
//   wan.json: $.a_to_b.loss.p: must be in [0, 1], got 1.5
// finish() rejects keys nobody asked for, with a "did you mean" from the keys that were.
//
// Quantities carry their unit in the key. A duration `delay` may be given as one of
// delay_ns, delay_us, delay_ms, delay_s; a rate `rate` as rate_bps, rate_kbps, rate_mbps,
// rate_gbps; sizes are `<name>_bytes`. Giving two spellings of one quantity is an error. The
// bare key (`delay`, `rate`) may instead hold text with a tc unit: "25ms", "10Gbit".
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/rate.h"
#include "core/time.h"

namespace gw {

class JsonReader {
 public:
  // `j` must outlive the reader. `path` is the JSON path of `j` inside `file`.
  JsonReader(const nlohmann::json& j, std::string file, std::string path = "$");

  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  const nlohmann::json& raw() const { return *j_; }
  std::string path_of(std::string_view key) const;

  // Presence, and declaring a key as known without reading it through this reader.
  bool has(std::string_view key) const;
  void allow(std::string_view key) const;

  JsonReader object(std::string_view key) const;
  std::optional<JsonReader> optional_object(std::string_view key) const;
  // Array of objects (or of anything: see raw()).
  std::vector<JsonReader> objects(std::string_view key) const;
  const nlohmann::json& array(std::string_view key) const;

  double number(std::string_view key, double lo, double hi) const;
  std::optional<double> optional_number(std::string_view key, double lo, double hi) const;
  std::int64_t integer(std::string_view key, std::int64_t lo, std::int64_t hi) const;
  std::optional<std::int64_t> optional_integer(std::string_view key, std::int64_t lo, std::int64_t hi) const;
  // A random seed: an integer in [0, 2^64-1], the range --seed takes.
  std::optional<std::uint64_t> optional_seed(std::string_view key) const;
  // A probability in [0, 1].
  std::optional<double> optional_probability(std::string_view key) const;
  std::string string(std::string_view key) const;
  std::optional<std::string> optional_string(std::string_view key) const;
  // One of `choices`; `fallback` when absent.
  std::string choice(std::string_view key, std::initializer_list<std::string_view> choices,
                     std::string_view fallback) const;
  std::string choice(std::string_view key, std::span<const std::string_view> choices,
                     std::string_view fallback) const;
  bool boolean(std::string_view key, bool fallback) const;

  std::optional<Duration> duration(std::string_view base, Duration lo = Duration{0},
                                   Duration hi = Duration{std::int64_t{1} << 62}) const;
  std::optional<BitRate> rate(std::string_view base) const;
  // `base`: a size with its unit ("4MiB", "512KB"); `base_bytes`: a whole number of bytes.
  std::optional<std::uint64_t> bytes(std::string_view base, std::uint64_t lo = 0,
                                     std::uint64_t hi = std::uint64_t{1} << 50) const;

  // Throws for the first key present in the object that no accessor or allow() named.
  void finish() const;

  [[noreturn]] void fail(std::string_view key, const std::string& reason) const;
  [[noreturn]] void fail_here(const std::string& reason) const;

 private:
  const nlohmann::json& at(std::string_view key) const;
  std::optional<std::string> text_quantity(std::string_view base, const std::optional<std::string>& unit_form,
                                           std::string_view example) const;
  // Which of base+suffixes is present (at most one), or nullopt.
  std::optional<std::pair<std::string, double>> unit_key(
      std::string_view base, std::initializer_list<std::pair<std::string_view, double>> units) const;

  const nlohmann::json* j_;
  std::string file_;
  std::string path_;
  mutable std::set<std::string, std::less<>> known_;
};

// Levenshtein distance, for "did you mean".
std::size_t edit_distance(std::string_view a, std::string_view b);
// The closest of `candidates` to `word` if close enough to be a likely typo.
std::optional<std::string> closest(std::string_view word,
                                   const std::set<std::string, std::less<>>& candidates);

// Limits on JSON inputs: the nesting depth (a deeper document is refused before it can
// exhaust the stack of anything that walks it) and a file's size.
inline constexpr std::size_t kMaxJsonDepth = 256;
inline constexpr std::uint64_t kMaxJsonFileBytes = std::uint64_t{1} << 30;

// The `hi` of number() for a value with no upper bound of its own (a goodput, a percentile).
inline constexpr double kNoUpperBound = 1e300;

// Parses JSON text; a key given twice in one object, nesting deeper than kMaxJsonDepth and a
// number a double cannot hold are InputErrors naming the path.
nlohmann::json parse_json_strict(const std::string& text, const std::string& file);

// Reads a whole JSON file; parse errors name the file and the line/column, duplicate keys
// their JSON path.
nlohmann::json read_json_file(const std::string& file);

// Shortest text for a JSON value in an error message ("1.5", "\"fast\"").
std::string describe(const nlohmann::json& v);

}  // namespace gw
