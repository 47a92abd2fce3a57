#include "emulator/engine/queue_stage.h"

#include <gtest/gtest.h>

#include "emulator/engine/int_pool.h"
#include "emulator/engine/pipeline.h"
#include "tests/unit/engine/sink_for_tests.h"

namespace gw {
namespace {

using testing::CollectingSink;
using testing::udp_packet;

DirectionSpec rate_only(BitRate r) {
  DirectionSpec d;
  d.rate = RateSettings{};
  d.rate->rate = r;
  return d;
}

// Back-to-back packets at a 1 Gbit/s link leave exactly one serialization time apart:
// 1500 B = 12,000 bits = 12 us.
TEST(QueueStage, SerializationIsExactInVirtualTime) {
  Pipeline pl(rate_only(BitRate{1'000'000'000}), 1, "t");
  CollectingSink sink;
  for (int i = 0; i < 100; ++i) {
    pl.push(udp_packet(1500), kEpoch, sink);
  }
  pl.drain(sink, kEpoch);
  ASSERT_EQ(sink.delivered.size(), 100U);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(ns_of(sink.delivered[i].time), 12'000 * (i + 1));
  }
}

// netem packet_time_ns: (len + overhead) rounded up to whole cells of (cell + cell_overhead).
TEST(QueueStage, OverheadAndCellsFollowNetem) {
  DirectionSpec d = rate_only(BitRate{8'000'000});  // 1 byte per microsecond
  d.rate->packet_overhead_bytes = 20;
  d.rate->cell_bytes = 48;
  d.rate->cell_overhead_bytes = 5;  // ATM: 53-byte cells carrying 48
  Pipeline pl(d, 1, "t");
  CollectingSink sink;
  pl.push(udp_packet(100), kEpoch, sink);
  pl.drain(sink, kEpoch);
  // 120 bytes -> 3 cells -> 159 bytes -> 159 us.
  ASSERT_EQ(sink.delivered.size(), 1U);
  EXPECT_EQ(ns_of(sink.delivered[0].time), 159'000);
}

TEST(QueueStage, LimitsInPacketsBytesAndTimeDropWithTheirCause) {
  {
    DirectionSpec d = rate_only(BitRate{1'000'000});
    d.queue = QueueSettings{};
    d.queue->limit_packets = 5;
    Pipeline pl(d, 1, "t");
    CollectingSink sink;
    for (int i = 0; i < 10; ++i) {
      pl.push(udp_packet(1000), kEpoch, sink);
    }
    // One on the wire, five queued, four over the limit.
    EXPECT_EQ(sink.drops[DropCause::kQueuePackets], 4U);
  }
  {
    DirectionSpec d = rate_only(BitRate{1'000'000});
    d.queue = QueueSettings{};
    d.queue->limit_bytes = 2500;
    Pipeline pl(d, 1, "t");
    CollectingSink sink;
    for (int i = 0; i < 10; ++i) {
      pl.push(udp_packet(1000), kEpoch, sink);
    }
    EXPECT_EQ(sink.drops[DropCause::kQueueBytes], 7U);  // 1 on the wire + 2 fit
  }
  {
    DirectionSpec d = rate_only(BitRate{8'000'000});  // 1000 B = 1 ms
    d.queue = QueueSettings{};
    d.queue->limit_time = Duration{2'500'000};
    Pipeline pl(d, 1, "t");
    CollectingSink sink;
    for (int i = 0; i < 10; ++i) {
      pl.push(udp_packet(1000), kEpoch, sink);
    }
    pl.drain(sink, kEpoch);
    // Packets starting service at 0, 1, 2 ms have waited <= 2.5 ms; the rest wait longer.
    EXPECT_EQ(sink.delivered.size(), 3U);
    EXPECT_EQ(sink.drops[DropCause::kQueueTime], 7U);
  }
}

// A link of rate `r` whose queue also takes the microburst source `m`.
DirectionSpec with_microbursts(BitRate r, const MicroburstSettings& m) {
  DirectionSpec d = rate_only(r);
  d.queue = QueueSettings{};
  d.queue->microbursts.push_back(m);
  return d;
}

// Cross traffic bursts enter the same queue: real packets behind a burst wait for it.
TEST(QueueStage, MicroburstsDelayRealTrafficByTheBurstsSerialization) {
  MicroburstSettings m;
  m.period = Duration{10'000'000};
  m.start = Duration{1'000'000};
  m.burst_bytes = 150'000;  // 100 x 1500 B = 1.2 ms at 1 Gbit/s
  Pipeline pl(with_microbursts(BitRate{1'000'000'000}, m), 1, "t");
  CollectingSink sink;
  // One packet just after the burst arrives: it waits behind the whole burst.
  pl.push(udp_packet(1500), kEpoch + Duration{1'000'001}, sink);
  pl.drain(sink, kEpoch + Duration{1'000'001});
  ASSERT_EQ(sink.delivered.size(), 1U);
  const auto delay = sink.delivered[0].time - sink.delivered[0].arrival;
  EXPECT_GE(delay.count(), 1'200'000 - 1);
  EXPECT_LE(delay.count(), 1'212'000);
  EXPECT_EQ(pl.counters().synthetic_in, 100U);
  // The cross traffic never reaches the sink.
  EXPECT_EQ(pl.counters().delivered, 1U);
}

// One burst per period whatever its jitter: 2 ms +- 0.5 ms for 1 s is 500 bursts (the
// jitter moves a burst within its slot, never adds one; a source that scheduled the slot of
// an early burst again made ~2 per period). Exact but for the last slot, which its jitter may
// push past the end.
TEST(QueueStage, MicroburstJitterKeepsOneBurstPerPeriod) {
  MicroburstSettings m;
  m.period = Duration{2'000'000};
  m.jitter = Duration{500'000};
  m.burst_bytes = 15'000;  // 10 x 1500 B
  Pipeline pl(with_microbursts(BitRate{10'000'000'000}, m), 7, "t");
  CollectingSink sink;
  pl.advance(kEpoch + Duration{1'000'000'000}, sink);
  const std::uint64_t bursts = pl.counters().synthetic_in / 10;
  EXPECT_GE(bursts, 499U);
  EXPECT_LE(bursts, 501U);
}

TEST(QueueStage, IntStampsQueueDepthLatencyAndRate) {
  DirectionSpec d = rate_only(BitRate{1'000'000'000});
  d.queue = QueueSettings{};
  d.queue->telemetry.enabled = true;
  d.queue->telemetry.node_id = 42;
  Pipeline pl(d, 1, "t");
  CollectingSink sink;
  IntPool stacks;
  for (int i = 0; i < 3; ++i) {
    Packet p = udp_packet(1500);
    p.telemetry = stacks.take();
    pl.push(std::move(p), kEpoch, sink);
  }
  pl.drain(sink, kEpoch);
  ASSERT_EQ(sink.delivered.size(), 3U);
  for (int i = 0; i < 3; ++i) {
    const IntStack& t = *sink.delivered[i].telemetry;
    ASSERT_EQ(t.hops, 1);
    EXPECT_EQ(t.hop[0].node_id, 42U);
    EXPECT_EQ(t.hop[0].hop_latency_ns, 12'000U * (i + 1));
    EXPECT_EQ(t.hop[0].link_rate_mbps, 1000U);
    EXPECT_EQ(t.hop[0].egress_ts_ns, 12'000U * (i + 1));
  }
  // Occupancy as each packet leaves, before the next starts: two, one, none waiting.
  EXPECT_EQ(sink.delivered[0].telemetry->hop[0].queue_bytes, 3000U);
  EXPECT_EQ(sink.delivered[1].telemetry->hop[0].queue_bytes, 1500U);
  EXPECT_EQ(sink.delivered[2].telemetry->hop[0].queue_bytes, 0U);
}

// A packet without a telemetry stack (its owner keeps none) passes an INT queue unstamped;
// one whose stack is full (three hops) is not stamped past it.
TEST(QueueStage, IntStampsOnlyWhereThereIsRoom) {
  DirectionSpec d = rate_only(BitRate{1'000'000'000});
  d.queue = QueueSettings{};
  d.queue->telemetry.enabled = true;
  Pipeline pl(d, 1, "t");
  CollectingSink sink;
  IntPool stacks;
  Packet full = udp_packet(1500);
  full.telemetry = stacks.take();
  full.telemetry->hops = IntStack::kMaxHops;
  pl.push(udp_packet(1500), kEpoch, sink);
  pl.push(std::move(full), kEpoch, sink);
  pl.drain(sink, kEpoch);
  ASSERT_EQ(sink.delivered.size(), 2U);
  EXPECT_EQ(sink.delivered[0].telemetry, nullptr);
  EXPECT_EQ(sink.delivered[1].telemetry->hops, IntStack::kMaxHops);
  EXPECT_EQ(sink.delivered[1].telemetry->hop[IntStack::kMaxHops - 1].node_id, 0U);
}

// A sink that keeps telemetry, as the simulator and the forwarder do: each duplicate's copy
// gets a stack of its own.
class IntKeepingSink final : public PacketSink {
 public:
  void deliver(Packet&& p) override { delivered.push_back(p); }
  void dropped(Packet&& /*p*/, DropCause /*cause*/) override {}
  void duplicated(Packet& copy) override {
    if (copy.telemetry != nullptr) {
      copy.telemetry = stacks.take_copy(*copy.telemetry);
    }
  }
  IntPool stacks;
  std::vector<Packet> delivered;
};

// Duplicates made before the queue: the original and its copy each carry exactly the one hop
// the queue stamped on them, in stacks of their own; with a sink that keeps no telemetry the
// copy carries none and the original still one hop (not the copy's as well).
TEST(QueueStage, IntDuplicatesGetTheirOwnStacks) {
  DirectionSpec d = rate_only(BitRate{1'000'000'000});
  d.duplicate = ChanceSettings{};
  d.duplicate->p = 1.0;
  d.queue = QueueSettings{};
  d.queue->telemetry.enabled = true;
  {
    Pipeline pl(d, 1, "t");
    IntKeepingSink sink;
    Packet p = udp_packet(1500);
    p.telemetry = sink.stacks.take();
    pl.push(std::move(p), kEpoch, sink);
    pl.drain(sink, kEpoch);
    ASSERT_EQ(sink.delivered.size(), 2U);
    EXPECT_NE(sink.delivered[0].telemetry, sink.delivered[1].telemetry);
    EXPECT_EQ(sink.stacks.in_use(), 2U);
    for (const Packet& q : sink.delivered) {
      ASSERT_NE(q.telemetry, nullptr);
      EXPECT_EQ(q.telemetry->hops, 1);
      EXPECT_EQ(q.telemetry->hop[0].egress_ts_ns, static_cast<std::uint64_t>(ns_of(q.time)));
    }
  }
  {
    Pipeline pl(d, 1, "t");
    CollectingSink sink;
    IntPool stacks;
    Packet p = udp_packet(1500);
    p.telemetry = stacks.take();
    pl.push(std::move(p), kEpoch, sink);
    pl.drain(sink, kEpoch);
    ASSERT_EQ(sink.delivered.size(), 2U);
    const Packet& original = sink.delivered[0].duplicate ? sink.delivered[1] : sink.delivered[0];
    const Packet& copy = sink.delivered[0].duplicate ? sink.delivered[0] : sink.delivered[1];
    EXPECT_EQ(copy.telemetry, nullptr);
    ASSERT_NE(original.telemetry, nullptr);
    EXPECT_EQ(original.telemetry->hops, 1);
  }
}

// The pool hands out stacks that stay put while it grows, clears each it hands out, and
// reuses what comes back.
TEST(IntPool, StacksStayPutAndAreReused) {
  IntPool pool;
  std::vector<IntStack*> taken;
  for (int i = 0; i < 3000; ++i) {  // three blocks
    taken.push_back(pool.take());
    taken.back()->hops = 2;
    taken.back()->hop[0].node_id = static_cast<std::uint32_t>(i);
  }
  EXPECT_EQ(pool.in_use(), 3000U);
  for (int i = 0; i < 3000; ++i) {
    EXPECT_EQ(taken[i]->hop[0].node_id, static_cast<std::uint32_t>(i));  // none moved
  }
  IntStack* back = taken[1234];
  pool.give(back);
  pool.give(nullptr);
  EXPECT_EQ(pool.in_use(), 2999U);
  IntStack* again = pool.take();
  EXPECT_EQ(again, back);
  EXPECT_EQ(again->hops, 0);
  IntStack* copy = pool.take_copy(*taken[7]);
  EXPECT_NE(copy, taken[7]);
  EXPECT_EQ(copy->hops, 2);
  EXPECT_EQ(copy->hop[0].node_id, 7U);
}

TEST(QueueStage, RateTraceChangesServiceRate) {
  DirectionSpec d;
  d.rate = RateSettings{};
  d.rate->trace = {{Duration{0}, BitRate{8'000'000}}, {Duration{10'000'000}, BitRate{80'000'000}}};
  Pipeline pl(d, 1, "t");
  CollectingSink sink;
  pl.push(udp_packet(1000), kEpoch, sink);                         // 1 ms at 8 Mbit/s
  pl.push(udp_packet(1000), kEpoch + Duration{20'000'000}, sink);  // 0.1 ms at 80 Mbit/s
  pl.drain(sink, kEpoch + Duration{20'000'000});
  ASSERT_EQ(sink.delivered.size(), 2U);
  EXPECT_EQ(ns_of(sink.delivered[0].time), 1'000'000);
  EXPECT_EQ(ns_of(sink.delivered[1].time), 20'100'000);
}

// Mahimahi: each delivery opportunity carries 1504 bytes; a 3000-byte packet needs two.
TEST(QueueStage, MahimahiOpportunitiesCarry1504Bytes) {
  DirectionSpec d;
  d.rate = RateSettings{};
  d.rate->mahimahi = {Duration{1'000'000}, Duration{2'000'000}, Duration{3'000'000}, Duration{4'000'000}};
  d.rate->mahimahi_period = Duration{4'000'000};
  Pipeline pl(d, 1, "t");
  CollectingSink sink;
  pl.push(udp_packet(1000), kEpoch, sink);
  pl.push(udp_packet(3000), kEpoch, sink);
  pl.drain(sink, kEpoch);
  ASSERT_EQ(sink.delivered.size(), 2U);
  EXPECT_EQ(ns_of(sink.delivered[0].time), 1'000'000);
  // The 3000-byte packet gets 504 bytes at 1 ms, 1504 at 2 ms, the last 992 at 3 ms.
  EXPECT_EQ(ns_of(sink.delivered[1].time), 3'000'000);
}

}  // namespace
}  // namespace gw
