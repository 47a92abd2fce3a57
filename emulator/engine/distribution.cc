#include "emulator/engine/distribution.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>
#include <utility>

#include "core/errors.h"
#include "core/paths.h"
#include "core/text_file.h"

namespace gw {
namespace {

constexpr std::string_view kWhitespace = " \t\r\v\f";

bool is_path(std::string_view s) {
  return s.find('/') != std::string_view::npos || s.ends_with(".dist");
}

// tc's tables are a few KB; a million values is far beyond any real one.
constexpr std::uint64_t kMaxTableBytes = 16 * kMiB;

bool readable(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && std::ifstream(path).good();
}

// One token to an int16 value, or an InputError for line `line`.
std::int16_t parse_value(std::string_view token, const std::string& file, std::size_t line) {
  std::string_view digits = token;
  if (digits.starts_with('+')) {  // strtol (what tc uses) accepts a leading '+'
    digits.remove_prefix(1);
  }
  long long v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  const std::string where = "line " + std::to_string(line);
  const bool sign_twice = digits.starts_with('-') && token.starts_with('+');
  const bool whole = end == digits.data() + digits.size();
  if (sign_twice || !whole || (ec != std::errc{} && ec != std::errc::result_out_of_range)) {
    throw InputError(file, where,
                     "bad number \"" + std::string{token} + "\": expected a signed 16-bit integer");
  }
  if (ec == std::errc::result_out_of_range || v < std::numeric_limits<std::int16_t>::min() ||
      v > std::numeric_limits<std::int16_t>::max()) {
    throw InputError(file, where, std::string{token} + " is out of range [-32768, 32767]");
  }
  return static_cast<std::int16_t>(v);
}

}  // namespace

DistributionTable parse_distribution(std::string_view text, const std::string& file, std::string name) {
  DistributionTable table{std::move(name), {}};
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const std::size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    while (true) {
      const std::size_t start = line.find_first_not_of(kWhitespace);
      if (start == std::string_view::npos) {
        break;
      }
      line.remove_prefix(start);
      const std::size_t stop = std::min(line.find_first_of(kWhitespace), line.size());
      const std::int16_t v = parse_value(line.substr(0, stop), file, line_no);
      if (table.values.size() == kNetemDistMax) {
        throw InputError(file, "line " + std::to_string(line_no),
                         "more than 16384 values (netem's NETEM_DIST_MAX)");
      }
      table.values.push_back(v);
      line.remove_prefix(stop);
    }
  }
  if (table.values.empty()) {
    throw InputError(file, "", "no values: a distribution table needs at least one number");
  }
  return table;
}

DistributionTable read_distribution_file(const std::string& path) {
  return parse_distribution(read_text_file(path, kMaxTableBytes, "a distribution table"), path, path);
}

std::vector<std::string> distribution_search_dirs() {
  std::vector<std::string> dirs = data_search_dirs("dist");
  for (const char* system :
       {"/usr/lib/x86_64-linux-gnu/tc", "/usr/lib/tc", "/usr/lib64/tc", "/usr/share/tc"}) {
    dirs.emplace_back(system);
  }
  return dirs;
}

DistributionTable load_distribution(std::string_view name_or_path) {
  if (name_or_path == "uniform") {
    return DistributionTable{"uniform", {}};
  }
  if (is_path(name_or_path)) {
    DistributionTable t = read_distribution_file(std::string{name_or_path});
    t.name = std::string{name_or_path};
    return t;
  }
  const std::string name{name_or_path};
  const std::vector<std::string> dirs = distribution_search_dirs();
  for (const std::string& dir : dirs) {
    const std::string candidate = dir + "/" + name + ".dist";
    if (readable(candidate)) {
      DistributionTable t = read_distribution_file(candidate);
      t.name = name;
      return t;
    }
  }
  std::string looked;
  for (const std::string& dir : dirs) {
    looked += looked.empty() ? dir : ", " + dir;
  }
  throw InputError(
      "", "",
      "unknown distribution \"" + name + "\": no " + name + ".dist in " + looked +
          " (use uniform, normal, pareto, paretonormal, experimental, or a path to a .dist file)");
}

}  // namespace gw
