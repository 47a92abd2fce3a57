// What the queue pair (queue_pair.h) tells the network and the controller: exact pacing,
// the window bound, CNP rate limiting, ECN counts, one-way delay and RTT, INT echo,
// delivery-rate samples, ACK coalescing, completions, determinism, and config validation.
// All checks are exact: the bench is deterministic and the channel has a fixed delay.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "generators/cc/fixed.h"
#include "unit/transport/test_channel.h"

namespace gw::transport {
namespace {

using testing::Bench;
using testing::ChannelConfig;
using testing::kMs;
using testing::kMtu;
using testing::kUs;
using testing::kWire;
using testing::small_mtu;

std::vector<Instant> send_times(const Bench& bench, int from, SegmentKind kind) {
  std::vector<Instant> t;
  for (const auto& s : bench.trace()) {
    if (s.from == from && s.seg.kind == kind) {
      t.push_back(s.time);
    }
  }
  return t;
}

// At 8 Gbit/s a 1086-byte frame takes exactly 1086 ns; at 10 Gbit/s 868.8 ns, so the k-th
// packet leaves at floor(k * 868.8) ns: the fractional part is carried, not rounded away.
TEST(QueuePair, PacingSpacesPacketsByWireBytesOverRate) {
  for (std::uint64_t rate : {8'000'000'000ULL, 10'000'000'000ULL}) {
    Bench bench(small_mtu(), ChannelConfig{}, ChannelConfig{}, 1, std::uint64_t{1} << 30, BitRate{rate});
    bench.a().post_message(kEpoch, 1, 200 * kMtu);
    bench.run(at_ns(100 * kMs));
    const auto t = send_times(bench, 0, SegmentKind::kData);
    ASSERT_EQ(t.size(), 200U);
    for (std::size_t k = 0; k < t.size(); ++k) {
      const std::uint64_t exact_ns = k * kWire * 8ULL * 1'000'000'000ULL / rate;
      EXPECT_EQ(ns_of(t[k]), static_cast<std::int64_t>(exact_ns)) << "packet " << k << " at " << rate;
    }
  }
}

// A window of 10 full packets: in-flight bytes reach it exactly and never exceed it.
TEST(QueuePair, WindowLimitsBytesInFlight) {
  Bench bench(small_mtu(), ChannelConfig{.delay = Duration{20 * kUs}},
              ChannelConfig{.delay = Duration{20 * kUs}}, 1, 10 * kWire);
  bench.a().post_message(kEpoch, 1, 200 * kMtu);
  bench.run(at_ns(100 * kMs));
  EXPECT_EQ(bench.max_in_flight_a(), 10U * kWire);
  for (const auto& e : bench.cc_a().sent) {
    EXPECT_LE(e.bytes_in_flight, 10U * kWire);
  }
  EXPECT_EQ(bench.b().stats().messages_received, 1U);
  // Window-limited with RTT 40 us: 10 packets per RTT, so 200 packets take 20 RTTs.
  EXPECT_EQ(bench.a().completions().back().completed, at_ns(20 * 40 * kUs));
}

// Every data packet arrives CE-marked for ~1.7 ms: the receiver sends a CNP at the first
// one and then at most one per 50 us; each reaches the controller.
TEST(QueuePair, CnpAtMostOncePerInterval) {
  ChannelConfig marked;
  marked.ce = 1.0;
  Bench bench(small_mtu(), marked, ChannelConfig{}, 1, std::uint64_t{1} << 30, BitRate{10'000'000'000ULL});
  bench.a().post_message(kEpoch, 1, 2000 * kMtu);
  bench.run(at_ns(100 * kMs));
  const auto cnps = send_times(bench, 1, SegmentKind::kCnp);
  const auto data = send_times(bench, 0, SegmentKind::kData);
  ASSERT_FALSE(cnps.empty());
  for (std::size_t i = 1; i < cnps.size(); ++i) {
    EXPECT_GE(cnps[i] - cnps[i - 1], Duration{50 * kUs});
    // ...and not much more: the next marked packet after the interval triggers one.
    EXPECT_LE(cnps[i] - cnps[i - 1], Duration{50 * kUs + 869});
  }
  const Duration span = data.back() - data.front();
  EXPECT_EQ(cnps.size(), static_cast<std::size_t>(span / Duration{50 * kUs + 869}) + 1);
  EXPECT_EQ(bench.a().stats().cnps_received, cnps.size());
  EXPECT_EQ(bench.cc_a().cnps.size(), cnps.size());
  EXPECT_EQ(bench.b().stats().cnps_sent, cnps.size());
}

// Every third data packet is marked CE. The controller's ce_bytes, summed over ACKs, equal
// exactly the wire bytes of the marked packets, and each ACK echoes its trigger's mark.
TEST(QueuePair, EcnCountsEchoExactlyTheCeBytes) {
  ChannelConfig ch;
  ch.edit = [](Segment& s) {
    if (s.kind == SegmentKind::kData && s.psn % 3 == 0) {
      s.ce = true;
    }
  };
  TransportConfig cfg = small_mtu();
  cfg.cnp_enabled = false;
  Bench bench(cfg, ch, ChannelConfig{}, 1);
  bench.a().post_message(kEpoch, 1, 100 * kMtu + 10);  // 100 full packets and one of 10 B
  bench.run(at_ns(100 * kMs));
  std::uint64_t expect = 0;
  for (const auto& s : bench.trace()) {
    if (s.from == 0 && s.seg.kind == SegmentKind::kData && s.seg.psn % 3 == 0) {
      expect += s.seg.wire_bytes();
    }
    if (s.from == 1 && s.seg.kind == SegmentKind::kAck) {
      EXPECT_EQ(s.seg.ce_echo, s.seg.echo_psn % 3 == 0);
    }
  }
  std::uint64_t echoed = 0;
  for (const auto& a : bench.cc_a().acks) {
    echoed += a.e.ce_bytes;
  }
  EXPECT_EQ(echoed, expect);
  EXPECT_EQ(expect, 34U * kWire);  // PSN 0, 3, ..., 99
  EXPECT_EQ(bench.b().stats().cnps_sent, 0U);
}

// Channel delay 37 us each way, ACK per packet: one-way delay is exactly 37 us and the RTT
// exactly 74 us on every ACK; INT hops stamped on data come back on the ACK they trigger.
TEST(QueuePair, OneWayDelayRttAndIntHopsAreEchoed) {
  ChannelConfig ab{.delay = Duration{37 * kUs}};
  ab.edit = [](Segment& s) {
    if (s.kind == SegmentKind::kData) {
      s.hop_count = 1;
      s.int_hops[0] = cc::IntHopEcho{7, s.psn * 10, 0, 0, 100'000'000'000ULL};
    }
  };
  Bench bench(small_mtu(), ab, ChannelConfig{.delay = Duration{37 * kUs}}, 1);
  bench.a().post_message(kEpoch, 1, 50 * kMtu);
  bench.run(at_ns(100 * kMs));
  ASSERT_EQ(bench.cc_a().acks.size(), 50U);
  for (const auto& a : bench.cc_a().acks) {
    EXPECT_EQ(a.e.one_way_delay, Duration{37 * kUs});
    EXPECT_EQ(a.e.rtt, Duration{74 * kUs});
    EXPECT_EQ(a.e.min_rtt, Duration{74 * kUs});
    ASSERT_EQ(a.hops.size(), 1U);
    EXPECT_EQ(a.hops[0].node_id, 7U);
  }
  EXPECT_EQ(bench.cc_a().acks.back().hops[0].queue_bytes, 490U);  // PSN 49's stamp
}

// A sender paced at 8 Gbit/s with an open window delivers at 8 Gbit/s: once the first ACK
// has come back, every sample measures 8 Gbit/s to within one packet per interval.
TEST(QueuePair, DeliveryRateSamplesMeasureThePacedRate) {
  Bench bench(small_mtu(), ChannelConfig{}, ChannelConfig{}, 1, std::uint64_t{1} << 30,
              BitRate{8'000'000'000ULL});
  bench.a().post_message(kEpoch, 1, 500 * kMtu);
  bench.run(at_ns(100 * kMs));
  const auto& acks = bench.cc_a().acks;
  ASSERT_EQ(acks.size(), 500U);
  std::uint64_t delivered = 0;
  for (std::size_t i = 0; i < acks.size(); ++i) {
    delivered += acks[i].e.acked_bytes;
    EXPECT_EQ(acks[i].e.delivered_bytes, delivered);
    if (i < 30) {  // the first RTT (20 us) of samples starts from an empty pipe
      continue;
    }
    const double bps = static_cast<double>(acks[i].e.sample_delivered) * 8e9 /
                       static_cast<double>(acks[i].e.sample_interval.count());
    EXPECT_NEAR(bps, 8e9, 8e9 * kWire / static_cast<double>(acks[i].e.sample_delivered)) << i;
    EXPECT_FALSE(acks[i].e.app_limited);
  }
}

// ACK every 4 packets with a window of 2: the receiver never reaches 4 in-order packets
// before the sender stalls, so the 10 us coalescing timer must release the ACK (no RTO).
TEST(QueuePair, AckCoalescingTimerReleasesHeldAcks) {
  TransportConfig cfg = small_mtu();
  cfg.ack_every_packets = 4;
  Bench bench(cfg, ChannelConfig{}, ChannelConfig{}, 1, 2 * kWire);
  bench.a().post_message(kEpoch, 1, 16 * kMtu);
  bench.run(at_ns(100 * kMs));
  EXPECT_EQ(bench.b().stats().messages_received, 1U);
  EXPECT_EQ(bench.a().stats().timeouts, 0U);
  // 8 rounds of 2 packets, each ACKed after the 10 us delay (the last by its end flag).
  EXPECT_EQ(bench.b().stats().acks_sent, 8U);
  EXPECT_EQ(bench.a().completions().back().completed, at_ns(7 * 30 * kUs + 20 * kUs));

  TransportConfig every4 = small_mtu();
  every4.ack_every_packets = 4;
  Bench open(every4, ChannelConfig{}, ChannelConfig{}, 1);
  open.a().post_message(kEpoch, 1, 64 * kMtu);
  open.run(at_ns(100 * kMs));
  EXPECT_EQ(open.b().stats().acks_sent, 16U);
}

// Completions carry the post time and the time the last byte arrived (receiver) or was
// acknowledged (sender).
TEST(QueuePair, CompletionsCarryPostAndCompletionTimes) {
  Bench bench(small_mtu(), ChannelConfig{}, ChannelConfig{}, 1);
  bench.advance_to(at_ns(5 * kUs));
  bench.a().post_message(at_ns(5 * kUs), 42, 3 * kMtu);
  bench.run(at_ns(100 * kMs));
  const auto& b = bench.b().completions();
  ASSERT_EQ(b.size(), 1U);
  EXPECT_EQ(b[0].kind, CompletionKind::kReceived);
  EXPECT_EQ(b[0].msg_id, 42U);
  EXPECT_EQ(b[0].bytes, 3U * kMtu);
  EXPECT_EQ(b[0].posted, at_ns(5 * kUs));
  EXPECT_EQ(b[0].completed, at_ns(15 * kUs));
  const auto& a = bench.a().completions();
  ASSERT_EQ(a.size(), 1U);
  EXPECT_EQ(a[0].kind, CompletionKind::kSent);
  EXPECT_EQ(a[0].completed, at_ns(25 * kUs));
  bench.a().clear_completions();
  EXPECT_TRUE(bench.a().completions().empty());
}

bool same(const testing::Sent& x, const testing::Sent& y) {
  const Segment& a = x.seg;
  const Segment& b = y.seg;
  return x.time == y.time && x.from == y.from && a.kind == b.kind && a.opcode == b.opcode && a.psn == b.psn &&
         a.payload_bytes == b.payload_bytes && a.msg_id == b.msg_id && a.msg_offset == b.msg_offset &&
         a.sent == b.sent && a.echo_psn == b.echo_psn && a.echo_sent == b.echo_sent &&
         a.ce_bytes == b.ce_bytes && a.sack_base == b.sack_base && a.sack_bitmap == b.sack_bitmap &&
         a.msn == b.msn;
}

std::vector<testing::Sent> lossy_run(Recovery recovery, std::uint64_t seed) {
  TransportConfig cfg = small_mtu();
  cfg.recovery = recovery;
  cfg.initial_rto = Duration{1 * kMs};
  cfg.min_rto = Duration{1 * kMs};
  ChannelConfig ch;
  ch.loss = 0.05;
  ch.reorder = 0.05;
  ch.duplicate = 0.05;
  ch.ce = 0.1;
  Bench bench(cfg, ch, ch, seed, 32 * kWire, BitRate{10'000'000'000ULL});
  for (std::uint64_t id = 0; id < 20; ++id) {
    bench.a().post_message(kEpoch, id, 5000 + 1000 * id);
  }
  bench.run(at_ns(10'000 * kMs));
  return bench.trace();
}

TEST(QueuePair, SameSeedGivesIdenticalSegments) {
  for (Recovery r : {Recovery::kGoBackN, Recovery::kSelectiveRepeat}) {
    const auto x = lossy_run(r, 9);
    const auto y = lossy_run(r, 9);
    ASSERT_EQ(x.size(), y.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      ASSERT_TRUE(same(x[i], y[i])) << "segment " << i;
    }
    const auto z = lossy_run(r, 10);
    bool differs = z.size() != x.size();
    for (std::size_t i = 0; !differs && i < x.size(); ++i) {
      differs = !same(x[i], z[i]);
    }
    EXPECT_TRUE(differs);
  }
}

TEST(QueuePair, SegmentsForAnotherQpAreCountedAndIgnored) {
  Bench bench(small_mtu(), ChannelConfig{}, ChannelConfig{}, 1);
  Segment s;
  s.dst_qp = 99;
  bench.a().on_segment(kEpoch, s);
  Segment ack;
  ack.kind = SegmentKind::kAck;
  ack.dst_qp = 1;
  ack.psn = 5000;  // acknowledges PSNs never sent
  bench.a().on_segment(kEpoch, ack);
  EXPECT_EQ(bench.a().stats().invalid_segments, 2U);
  EXPECT_EQ(bench.a().next_wakeup(), kNever);
}

TEST(TransportConfig, ValidationNamesTheField) {
  auto reason = [](TransportConfig c) {
    try {
      validate(c);
    } catch (const TransportConfigError& e) {
      return e.reason;
    }
    return std::string{};
  };
  EXPECT_EQ(reason(TransportConfig{}), "");
  EXPECT_EQ(reason(TransportConfig{.mtu_bytes = 512}), "mtu_bytes: must be in [1024, 9000], got 512");
  EXPECT_NE(reason(TransportConfig{.ack_every_packets = 0}).find("ack_every_packets"), std::string::npos);
  TransportConfig rto;
  rto.initial_rto = Duration{1};
  EXPECT_NE(reason(rto).find("initial_rto"), std::string::npos);
  TransportConfig psn;
  psn.initial_psn = 1U << 24;
  EXPECT_NE(reason(psn).find("initial_psn"), std::string::npos);
  EXPECT_THROW(QueuePair(TransportConfig{}, 1, 2, nullptr), TransportConfigError);
}

TEST(FixedCc, ReadsItsParametersAndRejectsUnknownOnes) {
  const auto d = cc::make_fixed(cc::CcContext{}, {});
  EXPECT_EQ(d->cwnd_bytes(), std::uint64_t{1} << 30);
  EXPECT_EQ(d->pacing_rate(), BitRate{0});
  EXPECT_EQ(d->name(), "fixed");
  const auto f = cc::make_fixed(cc::CcContext{}, {{"cwnd_bytes", 65536}, {"rate_bps", 1e9}});
  EXPECT_EQ(f->cwnd_bytes(), 65536U);
  EXPECT_EQ(f->pacing_rate(), BitRate{1'000'000'000});
  EXPECT_EQ(f->state().phase, "fixed");
  EXPECT_THROW(cc::make_fixed(cc::CcContext{}, {{"cwnd", 1}}), cc::CcConfigError);
  EXPECT_THROW(cc::make_fixed(cc::CcContext{}, {{"rate_bps", -1}}), cc::CcConfigError);
  EXPECT_THROW(cc::make_fixed(cc::CcContext{}, {{"cwnd_bytes", 0}}), cc::CcConfigError);
}

}  // namespace
}  // namespace gw::transport
