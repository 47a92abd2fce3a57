#include "core/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace gw {

namespace {
constexpr std::uint64_t kHalf = 1ULL << (LogHistogram::kSubBits - 1);
}

// Values below 2^kSubBits map to themselves (buckets 0 .. 2^kSubBits - 1). A larger value with
// its highest bit at position m (m >= kSubBits) keeps its top kSubBits bits: the shift
// s = m - kSubBits + 1 drops the rest, and the group of that power of two starts at
// bucket 2^kSubBits + (s - 1) * 2^(kSubBits-1).
int LogHistogram::bucket_of(std::uint64_t v) {
  if (v < (1ULL << kSubBits)) {
    return static_cast<int>(v);
  }
  const int m = 63 - std::countl_zero(v);
  const int s = m - kSubBits + 1;
  const std::uint64_t top = v >> s;  // in [2^(kSubBits-1), 2^kSubBits)
  return static_cast<int>((1ULL << kSubBits) + static_cast<std::uint64_t>(s - 1) * kHalf + (top - kHalf));
}

std::uint64_t LogHistogram::bucket_high(int b) {
  const auto ub = static_cast<std::uint64_t>(b);
  if (ub < (1ULL << kSubBits)) {
    return ub;
  }
  const std::uint64_t rel = ub - (1ULL << kSubBits);
  const std::uint64_t s = rel / kHalf + 1;
  const std::uint64_t top = rel % kHalf + kHalf;
  return ((top + 1) << s) - 1;
}

void LogHistogram::record(std::int64_t value) {
  const std::int64_t v = std::max<std::int64_t>(value, 0);
  ++counts_[static_cast<std::size_t>(bucket_of(static_cast<std::uint64_t>(v)))];
  if (count_ == 0) {
    min_ = v;
    max_ = v;
  } else {
    min_ = std::min(min_, v);
    max_ = std::max(max_, v);
  }
  ++count_;
  sum_ += static_cast<double>(v);
}

std::int64_t LogHistogram::quantile(double q) const {
  if (count_ == 0) {
    return 0;
  }
  const auto rank =
      static_cast<std::uint64_t>(std::max(1.0, std::ceil(q * static_cast<double>(count_) - 1e-9)));
  std::uint64_t seen = 0;
  for (int b = 0; b < kBuckets; ++b) {
    seen += counts_[static_cast<std::size_t>(b)];
    if (seen >= rank) {
      return std::min(static_cast<std::int64_t>(bucket_high(b)), max_);
    }
  }
  return max_;
}

Percentiles LogHistogram::summary() const {
  Percentiles p;
  p.count = count_;
  if (count_ == 0) {
    return p;
  }
  p.mean = sum_ / static_cast<double>(count_);
  p.min = min_;
  p.p50 = quantile(0.5);
  p.p90 = quantile(0.9);
  p.p99 = quantile(0.99);
  p.p999 = quantile(0.999);
  p.max = max_;
  return p;
}

void LogHistogram::merge(const LogHistogram& other) {
  if (other.count_ == 0) {
    return;
  }
  for (std::size_t b = 0; b < counts_.size(); ++b) {
    counts_[b] += other.counts_[b];
  }
  min_ = count_ == 0 ? other.min_ : std::min(min_, other.min_);
  max_ = count_ == 0 ? other.max_ : std::max(max_, other.max_);
  count_ += other.count_;
  sum_ += other.sum_;
}

}  // namespace gw
