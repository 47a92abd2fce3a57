// Reno / NewReno mechanics (RFC 5681 §3.1, RFC 6582 §3.2) driven by an idealized ACK clock.
#include "generators/cc/reno.h"

#include <gtest/gtest.h>

#include "tests/unit/cc/cc_driver.h"

namespace gw::cc {
namespace {

constexpr std::uint32_t kMss = 1000;

CcContext ctx() {
  CcContext c;
  c.mss_bytes = kMss;
  return c;
}

TEST(Reno, SlowStartDoublesWindowEachRoundTrip) {
  Reno reno(ctx(), RenoSettings{});
  test::Driver d(reno, kMss);
  std::uint64_t expected = 10 * kMss;
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(reno.cwnd_bytes(), expected);
    d.round();
    expected *= 2;
  }
  EXPECT_EQ(reno.state().phase, "slow_start");
}

TEST(Reno, CongestionAvoidanceAddsOneMssPerRoundTrip) {
  RenoSettings s;
  s.initial_ssthresh_packets = 10;
  Reno reno(ctx(), s);
  test::Driver d(reno, kMss);
  for (std::uint64_t i = 0; i < 5; ++i) {
    EXPECT_EQ(reno.cwnd_bytes(), (10 + i) * kMss);
    d.round();
  }
}

TEST(Reno, LossHalvesWindowOncePerEpisode) {
  Reno reno(ctx(), RenoSettings{});
  test::Driver d(reno, kMss);
  d.round();
  d.round();  // cwnd 40 packets
  ASSERT_EQ(reno.cwnd_bytes(), 40 * kMss);
  // Three losses out of one window of 40: one reduction, to FlightSize / 2.
  std::uint64_t flight = 40 * kMss;
  for (int i = 0; i < 3; ++i) {
    flight -= kMss;
    reno.on_loss(LossEvent{d.now(), kMss, flight, false});
  }
  EXPECT_EQ(reno.cwnd_bytes(), 20 * kMss);
  EXPECT_EQ(reno.ssthresh_bytes(), 20 * kMss);
  EXPECT_TRUE(reno.in_recovery());
  // The episode ends when the data outstanding at the loss (37 + 3 retransmitted) is acked.
  for (int i = 0; i < 40; ++i) {
    flight = flight >= kMss ? flight - kMss : 0;
    AckEvent a;
    a.now = d.now();
    a.acked_bytes = kMss;
    a.bytes_in_flight = flight;
    reno.on_ack(a);
  }
  EXPECT_FALSE(reno.in_recovery());
  // A loss in the next window is a new episode: halves again.
  const std::uint64_t before = reno.cwnd_bytes();
  reno.on_loss(LossEvent{d.now(), kMss, before - kMss, false});
  EXPECT_EQ(reno.cwnd_bytes(), before / 2);
}

TEST(Reno, TimeoutCollapsesWindowToOneMss) {
  Reno reno(ctx(), RenoSettings{});
  test::Driver d(reno, kMss);
  d.round();  // cwnd 20
  reno.on_loss(LossEvent{d.now(), kMss, 19 * kMss, true});
  EXPECT_EQ(reno.cwnd_bytes(), kMss);
  EXPECT_EQ(reno.ssthresh_bytes(), 10 * kMss);
  EXPECT_EQ(reno.state().phase, "slow_start");
}

TEST(Reno, CeEchoReducesLikeALossOncePerWindow) {
  Reno reno(ctx(), RenoSettings{});
  test::Driver d(reno, kMss);
  d.round();  // cwnd 20
  d.round(test::RoundSpec{.ce = [](std::uint64_t i) { return i % 2 == 0; }});
  EXPECT_EQ(reno.cwnd_bytes(), 10 * kMss);  // FlightSize 20 at the first CE, halved once
}

}  // namespace
}  // namespace gw::cc
