// pcap captures through `gradwall replay` (emulator/replay/replay.h) with a profile that uses
// every stage a frame's bytes meet (loss, duplicate, corrupt, CE marking, delay with jitter,
// a rate and a queue). The capture is written to a file first: replay reads files. Every
// record is accounted for.
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "emulator/engine/profile.h"
#include "emulator/engine/summary.h"
#include "emulator/replay/replay.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

const gw::Profile& profile() {
  static const gw::Profile p = gw::parse_profile(nlohmann::json::parse(R"({
    "gradwall": "profile/v1", "name": "fuzz", "seed": 3,
    "a_to_b": {"loss": {"p": 0.1, "ecn": true}, "duplicate": {"p": 0.1}, "corrupt": {"p": 0.1},
               "delay": {"delay_ms": 2, "jitter_ms": 1},
               "rate": {"rate_mbps": 100}, "queue": {"limit_bytes": 200000}}})"),
                                                 "fuzz-profile");
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gw;
  static const std::string dir = [] {
    char tmpl[] = "/tmp/gw-fuzz-pcap.XXXXXX";
    return std::string(mkdtemp(tmpl));
  }();
  const std::string in = dir + "/in.pcap";
  std::ofstream(in, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  ReplayOptions o;
  o.input = in;
  o.output = dir + "/out.pcap";
  fuzz::expect_refusal_or_success([&] {
    const ReplaySummary s = replay(profile(), o);
    fuzz::require(accounting_error(s.impairment).empty());
  });
  return 0;
}
