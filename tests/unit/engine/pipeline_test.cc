#include "emulator/engine/pipeline.h"

#include <gtest/gtest.h>

#include "emulator/engine/engine.h"
#include "emulator/engine/profile.h"
#include "tests/unit/engine/sink_for_tests.h"

namespace gw {
namespace {

using testing::CollectingSink;
using testing::udp_packet;

// Everything at once: loss, duplicates, corruption, a RED-ECN bottleneck with microbursts,
// jittered delay, an incast port and slots.
Profile everything() {
  return parse_profile(nlohmann::json::parse(R"({
    "gradwall": "profile/v1", "seed": 99,
    "a_to_b": {
      "limit_packets": 5000,
      "loss": {"model": "gemodel", "p": 0.01, "r": 0.3, "loss_in_bad": 0.5, "ecn": true},
      "duplicate": {"p": 0.01},
      "corrupt": {"p": 0.01},
      "delay": {"delay_ms": 10, "jitter_ms": 2, "distribution": "normal"},
      "reorder": {"p": 0.05, "gap": 10},
      "rate": {"rate_mbps": 200},
      "queue": {"limit_bytes": 300000, "aqm": {"kind": "red", "min_bytes": 30000, "max_bytes": 150000, "ecn": true}},
      "microbursts": [{"period_ms": 5, "burst_bytes": 100000, "jitter_ms": 1}],
      "incast": {"buffer_bytes": 200000, "ports": [{"match": "198.18.0.2", "rate_mbps": 250}],
                 "bursts": [{"to": "198.18.0.2", "senders": 8, "bytes_each": 15000, "period_ms": 20}]},
      "slot": {"min_delay_us": 100, "max_delay_us": 300, "max_packets": 8}
    }})"),
                       "everything.json");
}

struct RunResult {
  PipelineCounters counters;
  std::vector<std::pair<std::uint64_t, std::int64_t>> releases;  // (id, time)
  std::uint64_t held = 0;
};

RunResult run(const Profile& p, int packets) {
  DirectionEngine e(p, Direction::kAToB);
  CollectingSink sink;
  Instant now = kEpoch;
  for (int i = 0; i < packets; ++i) {
    now = kEpoch + Duration{static_cast<std::int64_t>(i) * 50'000};  // 240 Mbit/s of 1500 B
    Packet pkt = udp_packet(1500, i % 2 ? Ecn::kEct0 : Ecn::kNotEct);
    e.push(std::move(pkt), now, sink);
  }
  e.drain(sink, now);
  RunResult r;
  r.counters = e.totals();
  r.held = e.held_packets();
  for (const Packet& p2 : sink.delivered) {
    r.releases.emplace_back(p2.id, ns_of(p2.time));
  }
  return r;
}

TEST(Pipeline, EveryPacketIsDeliveredOrDroppedWithACause) {
  const RunResult r = run(everything(), 20000);
  const PipelineCounters& c = r.counters;
  EXPECT_EQ(r.held, 0U);
  EXPECT_EQ(c.packets_in, 20000U);
  EXPECT_EQ(c.packets_in + c.duplicated, c.delivered + c.dropped_total());
  // Each mechanism did something, so the balance above is not vacuous.
  EXPECT_GT(c.dropped[static_cast<std::size_t>(DropCause::kLoss)], 0U);
  EXPECT_GT(c.dropped[static_cast<std::size_t>(DropCause::kIncastBuffer)], 0U);
  EXPECT_GT(c.marked_ce, 0U);
  EXPECT_GT(c.duplicated, 0U);
  EXPECT_GT(c.corrupted, 0U);
  EXPECT_GT(c.reordered, 0U);
  EXPECT_GT(c.synthetic_in, 0U);
}

TEST(Pipeline, SameSeedGivesTheSameReleasesAndAnotherSeedDoesNot) {
  const Profile p = everything();
  const RunResult a = run(p, 5000);
  const RunResult b = run(p, 5000);
  EXPECT_EQ(a.releases, b.releases);
  Profile q = p;
  q.seed = 100;
  const RunResult c = run(q, 5000);
  EXPECT_NE(a.releases, c.releases);
}

// The owner may call in at every packet or only now and then: the result is the same.
TEST(Pipeline, ResultDoesNotDependOnHowOftenTheOwnerAdvances) {
  const Profile p = everything();
  const auto drive = [&](bool advance_often) {
    DirectionEngine e(p, Direction::kAToB);
    CollectingSink sink;
    Instant now = kEpoch;
    for (int i = 0; i < 3000; ++i) {
      now = kEpoch + Duration{static_cast<std::int64_t>(i) * 50'000};
      if (advance_often) {
        e.advance(now - Duration{25'000}, sink);
      }
      e.push(udp_packet(1500, Ecn::kEct0), now, sink);
    }
    e.drain(sink, now);
    std::vector<std::pair<std::uint64_t, std::int64_t>> out;
    for (const Packet& q : sink.delivered) {
      out.emplace_back(q.id, ns_of(q.time));
    }
    return out;
  };
  EXPECT_EQ(drive(false), drive(true));
}

TEST(Pipeline, NetemLimitDropsWhatTheWholePipelineCannotHold) {
  DirectionSpec d;
  d.limit_packets = 10;
  d.delay = DelaySettings{};
  d.delay->delay = Duration{1'000'000};
  Pipeline pl(d, 1, "t");
  CollectingSink sink;
  for (int i = 0; i < 15; ++i) {
    pl.push(udp_packet(100), kEpoch, sink);
  }
  EXPECT_EQ(sink.drops[DropCause::kLimit], 5U);
  pl.drain(sink, kEpoch);
  EXPECT_EQ(sink.delivered.size(), 10U);
}

TEST(DirectionEngine, PhasesChangeTheDelayAtTheirTime) {
  const Profile p = parse_profile(nlohmann::json::parse(R"({"gradwall": "profile/v1",
      "a_to_b": {"delay": {"delay_ms": 30}},
      "phases": [{"at_s": 1, "a_to_b": {"delay": {"delay_ms": 80}}}]})"),
                                  "p.json");
  DirectionEngine e(p, Direction::kAToB);
  CollectingSink sink;
  e.push(udp_packet(100), kEpoch + Duration{999'000'000}, sink);
  e.push(udp_packet(100), kEpoch + Duration{1'000'000'000}, sink);
  e.drain(sink, kEpoch + Duration{1'000'000'000});
  ASSERT_EQ(sink.delivered.size(), 2U);
  EXPECT_EQ((sink.delivered[0].time - sink.delivered[0].arrival).count(), 30'000'000);
  EXPECT_EQ((sink.delivered[1].time - sink.delivered[1].arrival).count(), 80'000'000);
  EXPECT_EQ(e.phase(), 0);
}

TEST(DirectionEngine, PhasesPatchClassesToo) {
  const Profile p = parse_profile(nlohmann::json::parse(R"({"gradwall": "profile/v1",
      "a_to_b": {"delay": {"delay_ms": 25}},
      "classes": [{"name": "cnp", "match": {"roce": true}, "a_to_b": {"delay": {"delay_ms": 25}}}],
      "phases": [{"at_s": 1, "a_to_b": {"delay": {"delay_ms": 40}},
                  "classes": {"cnp": {"a_to_b": {"delay": {"delay_ms": 40}}}}}]})"),
                                  "p.json");
  DirectionEngine e(p, Direction::kAToB);
  CollectingSink sink;
  Packet cnp = udp_packet(100);
  cnp.headers.roce = true;
  e.push(std::move(cnp), kEpoch + Duration{2'000'000'000}, sink);
  e.push(udp_packet(100), kEpoch + Duration{2'000'000'000}, sink);
  e.drain(sink, kEpoch + Duration{2'000'000'000});
  ASSERT_EQ(sink.delivered.size(), 2U);
  for (const Packet& q : sink.delivered) {
    EXPECT_EQ((q.time - q.arrival).count(), 40'000'000);
  }
}

TEST(DirectionEngine, ClassesGetTheirOwnPipeline) {
  const Profile p = parse_profile(nlohmann::json::parse(R"({"gradwall": "profile/v1",
      "a_to_b": {"loss": {"p": 1}},
      "classes": [{"name": "cnp", "match": {"roce": true, "roce_opcode": 129}, "a_to_b": {}}]})"),
                                  "p.json");
  DirectionEngine e(p, Direction::kAToB);
  CollectingSink sink;
  Packet cnp = udp_packet(100);
  cnp.headers.roce = true;
  cnp.headers.roce_opcode = 0x81;
  Packet data = udp_packet(100);
  data.headers.roce = true;
  data.headers.roce_opcode = 0x04;
  e.push(std::move(cnp), kEpoch, sink);
  e.push(std::move(data), kEpoch, sink);
  ASSERT_EQ(sink.delivered.size(), 1U);
  EXPECT_EQ(sink.delivered[0].headers.roce_opcode, 0x81);
  EXPECT_EQ(sink.drops[DropCause::kLoss], 1U);
}

// Path classes match a range of UDP source ports (the path's, emulator/fabric/path_ports.h):
// both ends are in, the ports either side are not.
TEST(DirectionEngine, ClassesMatchSourcePortRanges) {
  const Profile p = parse_profile(nlohmann::json::parse(R"({"gradwall": "profile/v1",
      "a_to_b": {"loss": {"p": 1}},
      "classes": [{"name": "path1", "match": {"protocol": "udp", "src_port": "50176-51199"}, "a_to_b": {}}]})"),
                                  "p.json");
  DirectionEngine e(p, Direction::kAToB);
  CollectingSink sink;
  for (const std::uint16_t port : {50175, 50176, 50700, 51199, 51200}) {
    Packet q = udp_packet(100);
    q.headers.valid_l4 = true;
    q.headers.src_port = port;
    e.push(std::move(q), kEpoch, sink);
  }
  ASSERT_EQ(sink.delivered.size(), 3U);
  EXPECT_EQ(sink.delivered[0].headers.src_port, 50176);
  EXPECT_EQ(sink.delivered[2].headers.src_port, 51199);
  EXPECT_EQ(sink.drops[DropCause::kLoss], 2U);
}

// `seed_b_to_a` seeds the b_to_a direction alone: its draws are those of a profile whose
// `seed` it is, and a_to_b's stay those of `seed`.
TEST(DirectionEngine, SeedBToASeedsThatDirectionOnly) {
  const auto losses = [](std::uint64_t seed, std::optional<std::uint64_t> b_seed, Direction d) {
    Profile p =
        parse_profile(nlohmann::json::parse(R"({"gradwall": "profile/v1", "a_to_b": {"loss": {"p": 0.1}},
        "b_to_a": {"loss": {"p": 0.1}}})"),
                      "p.json");
    p.seed = seed;
    p.seed_b_to_a = b_seed;
    DirectionEngine e(p, d);
    CollectingSink sink;
    std::vector<std::uint64_t> kept;
    for (int i = 0; i < 500; ++i) {
      Packet q = udp_packet(100);
      q.handle = static_cast<std::uint64_t>(i);
      e.push(std::move(q), kEpoch, sink);
    }
    for (const Packet& q : sink.delivered) {
      kept.push_back(q.handle);
    }
    return kept;
  };
  EXPECT_EQ(losses(1, 7, Direction::kBToA), losses(7, std::nullopt, Direction::kBToA));
  EXPECT_NE(losses(1, 7, Direction::kBToA), losses(1, std::nullopt, Direction::kBToA));
  EXPECT_EQ(losses(1, 7, Direction::kAToB), losses(1, std::nullopt, Direction::kAToB));
}

}  // namespace
}  // namespace gw
