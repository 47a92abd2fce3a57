// The DPDK-port endpoint (harness/live/endpoints/dpdk_endpoint.h) between two ring ports joined
// back to back (dpdk_ring_ports.h): whole Ethernet/IPv4/UDP/RoCEv2 frames built and parsed by
// the endpoints, on the unit tests' real EAL (tests/unit/dpdk/eal_for_tests.h). Needs root like
// every DPDK test here (skipped without). The endpoints' kernel "hold" sockets bind UDP 4791 on
// 127.X.Y.21 and .22, X.Y from the process id, so that tests running in parallel (ctest -j) do
// not collide.
#include "harness/live/endpoints/dpdk_endpoint.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "emulator/dpdk/port.h"
#include "harness/live/endpoints/clock.h"
#include "harness/live/endpoints/dpdk_ring_ports.h"
#include "tests/unit/dpdk/eal_for_tests.h"

namespace gw::endpoints {
namespace {

const std::string kNet =
    "127." + std::to_string((getpid() >> 8) & 0xFF) + "." + std::to_string(getpid() & 0xFF);
const std::string kIpA = kNet + ".21";
const std::string kIpB = kNet + ".22";
const MacAddress kMacA{0x02, 0, 0, 0, 0, 0x21};
const MacAddress kMacB{0x02, 0, 0, 0, 0, 0x22};

// The IPv4 header checksum of the 20 bytes at `ip` (RFC 1071): 0 when the stored one is right.
std::uint16_t ones_complement_sum(const std::uint8_t* ip, std::size_t n) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i + 1 < n; i += 2) {
    sum += static_cast<std::uint32_t>(ip[i] << 8 | ip[i + 1]);
  }
  while (sum >> 16) {
    sum = (sum & 0xFFFF) + (sum >> 16);
  }
  return static_cast<std::uint16_t>(~sum & 0xFFFF);
}

class DpdkEndpointTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (start_eal_for_tests()) {
      pool_ = std::make_unique<MbufPool>("unit_dpdkep", 4095, kDefaultMbufDataRoom);
    }
  }
  static void TearDownTestSuite() { pool_.reset(); }
  void SetUp() override {
    if (!pool_) {
      GTEST_SKIP() << kEalNeedsRoot;
    }
    const std::string name = "ut" + std::to_string(++pairs_);
    rings_ = std::make_unique<RingPortPair>(name);
    port_a_ = std::make_unique<EthPort>(rings_->a(), pool_->get());
    port_b_ = std::make_unique<EthPort>(rings_->b(), pool_->get());
    a_ = std::make_unique<DpdkEndpoint>(config(rings_->a(), kIpA, kIpB, kMacB));
    b_ = std::make_unique<DpdkEndpoint>(config(rings_->b(), kIpB, kIpA, kMacA));
  }
  void TearDown() override {
    a_.reset();
    b_.reset();
    port_a_.reset();
    port_b_.reset();
    rings_.reset();
  }

  static DpdkEndpointConfig config(std::uint16_t port, const std::string& self, const std::string& peer,
                                   MacAddress peer_mac) {
    DpdkEndpointConfig c;
    c.port_id = port;
    c.pool = pool_->get();
    c.local_ipv4 = self;
    c.kernel_neighbours[peer] = peer_mac;  // no ARP on rings: the peer's MAC as a neighbour table gives it
    c.epoch_monotonic_ns = epoch_;
    c.cc = "cubic";
    c.transport.mtu_bytes = 1400;
    c.transport.recovery = transport::Recovery::kSelectiveRepeat;
    c.cc_context.line_rate_bps = 1'000'000'000;
    return c;
  }

  // Polls both endpoints until b has `want` deliveries or 5 s pass; `between` runs on the frames
  // in transit from a to b before b reads them.
  std::vector<Delivery> exchange(std::size_t want,
                                 const std::function<void(std::uint8_t*, std::size_t)>& between = nullptr) {
    const RunTime rt(epoch_);
    std::vector<Delivery> got;
    const Instant end = rt.now() + Duration{5'000'000'000};
    while (got.size() < want && rt.now() < end) {
      a_->poll(rt.now());
      if (between) {
        rings_->edit_in_transit(true, between);
      }
      b_->poll(rt.now());
      for (const Delivery& d : b_->take_deliveries()) {
        got.push_back(d);
      }
    }
    return got;
  }

  static inline std::unique_ptr<MbufPool> pool_;
  static inline int pairs_ = 0;
  static inline const std::int64_t epoch_ = monotonic_ns();
  std::unique_ptr<RingPortPair> rings_;
  std::unique_ptr<EthPort> port_a_;
  std::unique_ptr<EthPort> port_b_;
  std::unique_ptr<DpdkEndpoint> a_;
  std::unique_ptr<DpdkEndpoint> b_;
};

TEST_F(DpdkEndpointTest, MessagesArriveWholeAndInOrderAndEveryFrameIsAccountedFor) {
  const RunTime rt(epoch_);
  const std::vector<std::uint64_t> sizes{0, 1, 1400, 100'000, 1 << 20};
  for (std::uint64_t i = 0; i < sizes.size(); ++i) {
    a_->post(0x100, kIpB, i, sizes[i], rt.now());
  }
  const std::vector<Delivery> got = exchange(sizes.size());
  ASSERT_EQ(got.size(), sizes.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].msg_id, i);
    EXPECT_EQ(got[i].bytes, sizes[i]);
    EXPECT_EQ(got[i].qp, 0x101U);
  }
  // Let the last ACKs reach a, then check the identities of dpdk_endpoint.h on both ports.
  for (int i = 0; i < 100; ++i) {
    a_->poll(rt.now());
    b_->poll(rt.now());
  }
  for (const DpdkEndpoint* ep : {a_.get(), b_.get()}) {
    const DpdkCounters c = ep->counters();
    EXPECT_GT(c.port_rx_frames, 0U);
    EXPECT_EQ(c.port_rx_frames, c.endpoint.datagrams_received - c.local_datagrams_received + c.arp_frames +
                                    c.frames_not_for_us + c.frames_dropped_by_endpoint);
    EXPECT_EQ(c.port_tx_frames, c.endpoint.datagrams_sent - c.local_datagrams_sent - c.endpoint.send_dropped +
                                    c.arp_requests_sent);
    EXPECT_EQ(c.endpoint.undecodable, 0U);
    EXPECT_EQ(c.endpoint.socket_overflow, 0U);
  }
  // Nothing lost on the rings: what one port sent, the other received.
  EXPECT_EQ(a_->counters().port_tx_frames, b_->counters().port_rx_frames);
  EXPECT_EQ(b_->counters().port_tx_frames, a_->counters().port_rx_frames);
  EXPECT_EQ(b_->neighbours().at(0).source, "frame");  // b answered from a's frames' MAC
  EXPECT_EQ(a_->neighbours().at(0).source, "neighbour table");
}

TEST_F(DpdkEndpointTest, FramesAreIpv4UdpToPort4791WithRightChecksumsAndEct) {
  const RunTime rt(epoch_);
  a_->post(0x100, kIpB, 0, 20'000, rt.now());
  std::size_t frames = 0;
  const std::vector<Delivery> got = exchange(1, [&](std::uint8_t* f, std::size_t n) {
    ASSERT_GE(n, 42U);
    ++frames;
    EXPECT_EQ(f[12], 0x08);  // IPv4
    EXPECT_EQ(f[13], 0x00);
    EXPECT_TRUE(std::equal(kMacB.begin(), kMacB.end(), f));  // to b's MAC
    const std::uint8_t* ip = f + 14;
    EXPECT_EQ(ip[0], 0x45);
    EXPECT_EQ(ip[1] & 0x3, 0x2);                // cubic's data is ECT(0)
    EXPECT_EQ(ones_complement_sum(ip, 20), 0);  // the header checksum is right
    EXPECT_EQ(ip[9], 17);
    const std::uint16_t dport = static_cast<std::uint16_t>(f[36] << 8 | f[37]);
    EXPECT_EQ(dport, 4791);
    // UDP checksum over the pseudo-header and the datagram (RFC 768): 0 when right.
    const std::size_t udp_len = static_cast<std::size_t>(f[38] << 8 | f[39]);
    ASSERT_EQ(14 + 20 + udp_len, n);
    std::vector<std::uint8_t> pseudo(ip + 12, ip + 20);
    pseudo.insert(pseudo.end(), {0, 17, f[38], f[39]});
    pseudo.insert(pseudo.end(), f + 34, f + n);
    if (pseudo.size() % 2 != 0) {
      pseudo.push_back(0);
    }
    EXPECT_EQ(ones_complement_sum(pseudo.data(), pseudo.size()), 0);
  });
  ASSERT_EQ(got.size(), 1U);
  EXPECT_GE(frames, 15U);  // 20,000 bytes in 1400-byte packets
}

TEST_F(DpdkEndpointTest, CeMarksInTheIpHeaderReachTheReceivingQueuePair) {
  const RunTime rt(epoch_);
  a_->post(0x100, kIpB, 0, 200'000, rt.now());
  std::uint64_t ect = 0;
  std::uint64_t marked = 0;
  const std::vector<Delivery> got = exchange(1, [&](std::uint8_t* f, std::size_t n) {
    std::uint8_t* ip = f + 14;
    if (n < 42 || (ip[1] & 0x3) != 0x2 || ect++ % 2 != 0) {
      return;  // not ECN-capable, or every other ECT frame: left as it is
    }
    ip[1] |= 0x3;  // CE, as an AQM marks it; then the header checksum again
    ip[10] = 0;
    ip[11] = 0;
    const std::uint16_t sum = ones_complement_sum(ip, 20);
    ip[10] = static_cast<std::uint8_t>(sum >> 8);
    ip[11] = static_cast<std::uint8_t>(sum & 0xFF);
    ++marked;
  });
  ASSERT_EQ(got.size(), 1U);
  std::uint64_t ce = 0;
  for (const DpdkEndpoint::QpView& q : b_->queue_pairs()) {
    ce += q.pair->stats().ce_packets_received;
  }
  // The rings lose nothing: every frame marked reached b's receiving QP as CE, and no other.
  EXPECT_GT(marked, 50U);  // 200 KB in 1400-byte packets: ~143 ECT frames, half marked
  EXPECT_EQ(ce, marked);
}

}  // namespace
}  // namespace gw::endpoints
