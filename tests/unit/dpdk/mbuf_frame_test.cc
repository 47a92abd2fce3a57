// Frames in chained mbufs (emulator/dpdk/mbuf_frame.h), as a PMD with scattered rx delivers
// jumbo frames: headers split over segments are classified, and CE marks and bit errors land
// on the right bytes of the right segment. Runs on the unit tests' real EAL (eal_for_tests.h);
// needs root like every DPDK test here (skipped without).
#include "emulator/dpdk/mbuf_frame.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "emulator/dpdk/port.h"
#include "emulator/engine/headers.h"
#include "tests/unit/dpdk/eal_for_tests.h"

namespace gw {
namespace {

class ChainedFrame : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (start_eal_for_tests()) {
      pool_ = std::make_unique<MbufPool>("unit_chain", 1023, kDefaultMbufDataRoom);
    }
  }
  static void TearDownTestSuite() { pool_.reset(); }
  void SetUp() override {
    if (!pool_) {
      GTEST_SKIP() << kEalNeedsRoot;
    }
  }

  // Ethernet / IPv4 (ECT(0)) / UDP 40000 -> 5001 / 258 bytes of payload: 300 bytes.
  static std::vector<std::uint8_t> udp_frame() {
    std::vector<std::uint8_t> f(300, 0);
    for (std::size_t i = 42; i < f.size(); ++i) {
      f[i] = static_cast<std::uint8_t>(i * 7);
    }
    f[12] = 0x08;
    f[14] = 0x45;
    f[15] = 0x02;  // ECT(0)
    f[16] = 0x01;  // total length 286
    f[17] = 0x1E;
    f[22] = 64;
    f[23] = 17;
    const std::uint8_t addrs[8] = {198, 18, 0, 1, 198, 18, 0, 2};
    std::copy(addrs, addrs + 8, f.begin() + 26);
    const std::uint16_t c = ipv4_header_checksum({f.data() + 14, 20});
    f[24] = static_cast<std::uint8_t>(c >> 8);
    f[25] = static_cast<std::uint8_t>(c);
    f[34] = 40000 >> 8;
    f[35] = 40000 & 0xFF;
    f[36] = 5001 >> 8;
    f[37] = 5001 & 0xFF;
    f[39] = (8 + 258) & 0xFF;
    f[38] = (8 + 258) >> 8;
    return f;
  }

  // Segments of 20, 30 and the rest: the IPv4 header starts in the first and ends in the
  // second, UDP's ports sit in the second.
  static rte_mbuf* chain(const std::vector<std::uint8_t>& f) {
    const std::uint32_t segs[] = {20, 30};
    return chain_from_bytes(pool_->get(), f, segs);
  }

  static std::unique_ptr<MbufPool> pool_;
};

std::unique_ptr<MbufPool> ChainedFrame::pool_;

TEST_F(ChainedFrame, HeadersSplitOverSegmentsAreClassified) {
  const std::vector<std::uint8_t> f = udp_frame();
  rte_mbuf* m = chain(f);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(bytes_of(m), f);
  DirectionStats s;
  const Packet p = packet_of(m, at_ns(5), s);
  EXPECT_EQ(s.multi_segment, 1U);
  EXPECT_EQ(p.size_bytes, 300U);
  EXPECT_TRUE(p.headers.valid_l3);
  EXPECT_TRUE(p.headers.valid_l4);
  EXPECT_EQ(p.headers.protocol, kProtoUdp);
  EXPECT_EQ(p.headers.src_port, 40000);
  EXPECT_EQ(p.headers.dst_port, 5001);
  EXPECT_EQ(p.headers.ecn, Ecn::kEct0);
  free_chain(m);
}

TEST_F(ChainedFrame, CeMarkIsWrittenBackAcrossSegments) {
  std::vector<std::uint8_t> want = udp_frame();
  rte_mbuf* m = chain(want);
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(apply_ce(want));  // the same change on a flat copy
  EXPECT_TRUE(change_headers(m, [](std::span<std::uint8_t> f) { return apply_ce(f); }));
  EXPECT_EQ(bytes_of(m), want);  // TOS byte in segment 1, checksum in segment 2
  free_chain(m);
}

TEST_F(ChainedFrame, BitErrorLandsInTheSegmentHoldingTheBit) {
  const std::vector<std::uint8_t> f = udp_frame();
  rte_mbuf* m = chain(f);
  ASSERT_NE(m, nullptr);
  const std::uint32_t bit = 8 * (20 + 30 + 5) + 3;  // byte 55 = byte 5 of segment 3
  EXPECT_TRUE(flip_frame_bit(m, bit));
  std::vector<std::uint8_t> want = f;
  want[55] ^= 0x10;
  EXPECT_EQ(bytes_of(m), want);
  EXPECT_FALSE(flip_frame_bit(m, 8 * 300));  // past the end: nothing changes
  EXPECT_EQ(bytes_of(m), want);
  free_chain(m);
}

}  // namespace
}  // namespace gw
