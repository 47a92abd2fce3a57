// Per-flow random streams (flow_streams.h, a profile's "streams"): the table that keeps one
// draw state per flow, and the property they exist for: a flow's drops, copies, corruptions
// and delays do not depend on the other traffic or on how many rx queues' engines carried it.
#include "emulator/engine/flow_streams.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/errors.h"
#include "emulator/engine/engine.h"
#include "emulator/engine/profile.h"
#include "emulator/engine/profile_writer.h"
#include "emulator/engine/shared_wire.h"
#include "unit/engine/sink_for_tests.h"

namespace gw {
namespace {

using namespace std::chrono_literals;

TEST(FlowTable, AFlowKeepsItsEntryAndStartsOverAfterAnIdleGap) {
  FlowTable<int> t(16, 10ms);
  bool fresh = false;
  int* a = t.find(42, kEpoch, fresh);
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(fresh);
  *a = 7;
  EXPECT_EQ(t.find(42, kEpoch + 10ms, fresh), a);
  EXPECT_FALSE(fresh);  // idle exactly `idle`: not longer
  EXPECT_EQ(*t.find(42, kEpoch + 20ms, fresh), 7);
  EXPECT_FALSE(fresh);
  t.find(42, kEpoch + 31ms, fresh);
  EXPECT_TRUE(fresh);
  EXPECT_EQ(t.size(), 1U);
}

TEST(FlowTable, GrowsPastItsFirstSizeAndFindsEveryFlowAgain) {
  FlowTable<std::uint64_t> t(100'000, 1s);
  bool fresh = false;
  for (std::uint64_t k = 1; k <= 5000; ++k) {
    *t.find(k * 0x9e3779b97f4a7c15ULL, kEpoch, fresh) = k;
  }
  for (std::uint64_t k = 1; k <= 5000; ++k) {
    ASSERT_EQ(*t.find(k * 0x9e3779b97f4a7c15ULL, kEpoch, fresh), k);
    ASSERT_FALSE(fresh);
  }
  EXPECT_EQ(t.size(), 5000U);
  EXPECT_EQ(t.full_misses(), 0U);
}

TEST(FlowTable, AtMaxFlowsIdleFlowsMakeRoomAndActiveOnesDoNot) {
  FlowTable<int> t(4, 10ms);
  bool fresh = false;
  for (std::uint64_t k = 1; k <= 4; ++k) {
    ASSERT_NE(t.find(k, kEpoch, fresh), nullptr);
  }
  // Four active flows: a fifth is refused and counted.
  EXPECT_EQ(t.find(5, kEpoch + 5ms, fresh), nullptr);
  EXPECT_EQ(t.full_misses(), 1U);
  // Flows 1-3 stay active; flow 4 goes idle and its entry is reclaimed for flow 5.
  for (std::uint64_t k = 1; k <= 3; ++k) {
    t.find(k, kEpoch + 15ms, fresh);
  }
  ASSERT_NE(t.find(5, kEpoch + 20ms, fresh), nullptr);
  EXPECT_TRUE(fresh);
  EXPECT_EQ(t.size(), 4U);
  for (std::uint64_t k = 1; k <= 3; ++k) {
    t.find(k, kEpoch + 21ms, fresh);
    EXPECT_FALSE(fresh) << k;
  }
}

TEST(FlowTable, AFloodOfNewFlowsIntoAFullTableIsRefusedUntilAnEntryCanBeIdle) {
  FlowTable<int> t(4, 10ms);
  bool fresh = false;
  for (std::uint64_t k = 1; k <= 4; ++k) {
    t.find(k, kEpoch + Duration{static_cast<std::int64_t>(k)}, fresh);
  }
  // 1,000 new flows within the idle time: all refused (each after one sweep at most, as the
  // first sweep learns that no entry can go idle before 1 ns + 10 ms).
  for (std::uint64_t k = 100; k < 1100; ++k) {
    EXPECT_EQ(t.find(k, kEpoch + 1ms, fresh), nullptr);
  }
  EXPECT_EQ(t.full_misses(), 1000U);
  // Just after flow 1 went idle its entry is free again; flows 2-4 are not idle yet.
  EXPECT_NE(t.find(5000, kEpoch + 10ms + Duration{2}, fresh), nullptr);
  EXPECT_EQ(t.find(5001, kEpoch + 10ms + Duration{2}, fresh), nullptr);
  EXPECT_NE(t.find(5002, kEpoch + 10ms + Duration{3}, fresh), nullptr);
}

TEST(FlowKey, NamesTheFiveTupleAndNothingElse) {
  Packet a = testing::udp_packet(1000);
  Packet b = a;
  b.size_bytes = 64;
  b.headers.ecn = Ecn::kEct0;
  EXPECT_EQ(flow_key(a.headers), flow_key(b.headers));
  b.headers.src_port = 10001;
  EXPECT_NE(flow_key(a.headers), flow_key(b.headers));
  b = a;
  b.headers.dst = testing::v4(198, 18, 0, 3);
  EXPECT_NE(flow_key(a.headers), flow_key(b.headers));
  b = a;
  b.headers.protocol = 6;
  EXPECT_NE(flow_key(a.headers), flow_key(b.headers));
  Packet arp;
  EXPECT_EQ(flow_key(arp.headers), 1U);
  EXPECT_NE(flow_key(a.headers), 0U);
}

Profile profile(const std::string& streams, const std::string& a_to_b) {
  return parse_profile(nlohmann::json::parse(R"({"gradwall": "profile/v1", "name": "t", "seed": 7, )" +
                                             streams + R"("a_to_b": )" + a_to_b + "}"),
                       "test.json");
}

// What happened to each packet, by (flow, index in the flow): the release times of what came
// out (the original and any copy), each with its flipped bit; empty when it was dropped.
using Fate = std::vector<std::pair<std::int64_t, std::uint32_t>>;
using Fates = std::map<std::pair<int, int>, Fate>;

// `flows` flows of `per_flow` packets each, interleaved one packet per flow in turn, 10 us
// apart; flow f's packets go to engine (f's key) % engines.size(), as RSS spreads them.
Fates run(std::vector<DirectionEngine*> engines, int flows, int per_flow, int only_flow = -1) {
  std::vector<testing::CollectingSink> sinks(engines.size());
  int n = 0;
  for (int i = 0; i < per_flow; ++i) {
    for (int f = 0; f < flows; ++f) {
      if (only_flow >= 0 && f != only_flow) {
        continue;
      }
      Packet p = testing::udp_packet(1000);
      p.headers.src_port = static_cast<std::uint16_t>(20000 + f);
      p.handle = static_cast<std::uint64_t>(f) << 32 | static_cast<std::uint32_t>(i);
      const std::size_t e = flow_key(p.headers) % engines.size();
      engines[e]->push(std::move(p), kEpoch + 10us * (i * flows + f), sinks[e]);
      ++n;
    }
  }
  Fates out;
  for (std::size_t e = 0; e < engines.size(); ++e) {
    engines[e]->drain(sinks[e], kEpoch + 10us * (per_flow * flows));
    for (const Packet& p : sinks[e].delivered) {
      out[{static_cast<int>(p.handle >> 32), static_cast<int>(p.handle & 0xffffffffU)}].emplace_back(
          ns_of(p.time), p.corrupt_bit);
    }
    for (const Packet& p : sinks[e].dropped_packets) {
      out[{static_cast<int>(p.handle >> 32), static_cast<int>(p.handle & 0xffffffffU)}];
    }
  }
  for (auto& [k, v] : out) {
    std::sort(v.begin(), v.end());
  }
  return out;
}

struct OneAndTwo {
  Fates one;
  Fates two;
};
OneAndTwo one_and_two_queues(const Profile& p, int flows, int per_flow) {
  DirectionEngine one(p, Direction::kAToB);
  SharedWires wires;
  DirectionEngine q0(p, Direction::kAToB, 0, &wires);
  DirectionEngine q1(p, Direction::kAToB, 1, &wires);
  return {run({&one}, flows, per_flow), run({&q0, &q1}, flows, per_flow)};
}

// Everything drawn per packet: correlated random loss, duplication, corruption, correlated
// jitter that reorders (netem's policy) and netem's reorder with a gap.
const char* const kEverything = R"({"loss": {"p": 0.05, "correlation": 0.3}, "duplicate": {"p": 0.03},
    "corrupt": {"p": 0.03}, "delay": {"delay_ms": 10, "jitter_ms": 2, "correlation": 0.2},
    "reorder": {"p": 0.1, "gap": 3}})";
const char* const kGilbertElliott =
    R"({"loss": {"model": "gemodel", "p": 0.02, "r": 0.3, "loss_in_bad": 0.8}, "delay": {"delay_ms": 5, "jitter_ms": 1}})";

class PerFlow : public ::testing::TestWithParam<const char*> {};

TEST_P(PerFlow, AFlowMeetsTheSameDrawsOnOneQueueOrTwo) {
  const OneAndTwo r = one_and_two_queues(profile(R"("streams": "per_flow", )", GetParam()), 40, 200);
  ASSERT_EQ(r.one.size(), 40U * 200U);
  // Exact, packet for packet: every drop, copy, flipped bit and release instant.
  EXPECT_TRUE(r.one == r.two);
  int dropped = 0;
  for (const auto& [k, fate] : r.one) {
    dropped += fate.empty() ? 1 : 0;
  }
  EXPECT_GT(dropped, 0);  // the profile did something
}

TEST_P(PerFlow, PerQueueStreamsDoNotKeepThatPromise) {
  // The same run with the default streams: the queue count changes flows' fates (this is
  // what makes the test above one that can fail).
  const OneAndTwo r = one_and_two_queues(profile("", GetParam()), 40, 200);
  ASSERT_EQ(r.one.size(), 40U * 200U);
  EXPECT_FALSE(r.one == r.two);
}

TEST_P(PerFlow, AFlowMeetsTheSameDrawsAloneOrAmongOthers) {
  const Profile p = profile(R"("streams": "per_flow", )", GetParam());
  DirectionEngine all(p, Direction::kAToB);
  DirectionEngine alone(p, Direction::kAToB);
  const Fates with_others = run({&all}, 40, 200);
  const Fates by_itself = run({&alone}, 40, 200, 17);
  ASSERT_EQ(by_itself.size(), 200U);
  for (const auto& [k, fate] : by_itself) {
    ASSERT_EQ(with_others.at(k), fate) << "packet " << k.second;
  }
}

INSTANTIATE_TEST_SUITE_P(Profiles, PerFlow, ::testing::Values(kEverything, kGilbertElliott));

TEST(PerFlowStreams, FlowsAreIndependentAndTheLossRateHolds) {
  // 1000 flows of 100 packets, 5 % random loss: per flow a Binomial(100, 0.05) count of
  // drops, mean 5, variance 4.75. The total (mean 5000, sd 69) is within 5 sd; the variance
  // of the per-flow counts (standard error ~0.3 over 1000 flows) within [3.5, 6.0]. Flows
  // drawing one stream in step would give variance 0; flows sharing a stream's draws in turn
  // would be the per-queue stream again, which the other tests tell apart.
  const Profile p = profile(R"("streams": "per_flow", )", R"({"loss": {"p": 0.05}})");
  DirectionEngine e(p, Direction::kAToB);
  const Fates f = run({&e}, 1000, 100);
  std::vector<int> drops(1000, 0);
  for (const auto& [k, fate] : f) {
    drops[static_cast<std::size_t>(k.first)] += fate.empty() ? 1 : 0;
  }
  double sum = 0;
  double sq = 0;
  for (const int d : drops) {
    sum += d;
    sq += static_cast<double>(d) * d;
  }
  const double mean = sum / 1000;
  const double var = (sq - sum * mean) / 999;
  EXPECT_NEAR(sum, 5000, 345);
  EXPECT_GT(var, 3.5);
  EXPECT_LT(var, 6.0);
}

TEST(PerFlowStreams, AFullTableFallsBackToTheStageStreamAndCountsIt) {
  const Profile p = profile(R"("streams": {"per": "flow", "max_flows": 8}, )", R"({"loss": {"p": 0.05}})");
  DirectionEngine e(p, Direction::kAToB);
  run({&e}, 20, 10);
  const Pipeline& pl = *e.classes().front().pipeline;
  EXPECT_EQ(pl.flow_entries(), 8U);
  EXPECT_EQ(pl.flow_table_misses(), 12U * 10U);
}

TEST(PerFlowStreams, TheProfileSaysHowAndRefusesWhatItCannotMean) {
  EXPECT_FALSE(profile("", "{}").streams.per_flow);
  EXPECT_FALSE(profile(R"("streams": "per_queue", )", "{}").streams.per_flow);
  const Profile p = profile(R"("streams": {"per": "flow", "max_flows": 1000, "idle_s": 5}, )", "{}");
  EXPECT_TRUE(p.streams.per_flow);
  EXPECT_EQ(p.streams.max_flows, 1000U);
  EXPECT_EQ(p.streams.idle, 5s);
  // Written back (a live run's profile) and read again, the same.
  const Profile again = parse_profile(profile_to_json(p), "again.json");
  EXPECT_TRUE(again.streams.per_flow);
  EXPECT_EQ(again.streams.max_flows, 1000U);
  EXPECT_EQ(again.streams.idle, 5s);

  const auto path_of = [](const std::string& streams) {
    try {
      profile(streams, "{}");
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "test.json");
      return e.path();
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(path_of(R"("streams": "per_packet", )"), "$.streams");
  EXPECT_EQ(path_of(R"("streams": {"per": "flow", "max_flows": 0}, )"), "$.streams.max_flows");
  EXPECT_EQ(path_of(R"("streams": {"per": "queue", "max_flows": 10}, )"), "$.streams.per");
  EXPECT_EQ(path_of(R"("streams": {"idle_us": 5000}, )"), "$.streams.per");
  EXPECT_EQ(path_of(R"("streams": {"per": "flow", "idle_us": 10}, )"), "$.streams.idle_us");
  EXPECT_EQ(path_of(R"("streams": {"per": "flow", "flows": 10}, )"), "$.streams.flows");
}

}  // namespace
}  // namespace gw
