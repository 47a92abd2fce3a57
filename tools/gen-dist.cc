// gen-dist: writes netem delay-distribution tables (.dist) for the normal, pareto and
// paretonormal distributions, in the text format `tc` reads (one `#` comment line, then 4096
// signed 16-bit values, eight per line). The tables shipped in profiles/dist/ were made by it.
//
// Not a CMake target on purpose (it is run once, by hand, when the tables change):
//   g++ -std=c++20 -O2 tools/gen-dist.cc -o /tmp/gen-dist
//   for d in normal pareto paretonormal; do /tmp/gen-dist $d > profiles/dist/$d.dist; done
//
// Algorithms: the NIST Net generators that iproute2 ships as netem/normal.c, netem/pareto.c and
// netem/paretonormal.c (public domain, SPDX NIST-PD), reimplemented here step for step so the
// output is byte-identical to iproute2's tables on a glibc/x86-64 host:
//  - A table entry is the inverse CDF sampled at 4096 evenly spaced quantiles, scaled by
//    NETEM_DIST_SCALE (8192) and clamped to the int16 range.
//  - normal: the inverse CDF is not computed analytically. x walks from -10 to 10.05 in steps
//    of 5e-5 (accumulated in a double, as the original does, so rounding matches), and every
//    x is stored at quantile index rint(16384 * Phi(x)) in a 16385-slot table, the last x to
//    land on an index winning. Every 4th slot is emitted.
//  - pareto: shape a = 3, x_m = 1; for q = 1 - k/4096 (k = 0..4095) the quantile is
//    q^(-1/a); it is shifted by its mean a/(a-1) = 1.5 and scaled by 4/3 (NIST Net's constant;
//    the untruncated sd is sqrt(3)/2, so this is not a unit-sd scaling), then by 8192 and
//    clamped above at 32767.
//  - paretonormal: 0.25 * normal + 0.75 * pareto, combined per quantile on the integer
//    values, (normal + 3 * pareto) / 4 with C's truncating division.
// Note that only the normal table is mean 0 / sigma 1: the pareto-based tables are truncated
// at +4 and come out near mean -0.03, sigma 0.82 (see tests/unit/engine/distribution_test.cc).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <vector>

namespace {

constexpr int kQuantileSlots = 16384;  // resolution of the quantile grid (NIST Net TABLESIZE)
constexpr int kStride = 4;             // every 4th slot is emitted: 4096 entries
constexpr double kScale = 8192.0;      // NETEM_DIST_SCALE
constexpr double kParetoShape = 3.0;

int clamp_i16(int v) {
  if (v < std::numeric_limits<short>::min()) {
    return std::numeric_limits<short>::min();
  }
  if (v > std::numeric_limits<short>::max()) {
    return std::numeric_limits<short>::max();
  }
  return v;
}

double standard_normal_cdf(double x) {
  return 0.5 + 0.5 * std::erf(x / std::sqrt(2.0));
}

// Quantiles of the standard normal on the grid k / 16384, k = 0..16384, by scanning x.
std::vector<double> normal_quantile_grid() {
  std::vector<double> grid(kQuantileSlots + 1, std::numeric_limits<double>::quiet_NaN());
  for (double x = -10.0; x < 10.05; x += 0.00005) {
    const auto k = static_cast<int>(std::rint(kQuantileSlots * standard_normal_cdf(x)));
    grid[static_cast<std::size_t>(k)] = x;
  }
  return grid;
}

// Scaled normal quantile at slot k, before clamping (paretonormal mixes unclamped values).
// The scan step is fine enough that every slot is hit; a NaN here would mean a broken libm.
int normal_value(const std::vector<double>& grid, int k) {
  if (std::isnan(grid[static_cast<std::size_t>(k)])) {
    std::fprintf(stderr, "gen-dist: quantile slot %d was never reached\n", k);
    std::exit(1);
  }
  return static_cast<int>(std::rint(grid[static_cast<std::size_t>(k)] * kScale));
}

// Scaled, centred pareto quantile for emitted entry `entry` (0..4095), ascending.
int pareto_value(int entry) {
  const int level = 65536 - 16 * entry;  // survival probability in units of 2^-16
  double v = static_cast<double>(level) / 65536.0;
  v = 1.0 / std::pow(v, 1.0 / kParetoShape);
  v -= 1.5;
  v *= (4.0 / 3.0) * kScale;
  if (v > 32767) {
    v = 32767;
  }
  return static_cast<int>(std::rint(v));
}

std::vector<int> make_table(std::string_view name) {
  std::vector<int> out;
  const int entries = kQuantileSlots / kStride;
  out.reserve(entries);
  if (name == "pareto") {
    for (int e = 0; e < entries; ++e) {
      out.push_back(pareto_value(e));
    }
    return out;
  }
  const std::vector<double> grid = normal_quantile_grid();
  for (int e = 0; e < entries; ++e) {
    const int norm = normal_value(grid, e * kStride);
    if (name == "normal") {
      out.push_back(clamp_i16(norm));
    } else {
      out.push_back(clamp_i16((norm + 3 * pareto_value(e)) / 4));
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view name = argc == 2 ? std::string_view{argv[1]} : std::string_view{};
  if (name != "normal" && name != "pareto" && name != "paretonormal") {
    std::fprintf(stderr, "usage: %s normal|pareto|paretonormal > NAME.dist\n", argv[0]);
    return 2;
  }
  const std::vector<int> table = make_table(name);
  std::printf("# This is the distribution table for the %.*s distribution.\n", static_cast<int>(name.size()),
              name.data());
  int column = 0;
  for (const int v : table) {
    std::printf(" %d", v);
    if (++column == 8) {
      std::putchar('\n');
      column = 0;
    }
  }
  return 0;
}
