#include "core/rng.h"

#include <gtest/gtest.h>

namespace gw {
namespace {

TEST(Rng, SameSeedAndStreamGiveSameDraws) {
  Rng a(42, "loss");
  Rng b(42, "loss");
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(a.next_u64(), b.next_u64());
  }
}

TEST(Rng, DistinctStreamsDiffer) {
  Rng a(42, "loss");
  Rng b(42, "delay");
  int same = 0;
  for (int i = 0; i < 1000; ++i) {
    same += a.next_u64() == b.next_u64() ? 1 : 0;
  }
  EXPECT_EQ(same, 0);
}

// Mean of n uniforms has sd 1/sqrt(12 n) = 0.00091 for n = 1e5; 5 sd = 0.0046.
TEST(Rng, UniformMeanIsOneHalf) {
  Rng r(7, "u");
  double sum = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / n, 0.5, 0.0046);
}

}  // namespace
}  // namespace gw
