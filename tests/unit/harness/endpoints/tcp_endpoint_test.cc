// The kernel TCP endpoint (live-mode baselines) over loopback, no root: messages framed on TCP
// connections, the congestion control the kernel reports per socket, the byte balance and
// SO_MAX_PACING_RATE.
#include "harness/live/endpoints/tcp_endpoint.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "core/errors.h"
#include "harness/live/endpoints/clock.h"

namespace gw::endpoints {
namespace {

TcpEndpointConfig loopback(const std::string& cc, std::uint16_t peer_port = 0) {
  TcpEndpointConfig c;
  c.bind_address = "127.0.0.1";
  c.port = 0;
  c.peer_port = peer_port;
  c.congestion_control = cc;
  return c;
}

// Runs both endpoints until `receiver` has `want` deliveries or `limit` passes.
std::vector<Delivery> exchange(TcpEndpoint& sender, TcpEndpoint& receiver, const RunTime& rt,
                               std::size_t want, Duration limit) {
  std::vector<Delivery> got;
  const Instant end = rt.now() + limit;
  while (got.size() < want && rt.now() < end) {
    const Instant now = rt.now();
    sender.poll(now);
    receiver.poll(now);
    for (const Delivery& d : receiver.take_deliveries()) {
      got.push_back(d);
    }
    sender.wait(now + Duration{1'000'000}, now, -1);
  }
  return got;
}

TEST(TcpEndpoint, MessagesArriveWholeOnceAndInOrderAndEveryByteWrittenIsRead) {
  const RunTime rt(monotonic_ns());
  TcpEndpoint receiver(loopback("reno"));
  TcpEndpoint sender(loopback("reno", receiver.port()));
  const std::vector<std::uint64_t> sizes{0, 1, 31, 33, 1000, 1 << 20, 3 << 20};
  std::uint64_t id = 0;
  for (const std::uint64_t size : sizes) {  // two connections, interleaved
    sender.post(0x100, "127.0.0.1", id++, size, rt.now());
    sender.post(0x102, "127.0.0.1", id++, size, rt.now());
  }
  const std::vector<Delivery> got =
      exchange(sender, receiver, rt, 2 * sizes.size(), Duration{20'000'000'000});
  ASSERT_EQ(got.size(), 2 * sizes.size());
  std::vector<std::uint64_t> next_on{0, 1};  // per connection: ids arrive in posting order
  for (const Delivery& d : got) {
    ASSERT_TRUE(d.qp == 0x101 || d.qp == 0x103) << d.qp;
    const std::size_t conn = d.qp == 0x101 ? 0 : 1;
    EXPECT_EQ(d.msg_id, next_on[conn]);
    EXPECT_EQ(d.bytes, sizes[d.msg_id / 2]);
    next_on[conn] += 2;
  }
  const std::uint64_t payload = 2 * std::accumulate(sizes.begin(), sizes.end(), std::uint64_t{0});
  EXPECT_EQ(sender.counters().bytes_written, payload + 32 * 2 * sizes.size());  // 32-byte headers
  EXPECT_EQ(receiver.counters().bytes_read, sender.counters().bytes_written);
  EXPECT_EQ(sender.counters().connections_opened, 2u);
  EXPECT_EQ(receiver.counters().connections_accepted, 2u);
}

TEST(TcpEndpoint, ReportsTheCongestionControlTheKernelRunsOnBothEnds) {
  for (const std::string cc : {"reno", "cubic"}) {
    const RunTime rt(monotonic_ns());
    TcpEndpoint receiver(loopback(cc));
    TcpEndpoint sender(loopback(cc, receiver.port()));
    sender.post(0x100, "127.0.0.1", 7, 100'000, rt.now());
    ASSERT_EQ(exchange(sender, receiver, rt, 1, Duration{10'000'000'000}).size(), 1u);
    for (const TcpEndpoint* ep : {&sender, &receiver}) {
      const auto conns = ep->connections();
      ASSERT_EQ(conns.size(), 1u);
      EXPECT_EQ(conns[0].congestion_control, cc);
    }
    const TcpConnectionInfo s = sender.connections()[0];
    EXPECT_TRUE(s.sending);
    EXPECT_EQ(s.bytes_written, 100'032u);
    EXPECT_GE(s.bytes_acked, 100'032u);  // TCP_INFO's own count (+1 for the SYN)
    EXPECT_GT(s.cwnd_bytes, 0u);
    EXPECT_EQ(s.max_pacing_rate_bps, 0u);  // none set
  }
}

TEST(TcpEndpoint, RefusesACongestionControlTheKernelDoesNotHave) {
  std::string why;
  EXPECT_FALSE(TcpEndpoint::congestion_control_allowed("nosuchcc", why));
  EXPECT_NE(why.find("nosuchcc"), std::string::npos) << why;
  EXPECT_NE(why.find("tcp_available_congestion_control"), std::string::npos) << why;
  EXPECT_TRUE(TcpEndpoint::congestion_control_allowed("reno", why)) << why;
  EXPECT_THROW(TcpEndpoint(loopback("nosuchcc")), EnvironmentError);
}

// SO_MAX_PACING_RATE caps the sender (TCP's internal pacing; no fq qdisc here): 4 MB at
// 80 Mbit/s take 0.4 s paced, milliseconds over loopback unpaced. The bound 0.75 x leaves
// room for the initial window, which leaves before pacing has a rate sample, and for TSO
// bursts: a cap that is not applied misses it by two orders of magnitude.
TEST(TcpEndpoint, MaxPacingRateCapsTheSender) {
  const RunTime rt(monotonic_ns());
  TcpEndpoint receiver(loopback("cubic"));
  TcpEndpointConfig cfg = loopback("cubic", receiver.port());
  cfg.max_pacing_rate_bps = 80'000'000;
  TcpEndpoint sender(cfg);
  const std::uint64_t bytes = 4'000'000;
  const Instant start = rt.now();
  sender.post(0x100, "127.0.0.1", 1, bytes, start);
  const auto got = exchange(sender, receiver, rt, 1, Duration{10'000'000'000});
  ASSERT_EQ(got.size(), 1u);
  const double seconds = static_cast<double>(ns_of(got[0].completed) - ns_of(start)) / 1e9;
  const double paced = static_cast<double>(bytes) * 8 / 80e6;
  EXPECT_GE(seconds, 0.75 * paced);
  EXPECT_LE(seconds, 5 * paced);
  EXPECT_EQ(sender.connections()[0].max_pacing_rate_bps, 80'000'000u);
}

}  // namespace
}  // namespace gw::endpoints
