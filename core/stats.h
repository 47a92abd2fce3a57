// Percentiles of a sample, exact (nearest-rank on the sorted sample). For the sizes the tools
// handle (up to tens of millions of values) sorting is cheaper than it is worth to approximate.
#pragma once

#include <cstdint>
#include <vector>

namespace gw {

struct Percentiles {
  std::uint64_t count = 0;
  double mean = 0;
  std::int64_t min = 0;
  std::int64_t p50 = 0;
  std::int64_t p90 = 0;
  std::int64_t p99 = 0;
  std::int64_t p999 = 0;
  std::int64_t max = 0;
};

// Sorts `values` in place. Nearest rank: the smallest value with at least q of the sample at
// or below it. An empty sample gives all zeros.
Percentiles percentiles(std::vector<std::int64_t>& values);

// The nearest-rank q-quantile (0 < q <= 1) of a sorted sample.
std::int64_t nearest_rank(const std::vector<std::int64_t>& sorted, double q);

}  // namespace gw
