// The UDP endpoint runtime over loopback (no root): the same QueuePair code as the simulator,
// on real sockets and the real clock.
#include "harness/live/endpoints/udp_endpoint.h"

#include <gtest/gtest.h>

#include <map>

#include <algorithm>
#include <numeric>
#include <vector>

#include "emulator/fabric/path_ports.h"
#include "generators/transport/rocev2.h"
#include "harness/live/endpoints/clock.h"
#include "harness/live/endpoints/wire.h"

namespace gw::endpoints {
namespace {

// Every test's run time starts when the process does (RunTime below uses the same epoch).
const std::int64_t kEpochNs = monotonic_ns();

UdpEndpointConfig loopback_config(const std::string& cc, cc::CcParams params = {}) {
  UdpEndpointConfig c;
  c.epoch_monotonic_ns = kEpochNs;
  c.bind_address = "127.0.0.1";
  c.port = 0;
  c.cc = cc;
  c.cc_params = std::move(params);
  c.transport.mtu_bytes = 1400;
  c.transport.recovery = transport::Recovery::kSelectiveRepeat;
  c.cc_context.line_rate_bps = 1'000'000'000;
  return c;
}

// Runs both endpoints until `receiver` has `want` deliveries or `limit` passes.
std::vector<Delivery> exchange(UdpEndpoint& sender, UdpEndpoint& receiver, const RunTime& rt,
                               std::size_t want, Duration limit) {
  std::vector<Delivery> got;
  const Instant end = rt.now() + limit;
  while (got.size() < want) {
    Instant now = rt.now();
    if (now > end) {
      break;
    }
    sender.poll(now);
    receiver.poll(now);
    for (const Delivery& d : receiver.take_deliveries()) {
      got.push_back(d);
    }
    now = rt.now();
    const Instant next = std::min({sender.next_wakeup(), receiver.next_wakeup(), now + Duration{200'000}});
    sender.wait(next, now, rt.epoch_ns(), -1);
  }
  return got;
}

TEST(EndpointWire, DataSegmentIsARoceV2FrameCarryingItsMetadata) {
  transport::Segment s;
  s.kind = transport::SegmentKind::kData;
  s.opcode = transport::opcode::kSendLast;
  s.dst_qp = 0x123;
  s.psn = 77;
  s.payload_bytes = 1001;
  s.last = true;
  s.msg_id = 42;
  s.msg_offset = 8192;
  s.msg_posted = at_ns(1000);
  s.sent = at_ns(123'456'789);
  std::vector<std::uint8_t> buf(max_udp_payload(s));
  const std::size_t n = encode_segment(s, buf);
  ASSERT_GT(n, 0U);
  // What tshark's infiniband dissector sees: a BTH with our QP and PSN.
  const auto frame = transport::decode_frame({buf.data(), n});
  ASSERT_TRUE(std::holds_alternative<transport::Frame>(frame));
  EXPECT_EQ(std::get<transport::Frame>(frame).bth.dest_qp, 0x123U);
  EXPECT_EQ(std::get<transport::Frame>(frame).bth.psn, 77U);
  EXPECT_EQ(std::get<transport::Frame>(frame).payload.size(), kDataMetaSize + 1001);
  const auto back = decode_segment({buf.data(), n}, 0x122, transport::Ecn::kCe);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->payload_bytes, 1001U);
  EXPECT_EQ(back->msg_id, 42U);
  EXPECT_EQ(back->msg_offset, 8192U);
  EXPECT_EQ(back->msg_posted, at_ns(1000));
  EXPECT_EQ(back->sent, at_ns(123'456'789));
  EXPECT_TRUE(back->last);
  EXPECT_TRUE(back->ce);
  EXPECT_EQ(back->src_qp, 0x122U);
}

// A datagram has no length field of its own (RoCE relies on the ICRC, which is not computed
// here), so a cut at a 4-byte boundary past the metadata reads as a shorter payload; anything
// shorter than BTH + metadata + ICRC must be rejected.
TEST(EndpointWire, DatagramsShorterThanHeadersAndMetadataAreRejected) {
  transport::Segment s;
  s.kind = transport::SegmentKind::kData;
  s.opcode = transport::opcode::kSendOnly;
  s.payload_bytes = 8;
  std::vector<std::uint8_t> buf(max_udp_payload(s));
  const std::size_t n = encode_segment(s, buf);
  ASSERT_EQ(n, transport::kBthSize + kDataMetaSize + 8 + transport::kIcrcSize);
  for (std::size_t cut = 0; cut < transport::kBthSize + kDataMetaSize + transport::kIcrcSize; ++cut) {
    EXPECT_FALSE(decode_segment({buf.data(), cut}, 0, transport::Ecn::kNotEct).has_value()) << cut;
  }
}

TEST(UdpEndpoint, MessagesArriveExactlyOnceAndInOrderOverLoopback) {
  UdpEndpoint receiver(loopback_config("cubic"));
  UdpEndpointConfig sc = loopback_config("cubic");
  sc.peer_port = receiver.port();
  UdpEndpoint sender(sc);
  const RunTime rt(kEpochNs);
  // Sizes around the packet size (0 = one empty packet) and a large one.
  const std::vector<std::uint64_t> sizes = {0, 1, 1399, 1400, 1401, 65536, 1 << 20, 3, 2800, 100'000};
  for (std::uint64_t i = 0; i < sizes.size(); ++i) {
    sender.post(0x100, "127.0.0.1", 1000 + i, sizes[i], rt.now());
  }
  const std::vector<Delivery> got = exchange(sender, receiver, rt, sizes.size(), Duration{10'000'000'000});
  ASSERT_EQ(got.size(), sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(got[i].msg_id, 1000 + i);
    EXPECT_EQ(got[i].bytes, sizes[i]);
    EXPECT_EQ(got[i].qp, 0x101U);
    EXPECT_LE(got[i].posted, got[i].completed);
  }
  // Nothing more arrives afterwards (no duplicate deliveries), and the sender hears every ACK.
  const std::vector<Delivery> more = exchange(sender, receiver, rt, 1, Duration{200'000'000});
  EXPECT_TRUE(more.empty());
  const auto qps = sender.queue_pairs();
  ASSERT_EQ(qps.size(), 1U);
  EXPECT_EQ(qps[0].pair->stats().messages_sent, sizes.size());
  EXPECT_EQ(receiver.counters().receiving_qps_opened, 1U);
  EXPECT_EQ(receiver.queue_pairs()[0].pair->stats().payload_bytes_received,
            std::accumulate(sizes.begin(), sizes.end(), std::uint64_t{0}));
  EXPECT_GT(receiver.one_way_delay().count(), 0U);
}

TEST(UdpEndpoint, TwoConnectionsShareOneSocketApartByQp) {
  UdpEndpoint receiver(loopback_config("reno"));
  UdpEndpointConfig sc = loopback_config("reno");
  sc.peer_port = receiver.port();
  UdpEndpoint sender(sc);
  const RunTime rt(kEpochNs);
  for (std::uint64_t i = 0; i < 6; ++i) {
    sender.post(i % 2 == 0 ? 0x100 : 0x200, "127.0.0.1", i, 50'000 + i, rt.now());
  }
  const std::vector<Delivery> got = exchange(sender, receiver, rt, 6, Duration{10'000'000'000});
  ASSERT_EQ(got.size(), 6U);
  // In order per connection (the two interleave freely).
  std::vector<std::uint64_t> on_a;
  std::vector<std::uint64_t> on_b;
  for (const Delivery& d : got) {
    (d.qp == 0x101 ? on_a : on_b).push_back(d.msg_id);
    EXPECT_EQ(d.bytes, 50'000 + d.msg_id);
  }
  EXPECT_EQ(on_a, (std::vector<std::uint64_t>{0, 2, 4}));
  EXPECT_EQ(on_b, (std::vector<std::uint64_t>{1, 3, 5}));
}

// A scenario flow's own controller (live_flows.cc): set before its QP opens, that QP runs it
// and the endpoint's other QPs keep the config's; set on an open QP, it changes nothing.
// Paths (docs/steering.md "Live"): a QP sends from its path's socket, whose port lies in the
// path's range; the receiver answers on the path its sender is on, and follows a move.
TEST(UdpEndpoint, AQpSendsFromItsPathsPortAndFollowsAMove) {
  UdpEndpointConfig rc = loopback_config("reno");
  rc.paths = 2;
  UdpEndpoint receiver(rc);
  UdpEndpointConfig sc = loopback_config("reno");
  sc.paths = 2;
  sc.peer_port = receiver.port();
  UdpEndpoint sender(sc);
  for (std::uint32_t k = 0; k < 2; ++k) {
    EXPECT_EQ(fabric::path_of_port(sender.path_port(k)), k);
    EXPECT_EQ(fabric::path_of_port(receiver.path_port(k)), k);  // the next free port of the range
  }
  const RunTime rt(kEpochNs);
  sender.post(0x100, "127.0.0.1", 0, 200'000, rt.now(), 1);
  ASSERT_EQ(exchange(sender, receiver, rt, 1, Duration{5'000'000'000}).size(), 1U);
  EXPECT_TRUE(exchange(sender, receiver, rt, 1, Duration{200'000'000}).empty());  // the last ACKs read
  ASSERT_EQ(receiver.queue_pairs().size(), 1U);
  const QpView in = receiver.queue_pairs()[0];
  EXPECT_EQ(in.path, 1);
  EXPECT_EQ(in.peer, "127.0.0.1:" + std::to_string(sender.path_port(1)));  // answered where it came from
  EXPECT_EQ(sender.queue_pairs()[0].path, 1);
  EXPECT_EQ(sender.queue_pairs()[0].pair->stats().messages_sent, 1U);  // the ACKs came back

  // Moved to path 0 with a lag: the next message leaves from path 0's port, the receiver follows.
  EXPECT_TRUE(sender.move(0x100, 0, Duration{5'000'000}, rt.now()));
  EXPECT_FALSE(sender.move(0x102, 0, Duration{0}, rt.now()));  // not open
  sender.post(0x100, "127.0.0.1", 1, 200'000, rt.now());
  ASSERT_EQ(exchange(sender, receiver, rt, 1, Duration{5'000'000'000}).size(), 1U);
  EXPECT_EQ(receiver.queue_pairs()[0].path, 0);
  EXPECT_EQ(sender.queue_pairs()[0].pair->stats().retransmitted_packets, 0U);
  EXPECT_TRUE(exchange(sender, receiver, rt, 1, Duration{200'000'000}).empty());  // the last ACKs read
  EXPECT_EQ(receiver.counters().datagrams_received + sender.counters().datagrams_received,
            receiver.counters().datagrams_sent + sender.counters().datagrams_sent);
}

TEST(UdpEndpoint, AQpOpensWithItsOwnController) {
  UdpEndpoint receiver(loopback_config("cubic"));
  UdpEndpointConfig sc = loopback_config("cubic");
  sc.peer_port = receiver.port();
  UdpEndpoint sender(sc);
  const RunTime rt(kEpochNs);
  sender.set_controller(0x200, "bbr", {});
  sender.post(0x100, "127.0.0.1", 0, 20'000, rt.now());
  sender.post(0x200, "127.0.0.1", 1, 20'000, rt.now());
  sender.set_controller(0x100, "reno", {});  // already open: stays cubic
  sender.post(0x100, "127.0.0.1", 2, 20'000, rt.now());
  ASSERT_EQ(exchange(sender, receiver, rt, 3, Duration{10'000'000'000}).size(), 3U);
  std::map<std::uint32_t, std::string> cc;
  for (const QpView& q : sender.queue_pairs()) {
    cc[q.qp] = std::string(q.pair->congestion_control().name());
  }
  EXPECT_EQ(cc, (std::map<std::uint32_t, std::string>{{0x100, "cubic"}, {0x200, "bbr"}}));
  EXPECT_THROW(sender.set_controller(0x301, "bbr", {}), std::invalid_argument);  // a receiving QP
}

// Pacing with the real clock: a fixed 200 Mbit/s controller sends 2 MB in (wire bytes x 8 /
// rate) = ~84 ms. Bound [0.95, 4] x that: below means pacing was not applied (loopback alone
// moves 2 MB in ~1 ms); above, the rate does not hold. A QP whose wakeup came late is polled
// at the instants it asked for, and what it owed before an arriving ACK leaves before the ACK
// is fed to it (else the ACK's arrival time restarts its pacing and each late wakeup costs
// its lateness). Measured on this 2-vCPU machine: 1.19-1.33x at a load average of 6,
// 1.89-1.99x in 2 of 6 runs at 7-8 (this test runs at normal priority: stalls beyond the
// catch-up window cost rate); 1.37-1.59x at 6 without the ACK ordering. The bound stays
// generous for loaded CI machines and sanitizer builds. A timer of millisecond granularity
// (an epoll timeout in ms) would take >= 17x (one packet per ms instead of one per 59 us).
TEST(UdpEndpoint, PacingRateHoldsOnTheRealClock) {
  UdpEndpoint receiver(loopback_config("fixed"));
  UdpEndpointConfig sc = loopback_config("fixed", {{"rate_bps", 200e6}});
  sc.peer_port = receiver.port();
  UdpEndpoint sender(sc);
  const RunTime rt(kEpochNs);
  const std::uint64_t bytes = 2'000'000;
  const Instant start = rt.now();
  sender.post(0x100, "127.0.0.1", 1, bytes, start);
  const std::vector<Delivery> got = exchange(sender, receiver, rt, 1, Duration{5'000'000'000});
  ASSERT_EQ(got.size(), 1U);
  const std::uint64_t packets = (bytes + 1399) / 1400;
  const double wire_bytes = static_cast<double>(bytes + packets * transport::kFrameOverheadBytes);
  const double expect_ns = wire_bytes * 8 / 200e6 * 1e9;
  const auto took = static_cast<double>(ns_of(got[0].completed - start));
  EXPECT_GE(took, 0.95 * expect_ns) << "took " << took / 1e6 << " ms";
  EXPECT_LE(took, 4.0 * expect_ns) << "took " << took / 1e6 << " ms";
}

}  // namespace
}  // namespace gw::endpoints
