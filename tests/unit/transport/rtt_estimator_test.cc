// RFC 6298 arithmetic of the retransmission timer, with exact integer-nanosecond values.
#include "generators/transport/rtt_estimator.h"

#include <gtest/gtest.h>

namespace gw::transport {
namespace {

constexpr Duration us(std::int64_t n) {
  return Duration{n * 1000};
}

TEST(TransportRto, InitialValueUntilTheFirstSample) {
  RttEstimator r(us(1000), us(10), us(60'000'000));
  EXPECT_EQ(r.rto(), us(1000));
  EXPECT_EQ(r.samples(), 0U);
}

TEST(TransportRto, FirstAndSubsequentSamplesFollowRfc6298) {
  RttEstimator r(us(1000), us(10), us(60'000'000));
  r.on_sample(us(100));  // §2.2: SRTT = R, RTTVAR = R/2, RTO = SRTT + 4 RTTVAR
  EXPECT_EQ(r.srtt(), us(100));
  EXPECT_EQ(r.rttvar(), us(50));
  EXPECT_EQ(r.rto(), us(300));
  r.on_sample(us(200));  // §2.3: RTTVAR = 3/4 * 50 + 1/4 * |100 - 200|; SRTT = 7/8 * 100 + 1/8 * 200
  EXPECT_EQ(r.rttvar(), Duration{62'500});
  EXPECT_EQ(r.srtt(), Duration{112'500});
  EXPECT_EQ(r.rto(), Duration{112'500 + 250'000});
  EXPECT_EQ(r.min_rtt(), us(100));
  EXPECT_EQ(r.samples(), 2U);
}

TEST(TransportRto, MinimumFloorsTheVarianceTermAndMaximumCaps) {
  RttEstimator r(us(1000), us(1000), us(5000));
  r.on_sample(us(10));  // 4 * RTTVAR = 20 us < min: RTO = SRTT + min (Linux's rule)
  EXPECT_EQ(r.rto(), us(1010));
  RttEstimator big(us(1000), us(1000), us(5000));
  big.on_sample(us(4000));  // 4000 + 8000 > max
  EXPECT_EQ(big.rto(), us(5000));
}

// Many equal samples collapse RTTVAR towards 0; RFC 6298's max(min, SRTT + 4 RTTVAR) would then
// fire on any queue growth above SRTT + a few ns. The floor keeps `min` of headroom above SRTT.
TEST(TransportRto, CollapsedVarianceKeepsTheMinimumAboveSrtt) {
  RttEstimator r(us(1'000'000), us(200'000), us(60'000'000));
  for (int i = 0; i < 1000; ++i) {
    r.on_sample(us(300'000));
  }
  EXPECT_LT(r.rttvar(), us(1));
  EXPECT_EQ(r.rto(), us(300'000) + us(200'000));
}

TEST(TransportRto, BackoffDoublesUpToTheMaximumAndASampleResetsIt) {
  RttEstimator r(us(1000), us(100), us(6000));
  r.on_timeout();
  EXPECT_EQ(r.rto(), us(2000));
  r.on_timeout();
  EXPECT_EQ(r.rto(), us(4000));
  r.on_timeout();
  EXPECT_EQ(r.rto(), us(6000));  // capped (§2.5)
  r.on_timeout();
  EXPECT_EQ(r.rto(), us(6000));
  r.on_sample(us(100));
  EXPECT_EQ(r.rto(), us(300));
}

}  // namespace
}  // namespace gw::transport
