#include "core/histogram.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/rng.h"
#include "core/stats.h"

namespace gw {
namespace {

TEST(LogHistogram, SmallValuesAreExact) {
  LogHistogram h;
  for (int v = 1; v <= 100; ++v) {
    h.record(v);
  }
  EXPECT_EQ(h.quantile(0.5), 50);
  EXPECT_EQ(h.quantile(0.99), 99);
  EXPECT_EQ(h.summary().min, 1);
  EXPECT_EQ(h.summary().max, 100);
  EXPECT_DOUBLE_EQ(h.summary().mean, 50.5);
}

// Against the exact nearest-rank percentiles of the same sample: the histogram's bucket width
// is 1/128 of the value, so every quantile is within 0.8 % above the exact one (never below).
TEST(LogHistogram, QuantilesWithinBucketWidthOfExact) {
  Rng rng(7, "hist");
  LogHistogram h;
  std::vector<std::int64_t> exact;
  for (int i = 0; i < 100000; ++i) {
    const auto v = static_cast<std::int64_t>(1e3 + 1e8 * rng.uniform() * rng.uniform());
    h.record(v);
    exact.push_back(v);
  }
  const Percentiles e = percentiles(exact);
  const Percentiles got = h.summary();
  for (auto [g, x] : {std::pair{got.p50, e.p50}, {got.p90, e.p90}, {got.p99, e.p99}, {got.p999, e.p999}}) {
    EXPECT_GE(g, x);
    EXPECT_LE(static_cast<double>(g), static_cast<double>(x) * (1 + 1.0 / 128));
  }
  EXPECT_EQ(got.max, e.max);
  EXPECT_NEAR(got.mean, e.mean, 1e-6 * e.mean);
}

TEST(LogHistogram, MergeEqualsRecordingBoth) {
  LogHistogram a;
  LogHistogram b;
  LogHistogram both;
  for (int i = 0; i < 1000; ++i) {
    a.record(i * 977);
    both.record(i * 977);
    b.record(i * 31 + 5);
    both.record(i * 31 + 5);
  }
  a.merge(b);
  EXPECT_EQ(a.quantile(0.9), both.quantile(0.9));
  EXPECT_EQ(a.count(), both.count());
  EXPECT_EQ(a.summary().min, both.summary().min);
}

TEST(LogHistogram, LargestValuesFit) {
  LogHistogram h;
  h.record(std::numeric_limits<std::int64_t>::max());
  h.record(-5);  // clamped to 0
  EXPECT_EQ(h.quantile(1.0), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(h.quantile(0.5), 0);
}

}  // namespace
}  // namespace gw
