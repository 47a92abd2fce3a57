// The EDT host pacer's tc-BPF program (harness/live/hostpace/edt.bpf.c), run by the kernel
// itself: BPF_PROG_TEST_RUN hands it one frame at a time, with no interface and no qdisc, and
// returns its verdict, the frame as it left it and skb->tstamp. Needs root (CAP_BPF); skipped
// otherwise, saying so (CI runs as root).
#include "harness/live/hostpace/edt_pacer.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/pkt_cls.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <vector>

namespace gw::hostpace {
namespace {

using namespace std::chrono_literals;

constexpr const char* kNeedsRoot = "loading a BPF program needs CAP_BPF: run as root (CI does)";

std::uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
}

void put16(std::vector<std::uint8_t>& f, std::size_t at, std::uint16_t v) {
  f[at] = static_cast<std::uint8_t>(v >> 8);
  f[at + 1] = static_cast<std::uint8_t>(v);
}
void put32(std::vector<std::uint8_t>& f, std::size_t at, std::uint32_t v) {
  put16(f, at, static_cast<std::uint16_t>(v >> 16));
  put16(f, at + 2, static_cast<std::uint16_t>(v));
}

std::uint16_t ip_checksum(const std::vector<std::uint8_t>& f, std::size_t at, std::size_t len) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < len; i += 2)
    sum += static_cast<std::uint32_t>(f[at + i] << 8 | f[at + i + 1]);
  while (sum >> 16)
    sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

constexpr in_addr_t kA = 0x0a000001;  // 10.0.0.1
constexpr in_addr_t kB = 0x0a000002;  // 10.0.0.2

// An Ethernet + IPv4 + UDP (or TCP) frame of `len` bytes in all, with TOS `tos`. dport 4791
// adds a BTH with destination QP `qp`.
std::vector<std::uint8_t> ipv4_frame(std::size_t len, std::uint8_t tos, std::uint16_t sport,
                                     std::uint16_t dport, std::uint32_t qp = 0,
                                     std::uint8_t proto = IPPROTO_UDP) {
  std::vector<std::uint8_t> f(len, 0);
  put16(f, 12, 0x0800);
  f[14] = 0x45;
  f[15] = tos;
  put16(f, 16, static_cast<std::uint16_t>(len - 14));
  put16(f, 20, 0x4000);  // DF
  f[22] = 64;
  f[23] = proto;
  put32(f, 26, kA);
  put32(f, 30, kB);
  put16(f, 24, ip_checksum(f, 14, 20));
  put16(f, 34, sport);
  put16(f, 36, dport);
  put16(f, 38, static_cast<std::uint16_t>(len - 34));
  if (dport == 4791) {
    f[42] = 0x04;  // RC SEND only
    put32(f, 42 + 4, qp & 0xffffff);
  }
  return f;
}

std::vector<std::uint8_t> ipv6_frame(std::size_t len, std::uint8_t ecn) {
  std::vector<std::uint8_t> f(len, 0);
  put16(f, 12, 0x86dd);
  f[14] = 0x60;
  f[15] = static_cast<std::uint8_t>(ecn << 4);
  put16(f, 18, static_cast<std::uint16_t>(len - 54));
  f[20] = IPPROTO_UDP;
  f[21] = 64;
  f[22 + 15] = 1;  // ::1 -> ::2
  f[38 + 15] = 2;
  put16(f, 54, 5000);
  put16(f, 56, 6000);
  return f;
}

class EdtProgram : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0)
      GTEST_SKIP() << kNeedsRoot;
  }
};

// Back-to-back frames of one flow leave len / R apart: 1,000-byte frames at 8 Mbit/s (10^6
// bytes/s) every 1 ms. The goal is within 1 %; the program's arithmetic is exact in ns, so the
// only slack is the first frame, which leaves at "now" (between the clock reads around the call).
TEST_F(EdtProgram, SpacesDeparturesByLengthOverRate) {
  EdtPacer p(EdtConfig{});
  const EdtFlowKey flow = EdtFlowKey::ipv4(IPPROTO_UDP, kA, 5000, kB, 6000);
  p.set_rate(flow, 8'000'000);
  const auto frame = ipv4_frame(1000, 0, 5000, 6000);
  const std::uint64_t before = monotonic_ns();
  std::vector<std::uint64_t> t;
  for (int i = 0; i < 50; ++i) {
    const EdtVerdict v = p.test_run(frame);
    ASSERT_EQ(v.action, TC_ACT_OK);
    t.push_back(v.tstamp);
  }
  EXPECT_GE(t[0], before);
  EXPECT_LE(t[0], monotonic_ns());
  for (std::size_t i = 1; i < t.size(); ++i) {
    EXPECT_NEAR(static_cast<double>(t[i] - t[i - 1]), 1e6, 1e4) << "frame " << i;
  }
  const EdtStats s = p.stats();
  EXPECT_EQ(s[GW_EDT_PACKETS], 50U);
  EXPECT_EQ(s[GW_EDT_BYTES], 50'000U);
  EXPECT_EQ(s[GW_EDT_PACED], 50U);
  EXPECT_GE(s[GW_EDT_DELAYED], 49U);

  // A new rate applies from the next frame: 1,000 bytes at 80 Mbit/s is 100 µs.
  p.set_rate(flow, 80'000'000);
  const std::uint64_t t0 = p.test_run(frame).tstamp;
  const std::uint64_t t1 = p.test_run(frame).tstamp;
  EXPECT_EQ(t0, t.back() + 1'000'000);
  EXPECT_EQ(t1 - t0, 100'000U);
}

// Each flow has its own schedule and rate; a flow with no rate of its own takes the default,
// and with no default is left alone.
TEST_F(EdtProgram, PacesEachFlowOnItsOwn) {
  EdtPacer p(EdtConfig{});
  p.set_rate(EdtFlowKey::ipv4(IPPROTO_UDP, kA, 5000, kB, 6000), 8'000'000);   // 1 ms / frame
  p.set_rate(EdtFlowKey::ipv4(IPPROTO_UDP, kA, 5001, kB, 6000), 16'000'000);  // 0.5 ms
  const auto f1 = ipv4_frame(1000, 0, 5000, 6000);
  const auto f2 = ipv4_frame(1000, 0, 5001, 6000);
  const auto f3 = ipv4_frame(1000, 0, 5002, 6000);
  std::uint64_t a0 = p.test_run(f1).tstamp;
  std::uint64_t b0 = p.test_run(f2).tstamp;
  for (int i = 1; i <= 5; ++i) {
    EXPECT_EQ(p.test_run(f1).tstamp - a0, 1'000'000U * static_cast<unsigned>(i));
    EXPECT_EQ(p.test_run(f2).tstamp - b0, 500'000U * static_cast<unsigned>(i));
  }
  const std::uint64_t before = monotonic_ns();
  EXPECT_LT(p.test_run(f3).tstamp, before) << "an unpaced flow's frame got a departure time";
  EXPECT_EQ(p.stats()[GW_EDT_NOT_PACED], 1U);

  p.configure(EdtConfig{.default_rate_bps = 80'000'000});
  const std::uint64_t c0 = p.test_run(f3).tstamp;
  EXPECT_EQ(p.test_run(f3).tstamp - c0, 100'000U);
  // An explicit 0 exempts a flow from the default.
  p.set_rate(EdtFlowKey::ipv4(IPPROTO_UDP, kA, 5002, kB, 6000), 0);
  EXPECT_LT(p.test_run(f3).tstamp, monotonic_ns());
}

// A RoCEv2 queue pair is one flow whatever its source port (a path move), and two QPs between
// the same hosts and ports are two flows.
TEST_F(EdtProgram, KeysRoceFramesByDestinationQp) {
  EdtPacer p(EdtConfig{});
  p.set_rate(EdtFlowKey::roce_v4(kA, kB, 0x10), 8'000'000);
  p.set_rate(EdtFlowKey::roce_v4(kA, kB, 0x12), 8'000'000);
  const std::uint64_t q10 = p.test_run(ipv4_frame(1000, 0, 49152, 4791, 0x10)).tstamp;
  const std::uint64_t q12 = p.test_run(ipv4_frame(1000, 0, 49152, 4791, 0x12)).tstamp;
  EXPECT_LT(q12 - q10, 1'000'000U) << "QP 0x12 waited behind QP 0x10";
  EXPECT_EQ(p.test_run(ipv4_frame(1000, 0, 49999, 4791, 0x10)).tstamp, q10 + 1'000'000)
      << "QP 0x10 from another source port lost its schedule";
}

// A departure time the socket already set (TCP's pacing, SO_TXTIME) is kept when it is later.
TEST_F(EdtProgram, KeepsALaterDepartureTimeFromTheSocket) {
  EdtPacer p(EdtConfig{.default_rate_bps = 8'000'000});
  const auto frame = ipv4_frame(1000, 0, 5000, 6000);
  const std::uint64_t later = monotonic_ns() + 50'000'000;
  EXPECT_EQ(p.test_run(frame, later).tstamp, later);
  EXPECT_EQ(p.test_run(frame).tstamp, later + 1'000'000);
}

// ECT frames whose departure is at least the threshold ahead of now are marked CE, with a
// valid header checksum; not-ECT frames are left alone and counted. The program's "now" lies
// between the clock reads around each call, so a frame is checked only where that window
// decides it.
TEST_F(EdtProgram, MarksCePastTheThreshold) {
  constexpr std::uint64_t kThreshold = 10'000'000;
  EdtPacer p(EdtConfig{.default_rate_bps = 8'000'000, .ce_threshold = Duration{kThreshold}});
  int marked = 0;
  int unmarked = 0;
  for (int i = 0; i < 30; ++i) {
    const std::uint8_t tos = i % 3 == 2 ? 0 : (i % 3 == 0 ? 2 : 1);  // ECT(0), ECT(1), not-ECT
    const auto frame = ipv4_frame(1000, tos, 5000, 6000);
    const std::uint64_t before = monotonic_ns();
    const EdtVerdict v = p.test_run(frame);
    const std::uint64_t after = monotonic_ns();
    ASSERT_EQ(v.action, TC_ACT_OK);
    ASSERT_EQ(v.frame.size(), frame.size());
    const bool ce = (v.frame[15] & 3) == 3;
    EXPECT_EQ(ip_checksum(v.frame, 14, 20), 0) << "frame " << i << ": bad IPv4 header checksum";
    if (tos == 0) {
      EXPECT_EQ(v.frame[15], 0) << "a not-ECT frame was changed";
      continue;
    }
    if (v.tstamp >= after + kThreshold) {
      EXPECT_TRUE(ce) << "frame " << i << " departs " << (v.tstamp - after) << " ns ahead, not marked";
    } else if (v.tstamp < before + kThreshold) {
      EXPECT_FALSE(ce) << "frame " << i << " departs " << (v.tstamp - before) << " ns ahead, marked";
    }
    (ce ? marked : unmarked)++;
  }
  const EdtStats s = p.stats();
  EXPECT_EQ(s[GW_EDT_CE_MARKED], static_cast<unsigned>(marked));
  EXPECT_GE(marked, 12);                    // the ECT frames from 10 ms ahead on: frames 10 or 11 to 29
  EXPECT_GE(s[GW_EDT_PAST_THRESHOLD], 6U);  // the not-ECT ones: 7 of frames 11 to 29

  // IPv6: the traffic class's ECN bits, once the flow's backlog passes the threshold.
  EdtVerdict v6;
  for (int i = 0; i < 15; ++i)
    v6 = p.test_run(ipv6_frame(1000, 2));
  EXPECT_EQ((v6.frame[15] >> 4) & 3, 3) << "an ECT(0) IPv6 frame past the threshold was not marked";
}

// Frames that would depart a horizon or more ahead are dropped (TC_ACT_SHOT) and counted, and
// take no departure slot: the next accepted frame follows the last accepted one.
TEST_F(EdtProgram, DropsFramesPastTheHorizon) {
  EdtPacer p(EdtConfig{.default_rate_bps = 8'000'000, .horizon = 20ms});
  const auto frame = ipv4_frame(1000, 0, 5000, 6000);
  std::uint64_t last_ok = 0;
  int dropped = 0;
  for (int i = 0; i < 40; ++i) {
    const EdtVerdict v = p.test_run(frame);
    if (v.action == TC_ACT_SHOT) {
      ++dropped;
      continue;
    }
    ASSERT_EQ(v.action, TC_ACT_OK);
    EXPECT_EQ(dropped, 0) << "a frame was accepted after drops with the backlog unchanged";
    last_ok = v.tstamp;
  }
  EXPECT_GE(dropped, 19);  // 20 slots of 1 ms fit in 20 ms
  EXPECT_LE(dropped, 20);
  EXPECT_EQ(p.stats()[GW_EDT_DROPPED_HORIZON], static_cast<unsigned>(dropped));
  EXPECT_LT(last_ok - monotonic_ns(), 20'000'000U);
}

// Frames it cannot read are passed untouched and counted: ARP, an IHL below 5, a UDP header
// or a BTH cut short. None is paced.
TEST_F(EdtProgram, PassesFramesItCannotRead) {
  EdtPacer p(EdtConfig{.default_rate_bps = 8'000'000, .ce_threshold = 1ns, .horizon = 1ns});
  std::vector<std::vector<std::uint8_t>> bad;
  std::vector<std::uint8_t> arp(60, 0);
  arp[12] = 0x08;
  arp[13] = 0x06;
  bad.push_back(arp);
  // (An IPv4 frame shorter than its 20-byte header cannot be tried here: BPF_PROG_TEST_RUN
  // refuses it with EINVAL. The verifier proved the program's bounds checks when it loaded.)
  const auto whole = ipv4_frame(100, 2, 1, 2);
  auto ihl = ipv4_frame(100, 2, 1, 2);
  ihl[14] = 0x44;
  bad.push_back(ihl);
  bad.emplace_back(whole.begin(), whole.begin() + 36);  // 2 bytes of UDP header
  const auto roce = ipv4_frame(50, 2, 1, 4791);
  bad.emplace_back(roce.begin(), roce.begin() + 47);  // 5 bytes of BTH, no destination QP
  for (const auto& f : bad) {
    const EdtVerdict v = p.test_run(f);
    EXPECT_EQ(v.action, TC_ACT_OK);
    EXPECT_EQ(v.frame, f);
  }
  const EdtStats s = p.stats();
  EXPECT_EQ(s[GW_EDT_NOT_IP], bad.size());
  EXPECT_EQ(s[GW_EDT_PACED], 0U);
}

}  // namespace
}  // namespace gw::hostpace
