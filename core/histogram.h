// A log-linear histogram of non-negative integers (the HdrHistogram layout): values below
// 2^kSubBits are exact; above, each power of two is split into 2^(kSubBits-1) equal buckets,
// so a reported quantile is within 1/2^(kSubBits-1) (0.8 %) of the true value. Recording is
// O(1) and memory is fixed (~8 KiB) however many values are recorded, which is what long
// simulations need for per-packet RTTs and delays.
#pragma once

#include <array>
#include <cstdint>

#include "core/stats.h"

namespace gw {

class LogHistogram {
 public:
  static constexpr int kSubBits = 8;

  void record(std::int64_t value);
  std::uint64_t count() const { return count_; }
  // Nearest-rank quantile (0 < q <= 1), reported as the highest value of its bucket (capped at
  // the largest value recorded), so it never understates a tail.
  std::int64_t quantile(double q) const;
  // count, mean (exact), min and max (exact), p50/p90/p99/p999 (within 0.8 %).
  Percentiles summary() const;
  void merge(const LogHistogram& other);

 private:
  static constexpr int kBuckets = (64 - kSubBits + 1) << (kSubBits - 1);
  static int bucket_of(std::uint64_t v);
  static std::uint64_t bucket_high(int b);

  std::array<std::uint64_t, kBuckets> counts_{};
  std::uint64_t count_ = 0;
  double sum_ = 0;  // exact up to 2^53, far beyond any sum of delays recorded
  std::int64_t min_ = 0;
  std::int64_t max_ = 0;
};

}  // namespace gw
