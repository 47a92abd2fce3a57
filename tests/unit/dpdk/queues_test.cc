// The emulator spread over rx queues (--queues, forwarder.h): which lcore runs which lane, which
// profiles several queues can run, each queue's engine drawing from its own streams, and a
// direction's counters as the sum of its queues' (DirectionStats::add, Exchange::read).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/errors.h"
#include "emulator/dpdk/exchange.h"
#include "emulator/dpdk/forwarder.h"
#include "emulator/engine/engine.h"
#include "emulator/engine/profile.h"
#include "unit/engine/sink_for_tests.h"

namespace gw {
namespace {

Profile profile(const std::string& body) {
  return parse_profile(nlohmann::json::parse(R"({"gradwall": "profile/v1", "name": "t", )" + body + "}"),
                       "test.json");
}

TEST(LaneLayout, OneQueueOnOneLcoreRunsBothDirectionsThere) {
  EXPECT_EQ(lane_layout(1, 1), (std::vector<unsigned>{0, 0}));
}

TEST(LaneLayout, OneQueueOnTwoLcoresGivesEachDirectionItsOwn) {
  EXPECT_EQ(lane_layout(1, 2), (std::vector<unsigned>{0, 1}));
}

TEST(LaneLayout, AQueuesTwoLanesShareAnLcoreWhenQueuesAreAtLeastLcores) {
  // Lanes: a_to_b/q0, b_to_a/q0, a_to_b/q1, b_to_a/q1, ...
  EXPECT_EQ(lane_layout(2, 2), (std::vector<unsigned>{0, 0, 1, 1}));
  EXPECT_EQ(lane_layout(4, 2), (std::vector<unsigned>{0, 0, 1, 1, 0, 0, 1, 1}));
  EXPECT_EQ(lane_layout(3, 3), (std::vector<unsigned>{0, 0, 1, 1, 2, 2}));
}

TEST(LaneLayout, FewerQueuesThanLcoresDealsLanesRoundAndLeavesTheRestIdle) {
  EXPECT_EQ(lane_layout(2, 3), (std::vector<unsigned>{0, 1, 2, 0}));
  EXPECT_EQ(lane_layout(1, 4), (std::vector<unsigned>{0, 1}));
}

TEST(QueuesCanRun, PerPacketStagesRunOnAnyNumberOfQueues) {
  const Profile p = profile(R"("a_to_b": {"delay": {"delay_ms": 5, "jitter_ms": 1}, "loss": {"p": 0.01},
      "duplicate": {"p": 0.01}, "corrupt": {"p": 0.01}})");
  EXPECT_NO_THROW(check_queues_can_run(p, 1, "p.json"));
  EXPECT_NO_THROW(check_queues_can_run(p, 16, "p.json"));
}

TEST(QueuesCanRun, ASharedBottleneckIsRefusedWithItsPath) {
  const auto path_of = [](const Profile& p) {
    try {
      check_queues_can_run(p, 2, "p.json");
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "p.json");
      EXPECT_NE(e.reason().find("--queues 1"), std::string::npos) << e.reason();
      return e.path();
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(path_of(profile(R"("a_to_b": {"rate": {"rate_gbps": 10}})")), "$.a_to_b.rate");
  // One queue runs it as before.
  EXPECT_NO_THROW(check_queues_can_run(profile(R"("a_to_b": {"rate": {"rate_gbps": 10}})"), 1, "p.json"));
  EXPECT_EQ(path_of(profile(R"("a_to_b": {}, "b_to_a": {"queue": {"limit_packets": 100}})")),
            "$.b_to_a.queue");
  EXPECT_EQ(path_of(profile(R"("a_to_b": {"limit_packets": 1000}, "b_to_a": {})")), "$.a_to_b.limit_packets");
  EXPECT_EQ(path_of(profile(R"("a_to_b": {}, "classes": [{"name": "x", "match": {"protocol": "udp"},
      "a_to_b": {"rate": {"rate_mbps": 100}}, "b_to_a": {}}])")),
            "$.classes[0].a_to_b.rate");
  EXPECT_EQ(path_of(profile(R"("a_to_b": {}, "phases": [{"at_s": 1, "name": "cut",
      "a_to_b": {"rate": {"rate_mbps": 100}}}])")),
            "$.phases[0].a_to_b.rate");
}

// 10,000 packets through a 50 % loss: which ones are lost, by index.
std::vector<bool> losses(const Profile& p, unsigned lane) {
  DirectionEngine e(p, Direction::kAToB, lane);
  testing::CollectingSink sink;
  std::vector<bool> lost;
  for (int i = 0; i < 10'000; ++i) {
    const std::size_t before = sink.dropped_packets.size();
    e.push(testing::udp_packet(100), kEpoch + std::chrono::microseconds(i), sink);
    lost.push_back(sink.dropped_packets.size() > before);
  }
  return lost;
}

TEST(QueueStreams, QueueZeroKeepsTheDirectionsStreamsAndOtherQueuesDrawTheirOwn) {
  const Profile p = profile(R"("seed": 7, "a_to_b": {"loss": {"p": 0.5}})");
  const std::vector<bool> q0 = losses(p, 0);
  const std::vector<bool> q1 = losses(p, 1);
  const std::vector<bool> q2 = losses(p, 2);
  // Queue 0 is the single-queue engine, packet for packet (the same seed, the same drops).
  DirectionEngine single(p, Direction::kAToB);
  testing::CollectingSink sink;
  for (int i = 0; i < 10'000; ++i) {
    const std::size_t before = sink.dropped_packets.size();
    single.push(testing::udp_packet(100), kEpoch + std::chrono::microseconds(i), sink);
    ASSERT_EQ(sink.dropped_packets.size() > before, q0[static_cast<std::size_t>(i)]) << "packet " << i;
  }
  // Independent streams agree on about half the packets: over 10,000 fair coin pairs the count of
  // agreements is 5,000 +- 50 (one sd), so [4,700, 5,300] is +-6 sd; repeating streams give 10,000.
  const auto agree = [](const std::vector<bool>& a, const std::vector<bool>& b) {
    int n = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      n += a[i] == b[i] ? 1 : 0;
    }
    return n;
  };
  EXPECT_NEAR(agree(q0, q1), 5000, 300);
  EXPECT_NEAR(agree(q1, q2), 5000, 300);
  EXPECT_EQ(losses(p, 1), q1);  // and each is deterministic
}

TEST(QueueCounters, ADirectionIsTheSumOfItsQueues) {
  DirectionStats a;
  a.received = 10;
  a.sent = 7;
  a.dropped[0] = 2;
  a.held = 1;
  a.delay_error.add(300);
  a.classes.push_back({"default", 10, 1000, 7, 700, {}, 0, 0, 1, 0});
  DirectionStats b;
  b.received = 5;
  b.duplicates = 1;
  b.sent = 6;
  b.delay_error.add(300);
  b.delay_error.add(20'000);
  b.classes.push_back({"default", 5, 500, 6, 600, {}, 1, 0, 0, 0});
  b.classes.push_back({"bulk", 1, 100, 1, 100, {}, 0, 0, 0, 0});
  a.add(b);
  EXPECT_EQ(a.received, 15U);
  EXPECT_EQ(a.sent, 13U);
  EXPECT_EQ(a.accounting_error(), "");
  EXPECT_EQ(a.delay_error.samples, 3U);
  EXPECT_EQ(a.delay_error.counts[2], 2U);  // (250, 500]
  ASSERT_EQ(a.classes.size(), 2U);
  EXPECT_EQ(a.classes[0].packets_in, 15U);
  EXPECT_EQ(a.classes[0].marked_ce, 1U);
  EXPECT_EQ(a.classes[1].name, "bulk");

  Exchange ex(2);
  LaneSnapshot s0;
  s0.stats.received = 3;
  s0.profile_generation = 2;
  s0.current_delay_ns = 100;
  LaneSnapshot s1;
  s1.stats.received = 4;
  s1.profile_generation = 1;
  s1.current_delay_ns = 300;
  ex.publish(Direction::kAToB, 0, s0, true);
  ex.publish(Direction::kAToB, 1, s1, true);
  const LaneSnapshot sum = ex.read(Direction::kAToB);
  EXPECT_EQ(sum.stats.received, 7U);
  EXPECT_EQ(sum.profile_generation, 1U);  // the oldest lane's
  EXPECT_EQ(sum.current_delay_ns, 300);
  EXPECT_EQ(ex.read(Direction::kAToB, 1).stats.received, 4U);
  EXPECT_EQ(ex.read(Direction::kBToA).stats.received, 0U);
  ex.acknowledge(Direction::kAToB, 0, 5);
  EXPECT_EQ(ex.applied(Direction::kAToB), 0U);  // queue 1 has not taken it yet
  ex.acknowledge(Direction::kAToB, 1, 5);
  EXPECT_EQ(ex.applied(Direction::kAToB), 5U);
}

}  // namespace
}  // namespace gw
