// The capture path of `gradwall emu --capture` (emulator/dpdk/capture.h) without DPDK: the
// ring's stage/commit contract and its full-ring count, and the writer's files and size bound,
// read back with libpcap.
#include "emulator/dpdk/capture.h"

#include <gtest/gtest.h>
#include <pcap/pcap.h>

#include <array>
#include <filesystem>

#include "emulator/dpdk/stats.h"

namespace gw {
namespace {

std::array<std::uint8_t, 100> frame(std::uint8_t tag) {
  std::array<std::uint8_t, 100> f{};
  f.fill(tag);
  return f;
}

TEST(CaptureRing, CommitShowsOnlyThePrefixThatWasSent) {
  CaptureRing ring(64);
  for (std::uint8_t i = 0; i < 5; ++i) {
    const auto f = frame(i);
    ring.stage(f.data(), f.size(), f.size(), i);
  }
  ring.commit(3);  // the tx queue took 3 of a burst of 5
  CaptureRing::Frame got{};
  for (std::uint8_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(ring.front(&got));
    EXPECT_EQ(got.unix_ns, i);
    EXPECT_EQ(got.data[0], i);
    ring.pop();
  }
  EXPECT_FALSE(ring.front(&got));
  EXPECT_EQ(ring.ring_full(), 0U);
}

TEST(CaptureRing, AFullRingCountsWhatItCouldNotKeep) {
  CaptureRing ring(64);  // 64 slots
  const auto f = frame(1);
  for (int i = 0; i < 70; ++i) {
    ring.stage(f.data(), f.size(), f.size(), i);
  }
  ring.commit(70);
  EXPECT_EQ(ring.ring_full(), 6U);
  CaptureRing::Frame got{};
  int n = 0;
  while (ring.front(&got)) {
    ring.pop();
    ++n;
  }
  EXPECT_EQ(n, 64);
}

int count_frames(const std::string& file) {
  char err[PCAP_ERRBUF_SIZE];
  pcap_t* p = pcap_open_offline_with_tstamp_precision(file.c_str(), PCAP_TSTAMP_PRECISION_NANO, err);
  if (p == nullptr) {
    return -1;
  }
  int n = 0;
  pcap_pkthdr* h = nullptr;
  const u_char* data = nullptr;
  while (pcap_next_ex(p, &h, &data) == 1) {
    ++n;
  }
  pcap_close(p);
  return n;
}

TEST(Capture, WritesEveryFrameAndStopsAtTheSizeBoundCountingTheRest) {
  const auto dir = std::filesystem::temp_directory_path() / ("gw-capture-test-" + std::to_string(getpid()));
  {
    // 24 B file header + 10 records of 16 + 100 B = 1184 B: the bound keeps exactly 10.
    Capture cap(dir.string(), 24 + 10 * 116);
    const auto f = frame(7);
    for (int i = 0; i < 25; ++i) {
      cap.port_in(0)->stage(f.data(), f.size(), f.size(), 1'700'000'000'000'000'000LL + i);
      cap.port_in(0)->commit(1);
    }
    for (int i = 0; i < 4; ++i) {
      cap.port_out(1)->stage(f.data(), f.size(), f.size(), 1'700'000'000'000'000'000LL + i);
      cap.port_out(1)->commit(1);
    }
    const nlohmann::json files = cap.finish();
    ASSERT_EQ(files.size(), 4U);
    EXPECT_EQ(files[0]["captured"], 10);
    EXPECT_EQ(files[0]["size_limit"], 15);
    EXPECT_EQ(files[0]["bytes"], 24 + 10 * 116);
    EXPECT_EQ(files[3]["captured"], 4);
    EXPECT_EQ(files[3]["size_limit"], 0);
  }
  EXPECT_EQ(count_frames((dir / "port0-in.pcap").string()), 10);
  EXPECT_EQ(std::filesystem::file_size(dir / "port0-in.pcap"), 24U + 10U * 116U);
  EXPECT_EQ(count_frames((dir / "port1-out.pcap").string()), 4);
  EXPECT_EQ(count_frames((dir / "port0-out.pcap").string()), 0);
  std::filesystem::remove_all(dir);
}

TEST(DelayErrorHistogram, QuantilesAreBucketUpperBounds) {
  DelayErrorHistogram h;
  EXPECT_EQ(h.quantile_upper_ns(0.5), -1);
  for (int i = 0; i < 98; ++i) {
    h.add(80);  // <= 100 ns
  }
  h.add(3'000);       // <= 5 us
  h.add(20'000'000);  // over the last finite bound
  EXPECT_EQ(h.quantile_upper_ns(0.5), 100);
  EXPECT_EQ(h.quantile_upper_ns(0.99), 5'000);
  EXPECT_EQ(h.quantile_upper_ns(1.0), -1);
  EXPECT_EQ(h.samples, 100U);
  EXPECT_EQ(h.counts.back(), 1U);
}

}  // namespace
}  // namespace gw
