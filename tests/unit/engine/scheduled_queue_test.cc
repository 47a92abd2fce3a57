// Scheduling at admission (queue_stage.h): a FIFO bottleneck in front of the delay stage
// computes each departure when the packet arrives instead of at an event. The result must be
// exactly what event-driven service gives; a horizon of kEpoch forces event-driven service
// (no departure is before it), which is the reference here.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/rng.h"
#include "emulator/engine/engine.h"
#include "emulator/engine/pipeline.h"
#include "emulator/engine/profile.h"
#include "tests/unit/engine/sink_for_tests.h"

namespace gw {
namespace {

using testing::CollectingSink;
using testing::udp_packet;

DirectionSpec direction(const std::string& json) {
  const Profile p =
      parse_profile(nlohmann::json::parse(R"({"gradwall": "profile/v1", "a_to_b": )" + json + "}"), "t.json");
  return p.a_to_b;
}

struct Trace {
  std::vector<std::tuple<std::uint64_t, std::int64_t, bool>> delivered;  // id, time, CE
  std::vector<std::uint64_t> dropped;
  std::map<DropCause, std::uint64_t> drops;
  std::vector<std::uint64_t> queue_bytes;  // after each push
  std::uint64_t max_queue_bytes = 0;
};

// Bursty traffic (back-to-back runs, gaps, idle periods) of mixed sizes and ECN.
Trace run(const DirectionSpec& d, bool events_only, bool advance_often) {
  Pipeline pl(d, 7, "t");
  if (events_only) {
    pl.set_horizon(kEpoch);
  }
  CollectingSink sink;
  Rng rng(1, "traffic");
  Trace t;
  Instant now = kEpoch;
  for (int i = 0; i < 6000; ++i) {
    const std::uint64_t r = rng.below(100);
    now += Duration{r < 30 ? 0 : (r < 80 ? 40'000 : (r < 95 ? 150'000 : 2'000'000))};
    if (advance_often) {
      pl.advance(now - Duration{static_cast<std::int64_t>(rng.below(50'000))}, sink);
    }
    pl.push(udp_packet(64 + static_cast<std::uint32_t>(rng.below(1437)), i % 3 ? Ecn::kEct0 : Ecn::kNotEct),
            now, sink);
    t.queue_bytes.push_back(pl.queue_bytes());
  }
  pl.drain(sink, now);
  for (const Packet& p : sink.delivered) {
    t.delivered.emplace_back(p.id, ns_of(p.time), p.ce_marked);
  }
  for (const Packet& p : sink.dropped_packets) {
    t.dropped.push_back(p.id);
  }
  t.drops = sink.drops;
  t.max_queue_bytes = pl.queue()->stats().max_queue_bytes;
  return t;
}

void expect_same(const Trace& a, const Trace& b) {
  EXPECT_EQ(a.delivered, b.delivered);
  EXPECT_EQ(a.dropped, b.dropped);
  EXPECT_EQ(a.drops, b.drops);
  EXPECT_EQ(a.queue_bytes, b.queue_bytes);
  EXPECT_EQ(a.max_queue_bytes, b.max_queue_bytes);
}

TEST(ScheduledQueue, GivesExactlyWhatEventDrivenServiceGives) {
  const std::vector<std::string> directions = {
      // RED with ECN, jitter that reorders (netem policy) and netem's reorder.
      R"({"delay": {"delay_ms": 2, "jitter_ms": 1, "distribution": "normal"}, "reorder": {"p": 0.1, "gap": 3},
          "rate": {"rate_mbps": 100},
          "queue": {"limit_bytes": 200000, "aqm": {"kind": "red", "min_bytes": 20000, "max_bytes": 60000, "ecn": true}}})",
      // RED dropping, jitter that never reorders.
      R"({"delay": {"delay_ms": 2, "jitter_us": 300, "reorder_policy": "preserve"}, "rate": {"rate_mbps": 80},
          "queue": {"limit_packets": 60, "aqm": {"kind": "red", "min_bytes": 15000}}})",
      // Threshold marking, cells and overhead, loss and duplicates upstream.
      R"({"loss": {"p": 0.01}, "duplicate": {"p": 0.05}, "delay": {"delay_us": 100},
          "rate": {"rate_mbps": 60, "packet_overhead_bytes": 24, "cell_bytes": 48, "cell_overhead_bytes": 5},
          "queue": {"aqm": {"kind": "threshold", "kmin_bytes": 10000, "kmax_bytes": 50000, "pmax": 0.5}}})",
      // Droptail with limits and stages after the delay.
      R"({"delay": {"delay_ms": 1, "jitter_us": 500}, "rate": {"rate_mbps": 120}, "queue": {"limit_bytes": 100000},
          "slot": {"min_delay_us": 100, "max_delay_us": 300, "max_packets": 8}})",
      // Gilbert-Elliott loss marking ECT packets instead of dropping them, in front of the queue
      // (the pipeline's direct path: loss -> scheduling queue -> delay, delay last).
      R"({"loss": {"model": "gemodel", "p": 0.02, "r": 0.3, "loss_in_bad": 0.5, "ecn": true},
          "delay": {"delay_ms": 2, "jitter_us": 400, "distribution": "pareto"},
          "rate": {"rate_mbps": 90},
          "queue": {"limit_bytes": 150000, "aqm": {"kind": "red", "min_bytes": 20000, "max_bytes": 60000, "ecn": true}}})",
      // No rate: the queue only applies limits and the AQM, and passes packets on at once.
      R"({"delay": {"delay_ms": 1}, "queue": {"limit_packets": 5, "aqm": {"kind": "red", "min_bytes": 3000, "ecn": true}}})",
  };
  for (const std::string& json : directions) {
    SCOPED_TRACE(json);
    const DirectionSpec d = direction(json);
    for (const bool often : {false, true}) {
      const Trace events = run(d, true, often);
      const Trace scheduled = run(d, false, often);
      expect_same(events, scheduled);
      EXPECT_GT(scheduled.delivered.size(), 1000U);
    }
  }
}

// Owners may read queue_bytes() between calls, at the pipeline's wakeups: scheduled departures
// are still wakeups, and the queue shrinks at them as it did with events.
TEST(ScheduledQueue, DeparturesRemainWakeupsForOwners) {
  Pipeline pl(direction(R"({"delay": {"delay_ms": 1}, "rate": {"rate_gbps": 1}})"), 1, "t");
  CollectingSink sink;
  for (int i = 0; i < 3; ++i) {
    pl.push(udp_packet(1500), kEpoch, sink);  // 12 us each at 1 Gbit/s
  }
  EXPECT_EQ(pl.queue_bytes(), 3000U);  // the first is on the wire
  EXPECT_EQ(ns_of(pl.next_wakeup()), 12'000);
  pl.advance(kEpoch + Duration{12'000}, sink);
  EXPECT_EQ(pl.queue_bytes(), 1500U);
  EXPECT_EQ(ns_of(pl.next_wakeup()), 24'000);
  pl.drain(sink, kEpoch + Duration{12'000});
  ASSERT_EQ(sink.delivered.size(), 3U);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(ns_of(sink.delivered[i].time), 1'000'000 + 12'000 * (i + 1));
  }
}

// A phase changes rate and delay while the bottleneck is backlogged: what leaves before the
// phase keeps the old delay, what starts after it uses the new rate, exactly as with events
// (the pipeline driven by hand, event-driven, with the phase applied as DirectionEngine does).
TEST(ScheduledQueue, PhasesApplyAtTheirTimeWhileTheQueueIsBacklogged) {
  const Profile profile = parse_profile(nlohmann::json::parse(R"({"gradwall": "profile/v1", "seed": 3,
      "a_to_b": {"delay": {"delay_ms": 3, "jitter_ms": 1}, "rate": {"rate_mbps": 100},
                 "queue": {"aqm": {"kind": "red", "min_bytes": 30000, "ecn": true}}},
      "phases": [{"at_ms": 20, "a_to_b": {"delay": {"delay_ms": 8}, "rate": {"rate_mbps": 30}}},
                 {"at_ms": 45, "a_to_b": {"queue": {"aqm": {"kind": "codel", "min_bytes": null}}}},
                 {"at_ms": 70, "a_to_b": {"queue": {"aqm": {"kind": "droptail", "ecn": null}}, "rate": {"rate_mbps": 200}}}]})"),
                                        "p.json");
  const auto traffic = [](auto&& push) {
    Instant now = kEpoch;
    for (int i = 0; i < 3000; ++i) {
      now += Duration{i % 40 < 30 ? 50'000 : 400'000};  // bursts over the rate, then pauses
      push(udp_packet(1200, i % 2 ? Ecn::kEct0 : Ecn::kNotEct), now);
    }
    return now;
  };
  std::vector<std::pair<std::uint64_t, std::int64_t>> want;
  std::vector<std::pair<std::uint64_t, std::int64_t>> got;
  {
    Pipeline pl(profile.a_to_b, profile.seed, "a_to_b");
    pl.set_horizon(kEpoch);
    CollectingSink sink;
    std::size_t next = 0;
    const Instant end = traffic([&](Packet&& p, Instant now) {
      while (next < profile.phases.size() && kEpoch + profile.phases[next].at <= now) {
        pl.advance(kEpoch + profile.phases[next].at - Duration{1}, sink);
        pl.reconfigure(profile.phases[next].a_to_b);
        ++next;
      }
      pl.push(std::move(p), now, sink);
    });
    pl.drain(sink, end);
    for (const Packet& p : sink.delivered) {
      want.emplace_back(p.id, ns_of(p.time));
    }
  }
  {
    DirectionEngine e(profile, Direction::kAToB);
    CollectingSink sink;
    const Instant end = traffic([&](Packet&& p, Instant now) { e.push(std::move(p), now, sink); });
    e.drain(sink, end);
    EXPECT_EQ(e.phase(), 2);
    for (const Packet& p : sink.delivered) {
      got.emplace_back(p.id, ns_of(p.time));
    }
  }
  EXPECT_GT(want.size(), 2000U);
  EXPECT_EQ(want, got);
}

}  // namespace
}  // namespace gw
