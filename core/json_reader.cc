#include "core/json_reader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "core/text_file.h"
#include "core/units.h"

namespace gw {
namespace {

std::string format_number(double v) {
  std::ostringstream os;
  os.precision(12);
  os << v;
  return os.str();
}

std::string range_text(double lo, double hi) {
  return "[" + format_number(lo) + ", " + format_number(hi) + "]";
}

}  // namespace

std::string describe(const nlohmann::json& v) {
  if (v.is_number_float()) {
    return format_number(v.get<double>());
  }
  std::string s = v.dump();
  if (s.size() > 60) {
    s = s.substr(0, 57) + "...";
  }
  return s;
}

JsonReader::JsonReader(const nlohmann::json& j, std::string file, std::string path)
    : j_(&j), file_(std::move(file)), path_(std::move(path)) {
  if (!j.is_object()) {
    throw InputError(file_, path_, "must be an object, got " + describe(j));
  }
}

std::string JsonReader::path_of(std::string_view key) const {
  return path_ + "." + std::string(key);
}

bool JsonReader::has(std::string_view key) const {
  known_.emplace(key);
  return j_->contains(key);
}

void JsonReader::allow(std::string_view key) const {
  known_.emplace(key);
}

void JsonReader::fail(std::string_view key, const std::string& reason) const {
  throw InputError(file_, path_of(key), reason);
}

void JsonReader::fail_here(const std::string& reason) const {
  throw InputError(file_, path_, reason);
}

const nlohmann::json& JsonReader::at(std::string_view key) const {
  known_.emplace(key);
  const auto it = j_->find(key);
  if (it == j_->end()) {
    fail(key, "is required");
  }
  return *it;
}

JsonReader JsonReader::object(std::string_view key) const {
  return JsonReader(at(key), file_, path_of(key));
}

std::optional<JsonReader> JsonReader::optional_object(std::string_view key) const {
  if (!has(key)) {
    return std::nullopt;
  }
  return object(key);
}

const nlohmann::json& JsonReader::array(std::string_view key) const {
  const auto& v = at(key);
  if (!v.is_array()) {
    fail(key, "must be an array, got " + describe(v));
  }
  return v;
}

std::vector<JsonReader> JsonReader::objects(std::string_view key) const {
  const auto& arr = array(key);
  std::vector<JsonReader> out;
  out.reserve(arr.size());
  for (std::size_t i = 0; i < arr.size(); ++i) {
    out.emplace_back(arr[i], file_, path_of(key) + "[" + std::to_string(i) + "]");
  }
  return out;
}

double JsonReader::number(std::string_view key, double lo, double hi) const {
  const auto& v = at(key);
  if (!v.is_number()) {
    fail(key, "must be a number, got " + describe(v));
  }
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < lo || d > hi) {
    fail(key, "must be in " + range_text(lo, hi) + ", got " + describe(v));
  }
  return d;
}

std::optional<double> JsonReader::optional_number(std::string_view key, double lo, double hi) const {
  if (!has(key)) {
    return std::nullopt;
  }
  return number(key, lo, hi);
}

std::int64_t JsonReader::integer(std::string_view key, std::int64_t lo, std::int64_t hi) const {
  const auto& v = at(key);
  if (!v.is_number_integer()) {
    fail(key, "must be an integer, got " + describe(v));
  }
  std::int64_t i = 0;
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(hi)) {
      fail(key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + describe(v));
    }
    i = static_cast<std::int64_t>(u);
  } else {
    i = v.get<std::int64_t>();
  }
  if (i < lo || i > hi) {
    fail(key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + describe(v));
  }
  return i;
}

std::optional<std::int64_t> JsonReader::optional_integer(std::string_view key, std::int64_t lo,
                                                         std::int64_t hi) const {
  if (!has(key)) {
    return std::nullopt;
  }
  return integer(key, lo, hi);
}

std::optional<std::uint64_t> JsonReader::optional_seed(std::string_view key) const {
  if (!has(key)) {
    return std::nullopt;
  }
  const auto& v = at(key);
  if (v.is_number_unsigned()) {
    return v.get<std::uint64_t>();
  }
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0) {
    fail(key, "must be an integer in [0, 2^64-1], got " + describe(v));
  }
  return static_cast<std::uint64_t>(v.get<std::int64_t>());
}

std::optional<double> JsonReader::optional_probability(std::string_view key) const {
  return optional_number(key, 0.0, 1.0);
}

std::string JsonReader::string(std::string_view key) const {
  const auto& v = at(key);
  if (!v.is_string()) {
    fail(key, "must be a string, got " + describe(v));
  }
  return v.get<std::string>();
}

std::optional<std::string> JsonReader::optional_string(std::string_view key) const {
  if (!has(key)) {
    return std::nullopt;
  }
  return string(key);
}

std::string JsonReader::choice(std::string_view key, std::initializer_list<std::string_view> choices,
                               std::string_view fallback) const {
  return choice(key, std::span<const std::string_view>(choices.begin(), choices.size()), fallback);
}

std::string JsonReader::choice(std::string_view key, std::span<const std::string_view> choices,
                               std::string_view fallback) const {
  if (!has(key)) {
    return std::string(fallback);
  }
  const std::string s = string(key);
  for (const auto c : choices) {
    if (s == c) {
      return s;
    }
  }
  std::string list;
  std::set<std::string, std::less<>> cands;
  for (const auto c : choices) {
    list += (list.empty() ? "" : ", ") + std::string(c);
    cands.emplace(c);
  }
  std::string reason = "must be one of " + list + ", got \"" + s + "\"";
  if (const auto near = closest(s, cands)) {
    reason += " (did you mean \"" + *near + "\"?)";
  }
  fail(key, reason);
}

bool JsonReader::boolean(std::string_view key, bool fallback) const {
  if (!has(key)) {
    return fallback;
  }
  const auto& v = at(key);
  if (!v.is_boolean()) {
    fail(key, "must be true or false, got " + describe(v));
  }
  return v.get<bool>();
}

std::optional<std::pair<std::string, double>> JsonReader::unit_key(
    std::string_view base, std::initializer_list<std::pair<std::string_view, double>> units) const {
  std::optional<std::pair<std::string, double>> found;
  for (const auto& [suffix, scale] : units) {
    std::string key = std::string(base) + std::string(suffix);
    if (has(key)) {
      if (found) {
        fail(key, "gives " + std::string(base) + " twice (also as " + found->first + ")");
      }
      found = std::make_pair(key, scale);
    }
  }
  return found;
}

// The bare key may hold the quantity as text with its unit, as tc writes it ("25ms", "10Gbit").
// A bare number there is refused rather than ignored: "delay": 5 could mean 5 ms or 5 s.
std::optional<std::string> JsonReader::text_quantity(std::string_view base,
                                                     const std::optional<std::string>& unit_form,
                                                     std::string_view example) const {
  if (!has(base)) {
    return std::nullopt;
  }
  if (!at(base).is_string()) {
    fail(base, "must be text with its unit (e.g. \"" + std::string(example) + "\")" +
                   (unit_form ? std::string() : ", or a number under " + std::string(base) + "_<unit>") +
                   ", got " + describe(at(base)));
  }
  if (unit_form) {
    fail(base, "gives " + std::string(base) + " twice (also as " + *unit_form + ")");
  }
  known_.insert(std::string(base));
  std::string text = at(base).get<std::string>();
  if (std::none_of(text.begin(), text.end(),
                   [](char c) { return std::isalpha(static_cast<unsigned char>(c)); })) {
    fail(base, "\"" + text + "\" needs a unit (e.g. \"25ms\", \"10Gbit\")");
  }
  return text;
}

std::optional<Duration> JsonReader::duration(std::string_view base, Duration lo, Duration hi) const {
  const auto k = unit_key(base, {{"_ns", 1.0}, {"_us", 1e3}, {"_ms", 1e6}, {"_s", 1e9}});
  if (const auto text = text_quantity(base, k ? std::optional(k->first) : std::nullopt, "25ms")) {
    const auto d = parse_time64(*text);
    if (!d) {
      fail(base, "expected a time with its unit (e.g. \"25ms\", \"60s\"), got \"" + *text + "\"");
    }
    if (*d < lo || *d > hi) {
      fail(base, "must be in [" + format_time(lo) + ", " + format_time(hi) + "], got " + *text);
    }
    return d;
  }
  if (!k) {
    return std::nullopt;
  }
  const double v = number(k->first, static_cast<double>(lo.count()) / k->second,
                          static_cast<double>(hi.count()) / k->second);
  return Duration{static_cast<std::int64_t>(std::llround(v * k->second))};
}

std::optional<BitRate> JsonReader::rate(std::string_view base) const {
  const auto k = unit_key(base, {{"_bps", 1.0}, {"_kbps", 1e3}, {"_mbps", 1e6}, {"_gbps", 1e9}});
  if (const auto text = text_quantity(base, k ? std::optional(k->first) : std::nullopt, "10Gbit")) {
    const auto r = parse_rate(*text);
    if (!r) {
      fail(base, "expected a rate with its unit (e.g. \"10Gbit\", \"400mbit\"), got \"" + *text + "\"");
    }
    return r;
  }
  if (!k) {
    return std::nullopt;
  }
  const double v = number(k->first, 0.0, 1e15 / k->second);
  return BitRate{static_cast<std::uint64_t>(std::llround(v * k->second))};
}

namespace {

// "4MiB", "512 KiB", "1.5GB", "64B": a byte count with a binary (KiB, MiB, GiB, TiB) or decimal
// (KB, MB, GB, TB) unit; nullopt when it is not one or is not a whole number of bytes.
std::optional<double> parse_byte_text(const std::string& text) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string unit = text.substr(used);
  unit.erase(0, unit.find_first_not_of(' '));
  static const std::pair<const char*, double> kUnits[] = {
      {"B", 1},    {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
      {"KB", 1e3}, {"kB", 1e3},     {"MB", 1e6},        {"GB", 1e9},           {"TB", 1e12}};
  for (const auto& [name, scale] : kUnits) {
    if (unit == name) {
      const double bytes = v * scale;
      if (!(bytes >= 0) || bytes != std::floor(bytes)) {
        return std::nullopt;
      }
      return bytes;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> JsonReader::bytes(std::string_view base, std::uint64_t lo,
                                               std::uint64_t hi) const {
  const std::string key = std::string(base) + "_bytes";
  if (const auto text = text_quantity(base, has(key) ? std::optional(key) : std::nullopt, "4MiB")) {
    const auto b = parse_byte_text(*text);
    if (!b) {
      fail(base,
           "expected a size with its unit (e.g. \"4MiB\", \"512KB\", \"9000B\"), got \"" + *text + "\"");
    }
    if (*b < static_cast<double>(lo) || *b > static_cast<double>(hi)) {
      fail(base, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] bytes, got " + *text);
    }
    return static_cast<std::uint64_t>(*b);
  }
  if (!has(key)) {
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(
      integer(key, static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi)));
}

void JsonReader::finish() const {
  for (const auto& [key, value] : j_->items()) {
    if (known_.contains(key)) {
      continue;
    }
    std::string reason = "unknown key";
    if (const auto near = closest(key, known_)) {
      reason += " (did you mean \"" + *near + "\"?)";
    }
    fail(key, reason);
  }
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1);
  std::vector<std::size_t> cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    prev[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::optional<std::string> closest(std::string_view word,
                                   const std::set<std::string, std::less<>>& candidates) {
  std::optional<std::string> best;
  std::size_t best_d = 0;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (!best || d < best_d) {
      best = c;
      best_d = d;
    }
  }
  // A typo, not a different word: at most a third of the longer name, and at least one letter.
  if (best && best_d > 0 && best_d <= std::max<std::size_t>(2, std::max(word.size(), best->size()) / 3)) {
    return best;
  }
  return std::nullopt;
}

namespace {

// Tracks where the parser is (a JSON path) and the keys seen in each open object, so that a
// key given twice is an error rather than "the last one wins".
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(const std::string& file) : file_(file) {}

  bool operator()(int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    switch (event) {
      case E::object_start:
      case E::array_start:
        enter_element();
        if (frames_.size() >= kMaxJsonDepth) {
          std::string where = path() + (frames_.back().object ? "." + frames_.back().key : "[]");
          if (where.size() > 96) {
            where = where.substr(0, 96) + "...";
          }
          throw InputError(file_, where,
                           "nested deeper than " + std::to_string(kMaxJsonDepth) +
                               " levels (no gradwall input needs that many)");
        }
        frames_.push_back({event == E::object_start, -1, {}, {}});
        break;
      case E::key: {
        Frame& f = frames_.back();
        const auto key = parsed.get<std::string>();
        if (!f.keys.insert(key).second) {
          throw InputError(file_, path() + "." + key,
                           "key given twice (a JSON object's keys must be unique)");
        }
        f.key = key;
        break;
      }
      case E::object_end:
      case E::array_end:
        frames_.pop_back();
        break;
      case E::value:
        enter_element();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool object;
    long index;
    std::string key;
    std::set<std::string> keys;
  };

  void enter_element() {
    if (!frames_.empty() && !frames_.back().object) {
      ++frames_.back().index;
    }
  }

  // Where the parser is: the innermost open object's current key, or array's next index.
 public:
  std::string here() const {
    std::string p = path();
    if (!frames_.empty()) {
      p += frames_.back().object ? "." + frames_.back().key
                                 : "[" + std::to_string(frames_.back().index + 1) + "]";
    }
    return p;
  }

 private:
  std::string path() const {
    std::string p = "$";
    // The innermost frame is the object holding the duplicate; its key is not part of the path.
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i) {
      p += frames_[i].object ? "." + frames_[i].key : "[" + std::to_string(frames_[i].index) + "]";
    }
    return p;
  }

  const std::string& file_;
  std::vector<Frame> frames_;
};

// The checker is copied into the parser; the parser's position stays readable here.
class CheckerRef {
 public:
  explicit CheckerRef(DuplicateKeyCheck& c) : c_(&c) {}
  bool operator()(int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    return (*c_)(depth, event, parsed);
  }

 private:
  DuplicateKeyCheck* c_;
};

}  // namespace

nlohmann::json parse_json_strict(const std::string& text, const std::string& file) {
  DuplicateKeyCheck check(file);
  try {
    return nlohmann::json::parse(text, CheckerRef(check));
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond what a double holds (1e400, a 400-digit integer): nlohmann reports it
    // as out_of_range 406 before the value reaches the callback, so the path is the key the
    // parser was at.
    throw InputError(file, check.here(),
                     "number out of range (a JSON number here must fit a double, |x| < 1.8e308)");
  }
}

nlohmann::json read_json_file(const std::string& file) {
  const std::string text = read_text_file(file, kMaxJsonFileBytes, "a JSON file");
  try {
    return parse_json_strict(text, file);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is the 1-based offset of the error; turn it into line:column.
    std::size_t line = 1;
    std::size_t col = 1;
    for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw InputError(file, "line " + std::to_string(line) + ", column " + std::to_string(col),
                     "invalid JSON");
  }
}

}  // namespace gw
