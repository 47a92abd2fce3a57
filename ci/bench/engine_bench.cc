// Engine cost per packet in virtual time (issue: "Performance"). The full WAN profile is
// delay + normal jitter + Gilbert-Elliott loss + a 10 Gbit/s rate + RED with ECN, offered
// 9 Gbit/s of 1500-byte ECT(0) packets, so ~19,000 packets are in flight in the delay stage
// and the queue is busy. The reference in the same run is the same loop through an empty
// profile (the engine's fixed cost: classification, counters, the event loop), and a plain
// std::priority_queue holding the same number of packets (what any delay line must pay).
// Run: ci/bench/run   (figures recorded in docs/benchmarks.md)
#include <benchmark/benchmark.h>

#include <queue>

#include "emulator/engine/engine.h"
#include "emulator/engine/profile.h"

namespace gw {
namespace {

class NullSink final : public PacketSink {
 public:
  void deliver(Packet&& p) override { bytes += p.size_bytes; }
  void dropped(Packet&& /*p*/, DropCause /*c*/) override { ++drops; }
  std::uint64_t bytes = 0;
  std::uint64_t drops = 0;
};

const char* kFullWan = R"({
  "gradwall": "profile/v1", "seed": 1,
  "a_to_b": {
    "delay": {"delay_ms": 25, "jitter_ms": 1, "distribution": "normal", "reorder_policy": "netem"},
    "loss": {"model": "gemodel", "p": 0.0001, "r": 0.5, "loss_in_bad": 0.5},
    "rate": {"rate_gbps": 10},
    "queue": {"limit_bytes": 62500000,
              "aqm": {"kind": "red", "min_bytes": 300000, "max_bytes": 900000, "ecn": true}}
  }})";

// The same with the reorder policy the shipped WAN profiles use: jitter never reorders, so the
// delay line is a FIFO.
const char* kFullWanPreserve = R"({
  "gradwall": "profile/v1", "seed": 1,
  "a_to_b": {
    "delay": {"delay_ms": 25, "jitter_ms": 1, "distribution": "normal", "reorder_policy": "preserve"},
    "loss": {"model": "gemodel", "p": 0.0001, "r": 0.5, "loss_in_bad": 0.5},
    "rate": {"rate_gbps": 10},
    "queue": {"limit_bytes": 62500000,
              "aqm": {"kind": "red", "min_bytes": 300000, "max_bytes": 900000, "ecn": true}}
  }})";

const char* kEmpty = R"({"gradwall": "profile/v1"})";

Packet make_packet(std::uint16_t src_port = 0) {
  Packet p;
  p.headers.src_port = src_port;
  p.size_bytes = 1500;
  p.headers.valid_l3 = true;
  p.headers.valid_l4 = true;
  p.headers.protocol = 17;
  p.headers.ecn = Ecn::kEct0;
  p.headers.dst.bytes[15] = 2;
  return p;
}

// Packet i belongs to flow i % flows (its UDP source port).
void run_profile(benchmark::State& state, const nlohmann::json& doc, std::uint16_t flows = 1) {
  const Profile profile = parse_profile(doc, "bench.json");
  DirectionEngine engine(profile, Direction::kAToB);
  NullSink sink;
  // 1500 B every 1334 ns: 8.996 Gbit/s offered to the 10 Gbit/s bottleneck.
  const Duration gap = BitRate{9'000'000'000}.transmit_time(1500);
  Instant now = kEpoch;
  std::uint64_t i = 0;
  for (auto _ : state) {
    engine.push(make_packet(static_cast<std::uint16_t>(i % flows)), now, sink);
    now += gap;
    ++i;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(i));
  state.counters["in_flight"] = static_cast<double>(engine.held_packets());
  state.counters["drops"] = static_cast<double>(sink.drops);
}

void BM_EngineFullWanProfile(benchmark::State& state) {
  run_profile(state, nlohmann::json::parse(kFullWan));
}
void BM_EngineFullWanPreserve(benchmark::State& state) {
  run_profile(state, nlohmann::json::parse(kFullWanPreserve));
}
// The preserve profile with per-flow random streams (flow_streams.h), offered as 1,024 flows
// in turn: each packet's loss and jitter draws look up its flow's entry.
void BM_EngineFullWanPreservePerFlow(benchmark::State& state) {
  nlohmann::json doc = nlohmann::json::parse(kFullWanPreserve);
  doc["streams"] = "per_flow";
  run_profile(state, doc, 1024);
}
void BM_EngineEmptyProfile(benchmark::State& state) {
  run_profile(state, nlohmann::json::parse(kEmpty));
}

// A bare delay line: push with a release time, pop what is due. The floor for any emulator
// that holds ~19,000 packets in time order.
void BM_ReferencePriorityQueue(benchmark::State& state) {
  using Item = std::pair<std::int64_t, Packet>;
  const auto later = [](const Item& a, const Item& b) { return a.first > b.first; };
  std::priority_queue<Item, std::vector<Item>, decltype(later)> q(later);
  const std::int64_t gap = BitRate{9'000'000'000}.transmit_time(1500).count();
  std::uint64_t i = 0;
  std::uint64_t out = 0;
  for (auto _ : state) {
    const std::int64_t now = static_cast<std::int64_t>(i) * gap;
    q.emplace(now + 25'000'000 + static_cast<std::int64_t>(i * 2654435761U % 1'000'000), make_packet());
    while (!q.empty() && q.top().first <= now) {
      out += q.top().second.size_bytes;
      q.pop();
    }
    ++i;
  }
  benchmark::DoNotOptimize(out);
  state.SetItemsProcessed(static_cast<std::int64_t>(i));
}

BENCHMARK(BM_EngineFullWanProfile)->MinTime(2.0);
BENCHMARK(BM_EngineFullWanPreserve)->MinTime(2.0);
BENCHMARK(BM_EngineFullWanPreservePerFlow)->MinTime(2.0);
BENCHMARK(BM_EngineEmptyProfile)->MinTime(1.0);
BENCHMARK(BM_ReferencePriorityQueue)->MinTime(1.0);

}  // namespace
}  // namespace gw
