// Reliability of the queue pair (queue_pair.h) over the deterministic test bench
// (test_channel.h): exactly-once in-order delivery under loss, reordering and duplication
// for both recovery modes; one NAK per gap; bounded retransmissions after a loss burst; the
// RFC 6298 timer as the QP applies it (backoff, cap, Karn's rule). With fixed seeds every
// run is deterministic, so the properties are checked exactly, not statistically.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "unit/transport/test_channel.h"

namespace gw::transport {
namespace {

using testing::Bench;
using testing::ChannelConfig;
using testing::kMs;
using testing::kMtu;
using testing::kUs;
using testing::kWire;

std::vector<Completion> of_kind(const QueuePair& qp, CompletionKind k) {
  std::vector<Completion> v;
  for (const Completion& c : qp.completions()) {
    if (c.kind == k) {
      v.push_back(c);
    }
  }
  return v;
}

// Both sides post messages of random sizes (0 B to 20 kB) at t = 0; each side must receive
// the other's messages once each, in posting order, with their sizes, and see its own
// messages acknowledged once each, in order.
void expect_exactly_once(Recovery recovery, std::uint64_t seed, std::uint32_t initial_psn) {
  TransportConfig cfg;
  cfg.recovery = recovery;
  cfg.mtu_bytes = kMtu;
  cfg.initial_psn = initial_psn;
  cfg.initial_rto = Duration{1 * kMs};
  cfg.min_rto = Duration{200 * kUs};
  ChannelConfig ch;
  ch.delay = Duration{10 * kUs};
  ch.loss = 0.05;
  ch.reorder = 0.05;
  ch.duplicate = 0.05;
  Bench bench(cfg, ch, ch, seed, 32 * kWire, BitRate{10'000'000'000ULL});
  Rng sizes(seed, "sizes");
  std::vector<std::uint64_t> posted[2];
  for (std::uint64_t id = 0; id < 60; ++id) {
    const int side = id % 3 == 0 ? 1 : 0;
    const std::uint64_t bytes = id == 5 ? 0 : sizes.below(20'000);
    posted[side].push_back(bytes);
    (side == 0 ? bench.a() : bench.b()).post_message(kEpoch, id, bytes);
  }
  bench.run(at_ns(10'000 * kMs));

  for (int side = 0; side < 2; ++side) {
    const QueuePair& me = side == 0 ? bench.a() : bench.b();
    const QueuePair& peer = side == 0 ? bench.b() : bench.a();
    const auto received = of_kind(peer, CompletionKind::kReceived);
    const auto acked = of_kind(me, CompletionKind::kSent);
    ASSERT_EQ(received.size(), posted[side].size()) << "side " << side;
    ASSERT_EQ(acked.size(), posted[side].size()) << "side " << side;
    std::uint64_t prev_id = 0;
    for (std::size_t i = 0; i < received.size(); ++i) {
      if (i > 0) {
        EXPECT_GT(received[i].msg_id, prev_id);
      }
      prev_id = received[i].msg_id;
      EXPECT_EQ(received[i].msg_id, acked[i].msg_id);
      EXPECT_EQ(received[i].bytes, posted[side][i]);
      EXPECT_EQ(acked[i].bytes, posted[side][i]);
      EXPECT_LE(received[i].completed, acked[i].completed);
    }
    std::uint64_t total = 0;
    for (std::uint64_t b : posted[side]) {
      total += b;
    }
    EXPECT_EQ(peer.stats().payload_bytes_received, total);
    EXPECT_EQ(me.stats().bytes_delivered, total);
    EXPECT_GT(me.stats().retransmitted_packets, 0U);  // the impairments did bite
    EXPECT_GT(peer.stats().duplicates_received, 0U);
    EXPECT_EQ(me.bytes_in_flight(), 0U);
  }
}

TEST(QueuePair, GoBackNDeliversExactlyOnceInOrderUnderLossReorderDuplication) {
  for (std::uint64_t seed : {1, 2, 3}) {
    expect_exactly_once(Recovery::kGoBackN, seed, 0);
  }
  expect_exactly_once(Recovery::kGoBackN, 4, 0xFFFF00);  // PSNs wrap past 2^24
}

TEST(QueuePair, SelectiveRepeatDeliversExactlyOnceInOrderUnderLossReorderDuplication) {
  for (std::uint64_t seed : {1, 2, 3}) {
    expect_exactly_once(Recovery::kSelectiveRepeat, seed, 0);
  }
  expect_exactly_once(Recovery::kSelectiveRepeat, 4, 0xFFFF00);
}

// Drops the first copy of each data PSN in `psns` (by PSN relative to initial PSN 0).
ChannelConfig drop_first_copies(std::set<std::uint32_t> psns, Duration delay) {
  ChannelConfig ch;
  ch.delay = delay;
  auto dropped = std::make_shared<std::set<std::uint32_t>>();
  ch.drop_if = [psns, dropped](const Segment& s) {
    return s.kind == SegmentKind::kData && psns.contains(s.psn) && dropped->insert(s.psn).second;
  };
  return ch;
}

// Five messages of 64 packets, one after the other, each losing its 10th packet once. All
// 64 packets leave at once (unpaced), so 54 arrive out of order after each gap: the receiver
// must NAK once per gap (not per out-of-order packet), and go-back-N resends exactly the 55
// packets from the gap on.
TEST(QueuePair, GoBackNSendsOneNakPerGap) {
  TransportConfig cfg;
  cfg.mtu_bytes = kMtu;
  std::set<std::uint32_t> drops;
  for (std::uint32_t m = 0; m < 5; ++m) {
    drops.insert(m * 64 + 9);
  }
  Bench bench(cfg, drop_first_copies(drops, Duration{10 * kUs}), ChannelConfig{}, 1);
  for (std::uint64_t m = 0; m < 5; ++m) {
    bench.a().post_message(bench.now(), m, 64 * kMtu);
    bench.run(at_ns(1000 * kMs));
  }
  EXPECT_EQ(bench.b().stats().naks_sent, 5U);
  EXPECT_EQ(bench.a().stats().naks_received, 5U);
  EXPECT_EQ(bench.b().stats().out_of_order_discarded, 5U * 54);
  EXPECT_EQ(bench.a().stats().retransmitted_packets, 5U * 55);
  EXPECT_EQ(bench.a().stats().timeouts, 0U);
  EXPECT_EQ(bench.b().stats().messages_received, 5U);
  EXPECT_EQ(bench.a().stats().messages_sent, 5U);
  ASSERT_EQ(bench.cc_a().losses.size(), 5U);  // one loss event per gap
}

// A 1000-packet message with a window of 100 packets; 50 consecutive packets (PSN 100-149)
// are lost. Bound: go-back-N resends at most lost + window = 150 packets (one rewind, one
// NAK, no timeout); selective repeat resends exactly the 50 holes. Neither times out.
void expect_no_storm(Recovery recovery, std::uint64_t bound) {
  TransportConfig cfg;
  cfg.mtu_bytes = kMtu;
  cfg.recovery = recovery;
  cfg.min_rto = Duration{1 * kMs};
  std::set<std::uint32_t> drops;
  for (std::uint32_t p = 100; p < 150; ++p) {
    drops.insert(p);
  }
  Bench bench(cfg, drop_first_copies(drops, Duration{50 * kUs}), ChannelConfig{.delay = Duration{50 * kUs}},
              1, 100 * kWire, BitRate{10'000'000'000ULL});
  bench.a().post_message(kEpoch, 1, 1000 * kMtu);
  bench.run(at_ns(1000 * kMs));
  const QpStats& st = bench.a().stats();
  EXPECT_EQ(bench.b().stats().messages_received, 1U);
  EXPECT_EQ(st.messages_sent, 1U);
  EXPECT_LE(st.retransmitted_packets, bound);
  EXPECT_GE(st.retransmitted_packets, 50U);
  EXPECT_EQ(st.timeouts, 0U);
  EXPECT_LE(bench.b().stats().naks_sent, 1U);
}

TEST(QueuePair, GoBackNLossBurstCausesNoRetransmissionStorm) {
  expect_no_storm(Recovery::kGoBackN, 50 + 100);
}

TEST(QueuePair, SelectiveRepeatResendsOnlyTheHolesOfALossBurst) {
  expect_no_storm(Recovery::kSelectiveRepeat, 50);
}

// Every data packet is lost: the one packet is resent at each RTO expiry, and the RTO
// doubles from its initial 1 ms up to the 4 ms cap (RFC 6298 §5.5, §2.5): sends at 0, 1, 3,
// 7, 11, 15, 19 ms.
TEST(QueuePair, RetransmissionTimerBacksOffAndIsCapped) {
  TransportConfig cfg;
  cfg.initial_rto = Duration{1 * kMs};
  cfg.min_rto = Duration{1 * kMs};
  cfg.max_rto = Duration{4 * kMs};
  ChannelConfig lossy;
  lossy.loss = 1.0;
  Bench bench(cfg, lossy, ChannelConfig{}, 1);
  bench.a().post_message(kEpoch, 1, 100);
  bench.run(at_ns(20 * kMs));
  std::vector<std::int64_t> sends;
  for (const auto& s : bench.trace()) {
    if (s.from == 0 && s.seg.kind == SegmentKind::kData) {
      sends.push_back(ns_of(s.time));
    }
  }
  const std::vector<std::int64_t> expect{0, 1 * kMs, 3 * kMs, 7 * kMs, 11 * kMs, 15 * kMs, 19 * kMs};
  EXPECT_EQ(sends, expect);
  EXPECT_EQ(bench.a().stats().timeouts, 6U);
  EXPECT_EQ(bench.cc_a().losses.size(), 6U);
  EXPECT_TRUE(bench.cc_a().losses.back().timeout);
}

// RTT 50 us: after one sample SRTT = 50, RTTVAR = 25, RTO = 150 us; after a second equal
// sample RTTVAR = 18.75, RTO = 125 us. Then the next packet is lost once: the RTO fires after
// 125 us, backs off to 250 us, and the ACK of the retransmission gives no sample (Karn), so
// the backed-off RTO stays.
TEST(QueuePair, RtoFollowsRfc6298AndKarnsRule) {
  TransportConfig cfg;
  cfg.min_rto = Duration{10 * kUs};
  const Duration d{25 * kUs};
  Bench bench(cfg, drop_first_copies({2}, d), ChannelConfig{.delay = d}, 1);
  bench.a().post_message(kEpoch, 0, 100);
  bench.run(at_ns(1000 * kMs));
  EXPECT_EQ(bench.a().srtt(), Duration{50 * kUs});
  EXPECT_EQ(bench.a().rto(), Duration{150 * kUs});
  bench.a().post_message(bench.now(), 1, 100);
  bench.run(at_ns(1000 * kMs));
  EXPECT_EQ(bench.a().rto(), Duration{125 * kUs});
  const Instant t = bench.now();
  bench.a().post_message(t, 2, 100);
  bench.run(at_ns(1000 * kMs));
  EXPECT_EQ(bench.a().stats().timeouts, 1U);
  EXPECT_EQ(bench.a().stats().rtt_samples, 2U);
  EXPECT_EQ(bench.a().rto(), Duration{250 * kUs});
  const auto sent = of_kind(bench.a(), CompletionKind::kSent);
  ASSERT_EQ(sent.size(), 3U);
  EXPECT_EQ(sent[2].completed - t, Duration{125 * kUs} + 2 * d);
}

// Reordering by less than the threshold: each packet is overtaken by at most one later one
// (extra delay < 2 packet times at 10 Gbit/s). Selective repeat buffers and resends
// nothing; go-back-N, as RoCE NICs do, NAKs and resends.
TEST(QueuePair, SelectiveRepeatToleratesReorderingBelowTheThreshold) {
  ChannelConfig ch;
  ch.reorder = 0.2;
  ch.reorder_extra = Duration{1500};
  for (Recovery r : {Recovery::kSelectiveRepeat, Recovery::kGoBackN}) {
    TransportConfig cfg;
    cfg.mtu_bytes = kMtu;
    cfg.recovery = r;
    Bench bench(cfg, ch, ChannelConfig{}, 3, std::uint64_t{1} << 30, BitRate{10'000'000'000ULL});
    bench.a().post_message(kEpoch, 1, 1000 * kMtu);
    bench.run(at_ns(1000 * kMs));
    EXPECT_EQ(bench.b().stats().messages_received, 1U);
    if (r == Recovery::kSelectiveRepeat) {
      EXPECT_GT(bench.b().stats().out_of_order_buffered, 50U);
      EXPECT_EQ(bench.a().stats().retransmitted_packets, 0U);
      EXPECT_EQ(bench.b().stats().duplicates_received, 0U);
    } else {
      EXPECT_GT(bench.b().stats().naks_sent, 50U);
      EXPECT_GT(bench.a().stats().retransmitted_packets, 0U);
    }
  }
}

// A queue pair moved mid-transfer from a 30 ms path to a 10 ms one (generators/steering): the
// packets sent after the move overtake the last 20 ms of packets on the old path. Told the lag
// (QueuePair::path_changed), RACK waits for them and nothing is resent; not told, it takes
// them for lost and resends them for nothing.
TEST(QueuePair, APathChangeWithItsLagCausesNoSpuriousResend) {
  for (bool told : {true, false}) {
    TransportConfig cfg;
    cfg.mtu_bytes = kMtu;
    cfg.recovery = Recovery::kSelectiveRepeat;
    ChannelConfig slow;
    slow.delay = Duration{30 * kMs};
    Bench bench(cfg, slow, slow, 5, std::uint64_t{1} << 30, BitRate{1'000'000'000ULL});
    bench.a().post_message(kEpoch, 1, 20'000 * kMtu);
    bench.run(at_ns(100 * kMs));
    bench.set_delay(0, Duration{10 * kMs});
    bench.set_delay(1, Duration{10 * kMs});
    if (told) {
      bench.a().path_changed(bench.now(), Duration{20 * kMs + 2 * kMs + 100 * kUs});
    }
    bench.run(at_ns(10'000 * kMs));
    EXPECT_EQ(bench.b().stats().messages_received, 1U);
    if (told) {
      EXPECT_EQ(bench.a().stats().retransmitted_packets, 0U);
    } else {
      EXPECT_GT(bench.a().stats().retransmitted_packets, 100U) << "the bench no longer reorders at the move";
    }
  }
}

// Garbage arriving at both QPs mid-transfer (random kinds, PSNs, SACK bitmaps, counters,
// hop counts): nothing crashes or reads out of bounds (checked under the ASan preset), and
// the bench still comes to rest.
TEST(QueuePair, RandomSegmentsNeverCrashOrHang) {
  for (Recovery r : {Recovery::kGoBackN, Recovery::kSelectiveRepeat}) {
    TransportConfig cfg;
    cfg.mtu_bytes = kMtu;
    cfg.recovery = r;
    cfg.initial_rto = Duration{1 * kMs};
    cfg.min_rto = Duration{1 * kMs};
    Bench bench(cfg, ChannelConfig{}, ChannelConfig{}, 5, 64 * kWire, BitRate{10'000'000'000ULL});
    bench.a().post_message(kEpoch, 1, 2000 * kMtu);
    bench.b().post_message(kEpoch, 2, 2000 * kMtu);
    Rng rng(77, "garbage");
    for (int slice = 0; slice < 100; ++slice) {
      for (int i = 0; i < 50; ++i) {
        Segment s;
        s.kind = static_cast<SegmentKind>(rng.below(4));
        s.psn = static_cast<std::uint32_t>(rng.below(1U << 24));
        s.echo_psn = static_cast<std::uint32_t>(rng.below(1U << 24));
        s.sack_valid = rng.below(2) == 1;
        s.sack_base = static_cast<std::uint32_t>(rng.below(1U << 24));
        s.sack_bitmap = rng.next_u64();
        s.ce_bytes = rng.next_u64();
        s.ce = rng.below(2) == 1;
        s.last = rng.below(2) == 1;
        s.hop_count = static_cast<std::uint8_t>(rng.below(256));
        s.payload_bytes = static_cast<std::uint32_t>(rng.below(9001));
        s.echo_sent = at_ns(static_cast<std::int64_t>(rng.below(1'000'000'000)));
        const bool to_a = rng.below(2) == 0;
        s.dst_qp = to_a ? 1 : 2;
        (to_a ? bench.a() : bench.b()).on_segment(bench.now(), s);
      }
      bench.run(bench.now() + Duration{20 * kUs});
    }
    bench.run(at_ns(100'000 * kMs));
    EXPECT_LT(bench.now(), at_ns(100'000 * kMs));  // came to rest, not cut off
  }
}

}  // namespace
}  // namespace gw::transport
