#include "emulator/replay/replay.h"

#include <pcap/pcap.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.h"
#include "emulator/engine/headers.h"

namespace gw {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;

constexpr std::int64_t kBaseNs = 1'700'000'000LL * 1'000'000'000LL;  // Nov 2023: a plausible capture time

struct Record {
  std::int64_t ts_ns = 0;  // since the Unix epoch
  Bytes bytes;
  std::uint32_t wire_len = 0;  // 0: bytes.size()
};

// Ethernet / IPv4 / UDP with a valid header checksum; `tos` carries DSCP and ECN.
Bytes udp_frame(std::uint8_t tos, std::uint16_t id, std::size_t payload = 26) {
  Bytes f{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00};
  const auto total = static_cast<std::uint16_t>(20 + 8 + payload);
  const Bytes ip{0x45,
                 tos,
                 static_cast<std::uint8_t>(total >> 8),
                 static_cast<std::uint8_t>(total),
                 static_cast<std::uint8_t>(id >> 8),
                 static_cast<std::uint8_t>(id),
                 0x40,
                 0,
                 64,
                 17,
                 0,
                 0,
                 198,
                 18,
                 0,
                 1,
                 198,
                 18,
                 0,
                 2};
  f.insert(f.end(), ip.begin(), ip.end());
  const std::uint16_t c = ipv4_header_checksum(std::span<const std::uint8_t>(f).subspan(14, 20));
  f[24] = static_cast<std::uint8_t>(c >> 8);
  f[25] = static_cast<std::uint8_t>(c);
  const auto ulen = static_cast<std::uint16_t>(8 + payload);
  const Bytes udp{
      0x9c, 0x40, 0x13, 0x89, static_cast<std::uint8_t>(ulen >> 8), static_cast<std::uint8_t>(ulen), 0, 0};
  f.insert(f.end(), udp.begin(), udp.end());
  for (std::size_t i = 0; i < payload; ++i) {
    f.push_back(static_cast<std::uint8_t>(i + id));
  }
  return f;
}

void write_pcap(const std::string& file, const std::vector<Record>& records,
                int precision = PCAP_TSTAMP_PRECISION_MICRO, int link = DLT_EN10MB) {
  std::unique_ptr<pcap_t, void (*)(pcap_t*)> dead(
      pcap_open_dead_with_tstamp_precision(link, 65535, precision), pcap_close);
  ASSERT_NE(dead, nullptr);
  pcap_dumper_t* d = pcap_dump_open(dead.get(), file.c_str());
  ASSERT_NE(d, nullptr) << pcap_geterr(dead.get());
  const std::int64_t div = precision == PCAP_TSTAMP_PRECISION_NANO ? 1 : 1000;
  for (const Record& r : records) {
    pcap_pkthdr h{};
    h.ts.tv_sec = static_cast<time_t>(r.ts_ns / 1'000'000'000);
    h.ts.tv_usec = static_cast<suseconds_t>((r.ts_ns % 1'000'000'000) / div);
    h.caplen = static_cast<bpf_u_int32>(r.bytes.size());
    h.len = r.wire_len != 0 ? r.wire_len : h.caplen;
    pcap_dump(reinterpret_cast<u_char*>(d), &h, r.bytes.data());
  }
  pcap_dump_close(d);
}

std::vector<Record> read_pcap(const std::string& file) {
  char err[PCAP_ERRBUF_SIZE] = {};
  std::unique_ptr<pcap_t, void (*)(pcap_t*)> in(
      pcap_open_offline_with_tstamp_precision(file.c_str(), PCAP_TSTAMP_PRECISION_NANO, err), pcap_close);
  EXPECT_NE(in, nullptr) << err;
  std::vector<Record> out;
  if (!in) {
    return out;
  }
  pcap_pkthdr* h = nullptr;
  const u_char* data = nullptr;
  while (pcap_next_ex(in.get(), &h, &data) == 1) {
    out.push_back({static_cast<std::int64_t>(h->ts.tv_sec) * 1'000'000'000 + h->ts.tv_usec,
                   Bytes(data, data + h->caplen), h->len});
  }
  return out;
}

// Runs a command, returns its standard output.
std::string run(const std::string& cmd) {
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
  std::string out;
  char buf[4096];
  std::size_t n = 0;
  while (p && (n = std::fread(buf, 1, sizeof buf, p.get())) > 0) {
    out.append(buf, n);
  }
  return out;
}

Profile delay_profile(Duration d) {
  Profile p;
  p.name = "test";
  DelaySettings delay;
  delay.delay = d;
  p.a_to_b.delay = delay;
  return p;
}

class Replay : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gw-replay-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  ReplayOptions options() const {
    return ReplayOptions{path("in.pcap"), path("out.pcap"), "", Direction::kAToB, {}};
  }
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) {
      names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir_;
};

// 10 packets 1 ms apart, alternately ECT(0) and Not-ECT (DSCP 10).
std::vector<Record> mixed_ecn_input() {
  std::vector<Record> in;
  for (int i = 0; i < 10; ++i) {
    const std::uint8_t tos = i % 2 == 0 ? (10 << 2 | 0x2) : (10 << 2);
    in.push_back({kBaseNs + 123'000 + i * 1'000'000LL, udp_frame(tos, static_cast<std::uint16_t>(i)), 0});
  }
  return in;
}

TEST_F(Replay, ConstantDelayShiftsEveryTimestamp) {
  const std::vector<Record> in = mixed_ecn_input();
  write_pcap(path("in.pcap"), in);
  const ReplaySummary s = replay(delay_profile(Duration{25'000'000}), options());
  EXPECT_EQ(s.impairment.counters.packets_in, 10U);
  EXPECT_EQ(s.impairment.counters.delivered, 10U);
  EXPECT_EQ(s.impairment.counters.dropped_total(), 0U);
  EXPECT_EQ(Duration{s.impairment.delay_ns.min}, Duration{25'000'000});
  EXPECT_EQ(Duration{s.impairment.delay_ns.max}, Duration{25'000'000});
  EXPECT_EQ(Duration{s.impairment.delay_ns.p50}, Duration{25'000'000});
  const std::vector<Record> out = read_pcap(path("out.pcap"));
  ASSERT_EQ(out.size(), in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(out[i].ts_ns, in[i].ts_ns + 25'000'000);
    EXPECT_EQ(out[i].bytes, in[i].bytes);
  }
  EXPECT_EQ(files(), (std::vector<std::string>{"in.pcap", "out.pcap"}));  // no temporary left
}

TEST_F(Replay, NanosecondInputKeepsItsPrecision) {
  std::vector<Record> in{{kBaseNs + 1, udp_frame(0, 1), 0}, {kBaseNs + 1'001, udp_frame(0, 2), 0}};
  write_pcap(path("in.pcap"), in, PCAP_TSTAMP_PRECISION_NANO);
  replay(delay_profile(Duration{7}), options());
  const std::vector<Record> out = read_pcap(path("out.pcap"));
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0].ts_ns, kBaseNs + 8);
  EXPECT_EQ(out[1].ts_ns, kBaseNs + 1'008);
}

// The loss stage with `ecn`: every ECT packet is marked CE instead of lost, Not-ECT is lost.
TEST_F(Replay, CeMarksCarryAGoodChecksumAsTsharkSeesIt) {
  write_pcap(path("in.pcap"), mixed_ecn_input());
  Profile p = delay_profile(Duration{10'000'000});
  LossSettings loss;
  loss.p = 1.0;
  loss.ecn = true;
  p.a_to_b.loss = loss;
  const ReplaySummary s = replay(p, options());
  EXPECT_EQ(s.impairment.counters.marked_ce, 5U);
  EXPECT_EQ(s.impairment.counters.delivered, 5U);
  EXPECT_EQ(s.impairment.counters.dropped[static_cast<std::size_t>(DropCause::kLoss)], 5U);

  if (std::system("command -v tshark >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "tshark not installed";
  }
  const std::string text = run("tshark -r " + path("out.pcap") +
                               " -T fields -E separator=, -e frame.time_epoch -e ip.dsfield.ecn "
                               "-e ip.checksum.status -o ip.check_checksum:TRUE 2>/dev/null");
  std::istringstream lines(text);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string epoch, ecn, status;
    std::getline(fields, epoch, ',');
    std::getline(fields, ecn, ',');
    std::getline(fields, status, ',');
    // Input record 2n (ECT) at base + 123 us + 2n ms, plus the 10 ms delay.
    const long double expect_s = (kBaseNs + 123'000 + 2LL * n * 1'000'000 + 10'000'000) / 1e9L;
    EXPECT_NEAR(std::stold(epoch), expect_s, 1e-7L) << line;
    EXPECT_EQ(ecn, "3") << line;
    EXPECT_TRUE(status == "1" || status == "Good") << line;
    ++n;
  }
  EXPECT_EQ(n, 5);
}

TEST_F(Replay, DuplicatesAreWrittenTwice) {
  write_pcap(path("in.pcap"), mixed_ecn_input());
  Profile p = delay_profile(Duration{1'000'000});
  p.a_to_b.duplicate = ChanceSettings{1.0, 0};
  const ReplaySummary s = replay(p, options());
  EXPECT_EQ(s.impairment.counters.duplicated, 10U);
  EXPECT_EQ(s.impairment.counters.delivered, 20U);
  const std::vector<Record> out = read_pcap(path("out.pcap"));
  const std::vector<Record> in = mixed_ecn_input();
  ASSERT_EQ(out.size(), 20U);
  for (std::size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(out[2 * i].bytes, in[i].bytes);
    EXPECT_EQ(out[2 * i + 1].bytes, in[i].bytes);
    EXPECT_EQ(out[2 * i + 1].ts_ns, out[2 * i].ts_ns);
  }
}

// A duplicate copy must still find its bytes when the original is lost after the copy was
// made (queue full at enqueue); a one-packet queue at a slow rate drops most originals.
TEST_F(Replay, CopiesOutliveTheirDroppedOriginal) {
  std::vector<Record> in;
  in.reserve(50);
  for (int i = 0; i < 50; ++i) {
    in.push_back({kBaseNs + i * 10'000LL, udp_frame(0, static_cast<std::uint16_t>(i)), 0});
  }
  write_pcap(path("in.pcap"), in);
  Profile p;
  p.a_to_b.duplicate = ChanceSettings{1.0, 0};
  RateSettings rate;
  rate.rate = BitRate{1'000'000};
  p.a_to_b.rate = rate;
  QueueSettings q;
  q.limit_packets = 1;
  p.a_to_b.queue = q;
  const ReplaySummary s = replay(p, options());
  EXPECT_EQ(s.impairment.counters.delivered + s.impairment.counters.dropped_total(), 100U);
  EXPECT_GT(s.impairment.counters.dropped_total(), 0U);
  EXPECT_EQ(read_pcap(path("out.pcap")).size(), s.impairment.counters.delivered);
}

TEST_F(Replay, CorruptionFlipsExactlyOneBit) {
  write_pcap(path("in.pcap"), mixed_ecn_input());
  Profile p = delay_profile(Duration{0});
  p.a_to_b.corrupt = ChanceSettings{1.0, 0};
  const ReplaySummary s = replay(p, options());
  EXPECT_EQ(s.impairment.counters.corrupted, 10U);
  const std::vector<Record> out = read_pcap(path("out.pcap"));
  const std::vector<Record> in = mixed_ecn_input();
  ASSERT_EQ(out.size(), in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(out[i].bytes.size(), in[i].bytes.size());
    int bits = 0;
    for (std::size_t k = 0; k < in[i].bytes.size(); ++k) {
      bits += std::popcount(static_cast<unsigned>(out[i].bytes[k] ^ in[i].bytes[k]));
    }
    EXPECT_EQ(bits, 1) << "record " << i;
  }
}

// With jitter larger than the gap the engine reorders; OUT is still in release-time order,
// and the same seed gives the same bytes.
TEST_F(Replay, OutputIsInReleaseOrderAndDeterministic) {
  std::vector<Record> in;
  in.reserve(500);
  for (int i = 0; i < 500; ++i) {
    in.push_back({kBaseNs + i * 100'000LL, udp_frame(0x02, static_cast<std::uint16_t>(i)), 0});
  }
  write_pcap(path("in.pcap"), in);
  Profile p = delay_profile(Duration{5'000'000});
  p.a_to_b.delay->jitter = Duration{2'000'000};
  ReplayOptions o = options();
  o.seed = 99;
  const ReplaySummary s = replay(p, o);
  EXPECT_EQ(s.impairment.counters.delivered, 500U);
  EXPECT_GT(s.impairment.counters.reordered, 0U);
  EXPECT_GE(Duration{s.impairment.delay_ns.min}, Duration{3'000'000});
  EXPECT_LE(Duration{s.impairment.delay_ns.max}, Duration{7'000'000});
  EXPECT_LE(Duration{s.impairment.delay_ns.min}, Duration{s.impairment.delay_ns.p50});
  EXPECT_LE(Duration{s.impairment.delay_ns.p50}, Duration{s.impairment.delay_ns.p99});
  const std::vector<Record> out = read_pcap(path("out.pcap"));
  ASSERT_EQ(out.size(), 500U);
  for (std::size_t i = 1; i < out.size(); ++i) {
    EXPECT_LE(out[i - 1].ts_ns, out[i].ts_ns) << "record " << i;
  }
  o.output = path("again.pcap");
  replay(p, o);
  const std::vector<Record> again = read_pcap(path("again.pcap"));
  ASSERT_EQ(again.size(), out.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(again[i].ts_ns, out[i].ts_ns);
    EXPECT_EQ(again[i].bytes, out[i].bytes);
  }
}

TEST_F(Replay, SnapshotTruncatedRecordsAreReplayedAndCounted) {
  Bytes full = udp_frame(0x02, 1, 1000);
  Bytes cut(full.begin(), full.begin() + 64);
  write_pcap(path("in.pcap"),
             {{kBaseNs, cut, static_cast<std::uint32_t>(full.size())}, {kBaseNs + 5, full, 0}});
  const ReplaySummary s = replay(delay_profile(Duration{1000}), options());
  EXPECT_EQ(s.snapshot_truncated, 1U);
  EXPECT_EQ(s.impairment.counters.bytes_in, 2 * full.size());
  const std::vector<Record> out = read_pcap(path("out.pcap"));
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0].bytes, cut);
  EXPECT_EQ(out[0].wire_len, full.size());
}

TEST_F(Replay, TruncatedCaptureIsAnInputErrorAndLeavesNoOutput) {
  write_pcap(path("in.pcap"), mixed_ecn_input());
  fs::resize_file(path("in.pcap"), fs::file_size(path("in.pcap")) - 10);  // cut into record 10
  {
    std::ofstream old(path("out.pcap"));
    old << "previous";
  }
  try {
    replay(delay_profile(Duration{1'000'000}), options());
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path("in.pcap"));
    EXPECT_EQ(e.path(), "record 10");
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
  EXPECT_EQ(files(), (std::vector<std::string>{"in.pcap", "out.pcap"}));
  std::ifstream old(path("out.pcap"));
  std::string content;
  old >> content;
  EXPECT_EQ(content, "previous");  // untouched
}

TEST_F(Replay, TruncatedCaptureWithoutAnOldOutputLeavesNothing) {
  write_pcap(path("in.pcap"), mixed_ecn_input());
  fs::resize_file(path("in.pcap"), 24 + 16 + 30);  // file header, then half a record
  EXPECT_THROW(replay(delay_profile(Duration{0}), options()), InputError);
  EXPECT_EQ(files(), (std::vector<std::string>{"in.pcap"}));
}

TEST_F(Replay, NonEthernetLinkTypeIsRejected) {
  write_pcap(path("in.pcap"), {{kBaseNs, Bytes(40, 0x45), 0}}, PCAP_TSTAMP_PRECISION_MICRO, DLT_RAW);
  try {
    replay(delay_profile(Duration{0}), options());
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path("in.pcap"));
    EXPECT_NE(e.reason().find("is not Ethernet"), std::string::npos) << e.what();
  }
  EXPECT_EQ(files(), (std::vector<std::string>{"in.pcap"}));
}

TEST_F(Replay, MissingInputIsAnInputError) {
  EXPECT_THROW(replay(delay_profile(Duration{0}), options()), InputError);
  EXPECT_TRUE(files().empty());
}

TEST_F(Replay, UnwritableOutputIsAnEnvironmentError) {
  write_pcap(path("in.pcap"), mixed_ecn_input());
  ReplayOptions o = options();
  o.output = path("no-such-dir/out.pcap");
  EXPECT_THROW(replay(delay_profile(Duration{0}), o), EnvironmentError);
}

TEST_F(Replay, TimeGoingBackInTheInputIsClampedAndCounted) {
  write_pcap(path("in.pcap"), {{kBaseNs + 1'000'000, udp_frame(0, 1), 0}, {kBaseNs, udp_frame(0, 2), 0}});
  const ReplaySummary s = replay(delay_profile(Duration{500}), options());
  EXPECT_EQ(s.input_time_went_back, 1U);
  const std::vector<Record> out = read_pcap(path("out.pcap"));
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0].ts_ns, kBaseNs + 1'000'500);
  EXPECT_EQ(out[1].ts_ns, kBaseNs + 1'000'500);
}

TEST_F(Replay, EmptyCaptureGivesAnEmptyOutput) {
  write_pcap(path("in.pcap"), {});
  const ReplaySummary s = replay(delay_profile(Duration{0}), options());
  EXPECT_EQ(s.impairment.counters.packets_in, 0U);
  EXPECT_EQ(s.impairment.delay_ns.count, 0U);
  EXPECT_TRUE(read_pcap(path("out.pcap")).empty());
}

}  // namespace
}  // namespace gw
