#include "emulator/engine/slot_stage.h"

#include <gtest/gtest.h>

#include "emulator/engine/pipeline.h"
#include "tests/unit/engine/sink_for_tests.h"

namespace gw {
namespace {

using testing::CollectingSink;
using testing::udp_packet;

TEST(SlotStage, PacketsLeaveInSlotsOfAtMostTheBudget) {
  DirectionSpec d;
  d.slot = SlotSettings{};
  d.slot->min_delay = Duration{1'000'000};
  d.slot->max_delay = Duration{3'000'000};
  d.slot->max_packets = 4;
  Pipeline pl(d, 5, "t");
  CollectingSink sink;
  for (int i = 0; i < 100; ++i) {
    pl.push(udp_packet(500), kEpoch + Duration{i * 10'000}, sink);
  }
  pl.drain(sink, kEpoch + Duration{1'000'000});
  ASSERT_EQ(sink.delivered.size(), 100U);
  // Group releases by instant: no slot releases more than 4, and slots are 1-3 ms apart.
  std::vector<std::pair<Instant, int>> slots;
  for (const Packet& p : sink.delivered) {
    if (slots.empty() || slots.back().first != p.time) {
      slots.emplace_back(p.time, 0);
    }
    ++slots.back().second;
    EXPECT_GE(p.time, p.arrival);
  }
  for (std::size_t i = 0; i < slots.size(); ++i) {
    EXPECT_LE(slots[i].second, 4);
    if (i > 0) {
      const auto gap = slots[i].first - slots[i - 1].first;
      EXPECT_GE(gap.count(), 1'000'000);
      EXPECT_LE(gap.count(), 3'000'000);
    }
  }
  EXPECT_EQ(slots.size(), 25U);
}

TEST(SlotStage, ByteBudgetClosesASlot) {
  DirectionSpec d;
  d.slot = SlotSettings{};
  d.slot->min_delay = Duration{1'000'000};
  d.slot->max_delay = Duration{1'000'000};
  d.slot->max_bytes = 3000;
  Pipeline pl(d, 5, "t");
  CollectingSink sink;
  for (int i = 0; i < 10; ++i) {
    pl.push(udp_packet(1000), kEpoch + Duration{1'500'000}, sink);
  }
  pl.drain(sink, kEpoch + Duration{1'500'000});
  ASSERT_EQ(sink.delivered.size(), 10U);
  // The first slot went stale at 1 ms; redrawn at 1.5 ms -> 2.5 ms, then every 1 ms, 3 each.
  EXPECT_EQ(ns_of(sink.delivered[0].time), 2'500'000);
  EXPECT_EQ(ns_of(sink.delivered[2].time), 2'500'000);
  EXPECT_EQ(ns_of(sink.delivered[3].time), 3'500'000);
  EXPECT_EQ(ns_of(sink.delivered[9].time), 5'500'000);
}

}  // namespace
}  // namespace gw
