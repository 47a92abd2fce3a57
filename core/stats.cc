#include "core/stats.h"

#include <algorithm>
#include <cmath>

namespace gw {

std::int64_t nearest_rank(const std::vector<std::int64_t>& sorted, double q) {
  if (sorted.empty()) {
    return 0;
  }
  const auto n = static_cast<double>(sorted.size());
  const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(q * n)));
  return sorted[std::min(rank, sorted.size()) - 1];
}

Percentiles percentiles(std::vector<std::int64_t>& values) {
  Percentiles p;
  if (values.empty()) {
    return p;
  }
  std::sort(values.begin(), values.end());
  p.count = values.size();
  long double sum = 0;
  for (const auto v : values) {
    sum += v;
  }
  p.mean = static_cast<double>(sum / static_cast<long double>(values.size()));
  p.min = values.front();
  p.p50 = nearest_rank(values, 0.50);
  p.p90 = nearest_rank(values, 0.90);
  p.p99 = nearest_rank(values, 0.99);
  p.p999 = nearest_rank(values, 0.999);
  p.max = values.back();
  return p;
}

}  // namespace gw
