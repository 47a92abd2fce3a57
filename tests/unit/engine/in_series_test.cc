// Links in series as one emulator direction (emulator/engine/in_series.h): what composes and
// what is refused.
#include "emulator/engine/in_series.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gw {
namespace {

DirectionSpec link(Duration delay, std::uint64_t rate_bps, double loss, std::uint64_t limit_bytes) {
  DirectionSpec d;
  d.delay = DelaySettings{};
  d.delay->delay = delay;
  if (rate_bps > 0) {
    d.rate = RateSettings{};
    d.rate->rate = BitRate{rate_bps};
    d.queue = QueueSettings{};
    d.queue->limit_bytes = limit_bytes;
  }
  if (loss > 0) {
    d.loss = LossSettings{};
    d.loss->p = loss;
  }
  return d;
}

TEST(InSeries, OneLinkIsItself) {
  const DirectionSpec a = link(Duration{8'000'000}, 100'000'000, 0.01, 600'000);
  const DirectionSpec s = in_series({{"a", &a}});
  EXPECT_EQ(s.delay->delay, a.delay->delay);
  EXPECT_EQ(s.rate->rate.bps, a.rate->rate.bps);
  EXPECT_DOUBLE_EQ(s.loss->p, 0.01);
}

// Delays add; the slowest link's rate and queue bind; independent losses combine.
TEST(InSeries, DelaysAddTheSlowestRateBindsLossesCombine) {
  const DirectionSpec a = link(Duration{8'000'000}, 100'000'000, 0.01, 600'000);
  const DirectionSpec b = link(Duration{12'000'000}, 50'000'000, 0.02, 300'000);
  const DirectionSpec c = link(Duration{1'000'000}, 0, 0, 0);
  const DirectionSpec s = in_series({{"a", &a}, {"b", &b}, {"c", &c}});
  EXPECT_EQ(s.delay->delay, Duration{21'000'000});
  EXPECT_EQ(s.rate->rate.bps, 50'000'000U);
  EXPECT_EQ(*s.queue->limit_bytes, 300'000U);
  EXPECT_NEAR(s.loss->p, 1 - 0.99 * 0.98, 1e-12);
  EXPECT_FALSE(s.duplicate.has_value());
}

// One link's jitter rides on the summed delay; jitter on two links has no one-stage form.
TEST(InSeries, JitterOnOneLinkOnly) {
  DirectionSpec a = link(Duration{8'000'000}, 0, 0, 0);
  a.delay->jitter = Duration{2'000'000};
  a.delay->reorder_policy = ReorderPolicy::kPreserve;
  const DirectionSpec b = link(Duration{12'000'000}, 0, 0, 0);
  const DirectionSpec s = in_series({{"a", &a}, {"b", &b}});
  EXPECT_EQ(s.delay->delay, Duration{20'000'000});
  EXPECT_EQ(s.delay->jitter, Duration{2'000'000});
  EXPECT_EQ(s.delay->reorder_policy, ReorderPolicy::kPreserve);
  DirectionSpec b2 = b;
  b2.delay->jitter = Duration{1'000'000};
  try {
    (void)in_series({{"west -> pop", &a}, {"pop -> east", &b2}});
    FAIL() << "jitter on two links was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("west -> pop and pop -> east"), std::string::npos) << e.what();
  }
}

TEST(InSeries, BurstyLossIncastAndTwoTracesAreRefused) {
  DirectionSpec ge = link(Duration{1'000'000}, 0, 0, 0);
  ge.loss = LossSettings{};
  ge.loss->model = LossModel::kGemodel;
  const DirectionSpec lossy = link(Duration{1'000'000}, 0, 0.01, 0);
  EXPECT_THROW((void)in_series({{"a", &ge}, {"b", &lossy}}), std::invalid_argument);
  const DirectionSpec clean = link(Duration{1'000'000}, 0, 0, 0);
  EXPECT_EQ(in_series({{"a", &ge}, {"b", &clean}}).loss->model,
            LossModel::kGemodel);  // one bursty link is fine

  DirectionSpec incast = link(Duration{1'000'000}, 0, 0, 0);
  incast.incast = IncastSettings{};
  EXPECT_THROW((void)in_series({{"a", &incast}, {"b", &lossy}}), std::invalid_argument);

  DirectionSpec traced = link(Duration{1'000'000}, 10'000'000, 0, 100'000);
  traced.rate->trace = {{Duration{0}, BitRate{10'000'000}}, {Duration{1'000'000'000}, BitRate{5'000'000}}};
  const DirectionSpec fixed = link(Duration{1'000'000}, 100'000'000, 0, 100'000);
  EXPECT_THROW((void)in_series({{"a", &traced}, {"b", &fixed}}), std::invalid_argument);
  const DirectionSpec open = link(Duration{1'000'000}, 0, 0, 0);
  EXPECT_EQ(in_series({{"a", &traced}, {"b", &open}}).rate->trace.size(), 2U);
}

}  // namespace
}  // namespace gw
