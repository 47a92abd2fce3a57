// attribute_time (harness/run/time_attribution.h): the parts add up to the measured time to the
// nanosecond, the model parts come from the α-β bounds, and the transport's excess goes where
// the senders' states say.
#include <gtest/gtest.h>

#include "harness/run/time_attribution.h"
#include "reports/result_input.h"

namespace gw {
namespace {

constexpr std::int64_t kMs = 1'000'000;
using transport::SendState;

Duration ms(double v) {
  return Duration{static_cast<std::int64_t>(v * kMs)};
}

TEST(TimeAttribution, FasterThanTheModelScalesTheModelParts) {
  const ModelTimes model{ms(40), ms(60), ms(120)};  // 40 latency, 20 links, 60 more NCCL window
  const TimeAttribution a = attribute_time(ms(60), model, std::nullopt);
  EXPECT_EQ(a.total(), ms(60));
  EXPECT_EQ(a[TimePart::kPropagation], ms(20));
  EXPECT_EQ(a[TimePart::kSerialization], ms(10));
  EXPECT_EQ(a[TimePart::kNcclWindow], ms(30));
  EXPECT_FALSE(a.transport_measured);
}

TEST(TimeAttribution, WithoutSenderStatesTheExcessIsOther) {
  const TimeAttribution a = attribute_time(ms(100), ModelTimes{ms(40), ms(60), ms(60)}, std::nullopt);
  EXPECT_EQ(a[TimePart::kPropagation], ms(40));
  EXPECT_EQ(a[TimePart::kSerialization], ms(20));
  EXPECT_EQ(a[TimePart::kNcclWindow], Duration{0});
  EXPECT_EQ(a[TimePart::kOther], ms(40));
  EXPECT_EQ(a.total(), ms(100));
}

// RTT samples 25 % above the minimum inflate each latency term by 25 %; the rest of the
// excess follows the time held back by each cause (1 : 2 : 1).
TEST(TimeAttribution, ExcessGoesToQueueingThenToWhatHeldTheSendersBack) {
  WanLedger wan;
  wan.chrono.rtt_base = ms(400);
  wan.chrono.rtt_queueing = ms(100);
  wan.chrono[SendState::kCwndLimited] = ms(10);
  wan.chrono[SendState::kCcLimited] = ms(20);
  wan.chrono[SendState::kRecovery] = ms(10);
  wan.chrono[SendState::kBusy] = ms(500);  // the network at work: not an excess
  const TimeAttribution a = attribute_time(ms(150), ModelTimes{ms(40), ms(60), ms(70)}, wan);
  EXPECT_TRUE(a.transport_measured);
  EXPECT_EQ(a[TimePart::kNcclWindow], ms(10));
  EXPECT_EQ(a[TimePart::kQueueing], ms(10));
  EXPECT_EQ(a[TimePart::kCwndWindow], ms(17.5));
  EXPECT_EQ(a[TimePart::kCcCuts], ms(35));
  EXPECT_EQ(a[TimePart::kLossRecovery], ms(17.5));
  EXPECT_EQ(a[TimePart::kOther], Duration{0});
  EXPECT_EQ(a.total(), ms(150));
}

TEST(TimeAttribution, QueueingNeverExceedsTheExcessAndIdleStatesLeaveOther) {
  WanLedger wan;
  wan.chrono.rtt_base = ms(1);
  wan.chrono.rtt_queueing = ms(10);  // a tenfold inflation
  TimeAttribution a = attribute_time(ms(70), ModelTimes{ms(40), ms(60), ms(60)}, wan);
  EXPECT_EQ(a[TimePart::kQueueing], ms(10));
  EXPECT_EQ(a.total(), ms(70));
  wan.chrono.rtt_queueing = Duration{0};
  a = attribute_time(ms(70), ModelTimes{ms(40), ms(60), ms(60)}, wan);
  EXPECT_EQ(a[TimePart::kOther], ms(10));
}

// Rounding: parts of odd sizes still add up to the nanosecond.
TEST(TimeAttribution, PartsAddUpExactlyUnderRounding) {
  WanLedger wan;
  wan.chrono[SendState::kCwndLimited] = Duration{3};
  wan.chrono[SendState::kCcLimited] = Duration{3};
  wan.chrono[SendState::kRecovery] = Duration{3};
  for (std::int64_t m = 1; m < 200; m += 7) {
    const TimeAttribution a =
        attribute_time(Duration{m}, ModelTimes{Duration{7}, Duration{13}, Duration{29}}, wan);
    EXPECT_EQ(a.total(), Duration{m}) << m;
  }
}

// result.json is written with time_part_name and read with reports::kTimePartNames.
TEST(TimeAttribution, ResultWriterAndReaderNameThePartsAlike) {
  ASSERT_EQ(reports::kTimePartNames.size(), kTimeParts);
  for (std::size_t i = 0; i < kTimeParts; ++i) {
    EXPECT_EQ(time_part_name(static_cast<TimePart>(i)), reports::kTimePartNames[i]);
  }
}

}  // namespace
}  // namespace gw
