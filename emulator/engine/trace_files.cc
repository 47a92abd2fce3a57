// Rate traces and Mahimahi traces named by a profile's rate stage.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "core/errors.h"
#include "core/text_file.h"
#include "emulator/engine/profile.h"

namespace gw {

namespace {

// A trace of a day at one line per millisecond is ~1 GB; traces in use are MBs.
constexpr std::uint64_t kMaxTraceBytes = 256 * kMiB;

std::vector<std::string> data_lines(const std::string& file, std::vector<int>& numbers) {
  std::istringstream in(read_text_file(file, kMaxTraceBytes, "a rate trace"));
  std::vector<std::string> lines;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const auto hash = line.find('#');
    if (hash != std::string::npos) {
      line.resize(hash);
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      continue;
    }
    lines.push_back(line);
    numbers.push_back(n);
  }
  if (lines.empty()) {
    throw InputError(file, "", "no data lines");
  }
  return lines;
}

}  // namespace

std::vector<RateTracePoint> load_rate_trace(const std::string& file) {
  std::vector<int> numbers;
  const auto lines = data_lines(file, numbers);
  std::vector<RateTracePoint> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string l = lines[i];
    std::replace(l.begin(), l.end(), ',', ' ');
    std::istringstream is(l);
    double t = 0;
    double bps = 0;
    std::string extra;
    const std::string where = "line " + std::to_string(numbers[i]);
    if (!(is >> t >> bps) || (is >> extra)) {
      throw InputError(file, where, "expected \"seconds,bits_per_second\"");
    }
    if (!(t >= 0) || !(bps > 0) || !std::isfinite(t) || !std::isfinite(bps)) {
      throw InputError(file, where, "time must be >= 0 and rate > 0");
    }
    const Duration at{static_cast<std::int64_t>(std::llround(t * 1e9))};
    if (!out.empty() && at <= out.back().at) {
      throw InputError(file, where, "times must increase");
    }
    out.push_back({at, BitRate{static_cast<std::uint64_t>(std::llround(bps))}});
  }
  return out;
}

std::vector<Duration> load_mahimahi_trace(const std::string& file) {
  std::vector<int> numbers;
  const auto lines = data_lines(file, numbers);
  std::vector<Duration> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::istringstream is(lines[i]);
    std::int64_t ms = -1;
    std::string extra;
    const std::string where = "line " + std::to_string(numbers[i]);
    if (!(is >> ms) || (is >> extra) || ms < 0) {
      throw InputError(file, where, "expected one non-negative millisecond timestamp");
    }
    const Duration at{ms * 1'000'000};
    if (!out.empty() && at < out.back()) {
      throw InputError(file, where, "timestamps must not decrease");
    }
    out.push_back(at);
  }
  if (out.back().count() == 0) {
    throw InputError(file, "", "the trace must end after time 0");
  }
  return out;
}

}  // namespace gw
