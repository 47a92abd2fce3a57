#include "emulator/engine/incast_stage.h"

#include <gtest/gtest.h>

#include "emulator/engine/pipeline.h"
#include "emulator/engine/profile.h"
#include "tests/unit/engine/sink_for_tests.h"

namespace gw {
namespace {

using testing::CollectingSink;
using testing::udp_packet;
using testing::v4;

DirectionSpec incast(std::uint64_t buffer, double alpha) {
  DirectionSpec d;
  d.incast = IncastSettings{};
  d.incast->buffer_bytes = buffer;
  d.incast->alpha = alpha;
  d.incast->ports.push_back({parse_prefix("198.18.0.2", "t", "$"), BitRate{1'000'000'000}});
  d.incast->ports.push_back({parse_prefix("198.18.0.3", "t", "$"), BitRate{1'000'000'000}});
  return d;
}

// Dynamic Threshold: with alpha = 1 a single congested port settles where its queue equals
// the free buffer, i.e. at half of it (q = B - q).
TEST(IncastStage, OnePortTakesAtMostAlphaOverOnePlusAlphaOfTheBuffer) {
  Pipeline pl(incast(100'000, 1.0), 1, "t");
  CollectingSink sink;
  for (int i = 0; i < 200; ++i) {
    pl.push(udp_packet(1000), kEpoch, sink);
  }
  // One packet on the wire, then 50 queued (50,000 B = half of 100,000).
  EXPECT_EQ(sink.drops[DropCause::kIncastBuffer], 200U - 1 - 50);
  EXPECT_EQ(pl.held_packets(), 51U);
}

TEST(IncastStage, TwoCongestedPortsShareTheBuffer) {
  Pipeline pl(incast(90'000, 1.0), 1, "t");
  CollectingSink sink;
  for (int i = 0; i < 200; ++i) {
    pl.push(udp_packet(1000, Ecn::kNotEct, i % 2 ? v4(198, 18, 0, 2) : v4(198, 18, 0, 3)), kEpoch, sink);
  }
  // Steady state of DT with two ports: each holds alpha (B - 2q) -> q = B/3 = 30,000 B.
  const std::uint64_t held = pl.held_packets();
  EXPECT_GE(held, 2U + 58U);
  EXPECT_LE(held, 2U + 61U);
}

TEST(IncastStage, TrafficToOtherDestinationsPassesUntouched) {
  Pipeline pl(incast(1000, 1.0), 1, "t");
  CollectingSink sink;
  for (int i = 0; i < 50; ++i) {
    pl.push(udp_packet(1500, Ecn::kNotEct, v4(198, 18, 0, 9)), kEpoch, sink);
  }
  EXPECT_EQ(sink.delivered.size(), 50U);
  EXPECT_EQ(sink.delivered.back().time, kEpoch);
}

// 16 virtual senders each send 64 kB at once toward .2; a real packet arriving with them
// finds the port's share of the buffer taken and is dropped, while one to .3 is not.
TEST(IncastStage, SyntheticBurstsCollideWithRealTraffic) {
  DirectionSpec d = incast(200'000, 1.0);
  IncastBurstSettings b;
  b.to = parse_prefix("198.18.0.2", "t", "$");
  b.senders = 16;
  b.bytes_each = 64000;
  b.packet_bytes = 1000;  // the port fills to exactly alpha/(1+alpha) of the buffer
  b.start = Duration{1'000'000};
  d.incast->bursts.push_back(b);
  Pipeline pl(d, 1, "t");
  CollectingSink sink;
  const Instant t = kEpoch + Duration{1'000'000};
  pl.push(udp_packet(1000, Ecn::kNotEct, v4(198, 18, 0, 2)), t, sink);
  pl.push(udp_packet(1000, Ecn::kNotEct, v4(198, 18, 0, 3)), t, sink);
  pl.drain(sink, t);
  EXPECT_EQ(sink.drops[DropCause::kIncastBuffer], 1U);
  ASSERT_EQ(sink.delivered.size(), 1U);
  EXPECT_EQ(sink.delivered[0].headers.dst, v4(198, 18, 0, 3));
  EXPECT_EQ(pl.counters().synthetic_in, 16U * 64U);
  EXPECT_GT(pl.counters().synthetic_dropped, 0U);
}

}  // namespace
}  // namespace gw
