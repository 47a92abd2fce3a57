// Instruction-count driver for the engine benchmark (ci/bench/engine-instructions): pushes the
// same packets as ci/bench/engine_bench.cc through one direction of the full WAN profile
// (or the empty one), 40,000 to warm up (200,000 for `burst`), then N counted under callgrind's
// instrumentation.
// Instruction counts do not depend on the load of a shared machine, so they show what a
// change to the engine's per-packet path costs or saves. It prints a digest of every release
// time, mark and drop, so two builds can also be checked for identical output.
//
// `burst` is the shape `gradwall emu` sees on a DPDK port instead: 64-byte frames arriving 32
// at one instant (an rx burst gets one time stamp), a burst every 6.4 us (5 Mpps), through the
// same profile with the preserve policy. Each burst queues at the 10 Gbit/s link (32 x 51.2 ns)
// and drains before the next, so the scheduled backlog and RED's busy-queue average run on
// every frame, which 1500-byte packets 1,334 ns apart (the other profiles) never make them do.
#include <valgrind/callgrind.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "emulator/engine/engine.h"
#include "emulator/engine/profile.h"

namespace {

class DigestSink final : public gw::PacketSink {
 public:
  void deliver(gw::Packet&& p) override {
    bytes += p.size_bytes;
    digest = digest * 1099511628211ULL ^
             (p.id * 31 + static_cast<std::uint64_t>(gw::ns_of(p.time)) + (p.ce_marked ? 7 : 0));
  }
  void dropped(gw::Packet&& p, gw::DropCause /*c*/) override {
    ++drops;
    digest = digest * 1099511628211ULL ^ (p.id * 17);
  }
  std::uint64_t bytes = 0;
  std::uint64_t drops = 0;
  std::uint64_t digest = 14695981039346656037ULL;
};

const char* kFullWan = R"({"gradwall": "profile/v1", "seed": 1, "a_to_b": {
    "delay": {"delay_ms": 25, "jitter_ms": 1, "distribution": "normal", "reorder_policy": "POLICY"},
    "loss": {"model": "gemodel", "p": 0.0001, "r": 0.5, "loss_in_bad": 0.5},
    "rate": {"rate_gbps": 10},
    "queue": {"limit_bytes": 62500000, "aqm": {"kind": "red", "min_bytes": 300000, "max_bytes": 900000, "ecn": true}}}})";

// Pushes `warm` packets, then `counted` under callgrind's instrumentation: 1500-byte packets
// one every `gap`, or (kBursts) 64-byte frames, 32 at each instant, an instant every `gap`.
// A template, so that the other profiles' loop is the same code as before `burst` came.
template <bool kBursts>
void drive(gw::DirectionEngine& engine, DigestSink& sink, long warm, long counted, gw::Duration gap) {
  gw::Instant now = gw::kEpoch;
  for (long i = 0; i < warm + counted; ++i) {
    if (i == warm) {
      CALLGRIND_START_INSTRUMENTATION;
    }
    gw::Packet p;
    p.size_bytes = kBursts ? 64 : 1500;
    p.headers.valid_l3 = true;
    p.headers.valid_l4 = true;
    p.headers.protocol = 17;
    p.headers.ecn = gw::Ecn::kEct0;
    p.headers.dst.bytes[15] = 2;
    engine.push(std::move(p), now, sink);
    if (!kBursts || (i & 31) == 31) {
      now += gap;
    }
  }
  CALLGRIND_STOP_INSTRUMENTATION;
}

}  // namespace

// Usage: engine_driver netem|preserve|empty|burst [N]
int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "preserve";
  const long counted = argc > 2 ? std::atol(argv[2]) : 100'000;
  const bool burst = which == "burst";
  std::string json = which == "empty" ? std::string(R"({"gradwall": "profile/v1"})") : std::string(kFullWan);
  if (const auto at = json.find("POLICY"); at != std::string::npos) {
    json.replace(at, 6, burst ? "preserve" : which);
  }
  const gw::Profile profile = gw::parse_profile(nlohmann::json::parse(json), "bench.json");
  gw::DirectionEngine engine(profile, gw::Direction::kAToB);
  DigestSink sink;
  if (burst) {
    // 40 ms of bursts first: past the 25 ms delay, so each counted push also releases a frame.
    drive<true>(engine, sink, 200'000, counted, gw::Duration{6'400});
  } else {
    drive<false>(engine, sink, 40'000, counted, gw::BitRate{9'000'000'000}.transmit_time(1500));
  }
  std::printf(
      "%s packets=%ld delivered_bytes=%llu drops=%llu held=%llu digest=%016llx\n", which.c_str(), counted,
      static_cast<unsigned long long>(sink.bytes), static_cast<unsigned long long>(sink.drops),
      static_cast<unsigned long long>(engine.held_packets()), static_cast<unsigned long long>(sink.digest));
}
