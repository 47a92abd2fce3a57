// DirectionEngine::peek_next / Pipeline::peek_next / DelayStage::peek_next: the packet the
// next release delivers, seen before it is due (the DPDK forwarder prefetches its buffer).
#include <gtest/gtest.h>

#include <set>

#include "emulator/engine/engine.h"
#include "emulator/engine/profile.h"
#include "tests/unit/engine/sink_for_tests.h"

namespace gw {
namespace {

using testing::CollectingSink;
using testing::udp_packet;

Profile profile_of(const char* json) {
  return parse_profile(nlohmann::json::parse(json), "peek.json");
}

struct PeekRun {
  std::uint64_t pushed = 0;
  std::uint64_t peeks_checked = 0;  // releases whose first delivery was compared with a peek
  std::set<std::uint64_t> checked_handles;
};

// Peeks, advances to exactly the peeked instant and checks that the first packet delivered
// is the peeked one (same handle, released at the peeked instant). `exact_wakeup`: the
// engine has no event but releases (no rate queue), so its next wakeup is the peeked instant.
void release_peeked(DirectionEngine& e, CollectingSink& sink, bool exact_wakeup, PeekRun& run) {
  const NextRelease n = e.peek_next();
  ASSERT_NE(n.packet, nullptr);
  const std::uint64_t handle = n.packet->handle;
  if (exact_wakeup) {
    ASSERT_EQ(e.next_wakeup(), n.at);
  }
  const std::size_t before = sink.delivered.size();
  e.advance(n.at, sink);
  ASSERT_GT(sink.delivered.size(), before) << "nothing released at the peeked instant";
  EXPECT_EQ(sink.delivered[before].handle, handle);
  EXPECT_EQ(sink.delivered[before].time, n.at);
  ++run.peeks_checked;
  run.checked_handles.insert(handle);
}

// Pushes n packets `spacing_ns` apart (every `class_every`-th one a RoCE CNP, for profiles
// with a class on it); before each push, releases through peeks everything due by then; then
// drains through peeks alone. Handles are 1..n.
PeekRun run_with_peeks(DirectionEngine& e, CollectingSink& sink, std::uint64_t n, std::int64_t spacing_ns,
                       bool exact_wakeup, std::uint64_t class_every = 0) {
  PeekRun run;
  for (std::uint64_t i = 0; i < n; ++i) {
    const Instant t = kEpoch + Duration{static_cast<std::int64_t>(i) * spacing_ns};
    while (e.peek_next().packet != nullptr && e.peek_next().at <= t) {
      release_peeked(e, sink, exact_wakeup, run);
      if (::testing::Test::HasFatalFailure()) {
        return run;
      }
    }
    Packet p = udp_packet(1000);
    p.handle = i + 1;
    if (class_every > 0 && i % class_every == 0) {
      p.headers.roce = true;
      p.headers.roce_opcode = 0x81;
    }
    e.push(std::move(p), t, sink);
    ++run.pushed;
  }
  while (e.peek_next().packet != nullptr) {
    release_peeked(e, sink, exact_wakeup, run);
    if (::testing::Test::HasFatalFailure()) {
      return run;
    }
  }
  return run;
}

// Jitter (1 ms, normal) far above the spacing (1 us): most packets overtake the in-order run
// and go through the calendar, the rest through the FIFO; netem reordering on top emits some
// at once. Every release the engine makes is the one peeked before it.
TEST(PeekNext, DelayStageFifoAndCalendar) {
  const Profile p = profile_of(R"({"gradwall": "profile/v1", "seed": 7,
      "a_to_b": {"delay": {"delay_ms": 2, "jitter_ms": 1, "distribution": "normal"},
                 "reorder": {"p": 0.02, "gap": 5}}})");
  DirectionEngine e(p, Direction::kAToB);
  CollectingSink sink;
  const PeekRun run = run_with_peeks(e, sink, 20'000, 1'000, true);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(e.held_packets(), 0U);
  EXPECT_EQ(sink.delivered.size(), run.pushed);
  // Both of the delay stage's structures took part: packets were reordered (calendar) and
  // most releases happened one instant at a time (ns-resolution jitter leaves few ties).
  EXPECT_GT(e.totals().reordered, 1000U);
  EXPECT_GT(run.peeks_checked, run.pushed * 9 / 10);
}

// Under the kPreserve policy only the FIFO is used.
TEST(PeekNext, PreservePolicyFifoOnly) {
  const Profile p = profile_of(R"({"gradwall": "profile/v1", "seed": 7,
      "a_to_b": {"delay": {"delay_ms": 2, "jitter_ms": 1, "reorder_policy": "preserve"}}})");
  DirectionEngine e(p, Direction::kAToB);
  CollectingSink sink;
  const PeekRun run = run_with_peeks(e, sink, 5'000, 1'000, true);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(sink.delivered.size(), run.pushed);
  EXPECT_EQ(e.totals().reordered, 0U);
  EXPECT_GT(run.peeks_checked, 0U);
}

// Two pipelines (default and a class): the peek is the earlier of their next releases.
TEST(PeekNext, ClassesTakeTheEarliestPipeline) {
  const Profile p = profile_of(R"({"gradwall": "profile/v1", "seed": 3,
      "a_to_b": {"delay": {"delay_ms": 3, "jitter_ms": 1, "distribution": "normal"}},
      "classes": [{"name": "cnp", "match": {"roce": true},
                   "a_to_b": {"delay": {"delay_ms": 2, "jitter_ms": 2}}}]})");
  DirectionEngine e(p, Direction::kAToB);
  CollectingSink sink;
  const PeekRun run = run_with_peeks(e, sink, 10'000, 1'000, true, 3);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(sink.delivered.size(), run.pushed);
  std::uint64_t class_checked = 0;
  for (const std::uint64_t h : run.checked_handles) {
    class_checked += (h - 1) % 3 == 0 ? 1 : 0;
  }
  // Both pipelines' packets were peeked (a third of the packets are CNPs).
  EXPECT_GT(class_checked, run.peeks_checked / 5);
  EXPECT_LT(class_checked, run.peeks_checked / 2);
}

// The bench's WAN shape without AQM: loss, a scheduling 1 Gbit/s bottleneck (1000-byte frames
// every 1 us offered at 8 Gbit/s: overload, tail drops) and jittered delay. The queue passes
// packets straight to the delay stage, so the peek stays exact (the queue's own wakeups are
// no releases: only the first delivery is compared).
TEST(PeekNext, ScheduledBottleneckBeforeDelay) {
  const Profile p = profile_of(R"({"gradwall": "profile/v1", "seed": 5,
      "a_to_b": {"loss": {"model": "gemodel", "p": 0.001, "r": 0.5, "loss_in_bad": 0.5},
                 "rate": {"rate_gbps": 1}, "queue": {"limit_bytes": 1000000},
                 "delay": {"delay_ms": 5, "jitter_ms": 1, "distribution": "normal"}}})");
  DirectionEngine e(p, Direction::kAToB);
  CollectingSink sink;
  const PeekRun run = run_with_peeks(e, sink, 20'000, 1'000, false);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(e.held_packets(), 0U);
  EXPECT_EQ(sink.delivered.size() + sink.dropped_packets.size(), run.pushed);
  EXPECT_GT(sink.drops[DropCause::kQueueBytes], 0U);
  EXPECT_GT(run.peeks_checked, sink.delivered.size() * 9 / 10);
}

// Nothing to tell: an empty engine, and a delay stage that is not the last one (slots follow
// it, so what it releases does not leave yet).
TEST(PeekNext, EmptyOrDelayNotLast) {
  const Profile empty = profile_of(R"({"gradwall": "profile/v1", "a_to_b": {"delay": {"delay_ms": 1}}})");
  DirectionEngine e0(empty, Direction::kAToB);
  EXPECT_EQ(e0.peek_next().packet, nullptr);
  EXPECT_EQ(e0.peek_next().at, kNever);

  const Profile slot = profile_of(R"({"gradwall": "profile/v1",
      "a_to_b": {"delay": {"delay_ms": 1}, "slot": {"min_delay_us": 100, "max_delay_us": 300}}})");
  DirectionEngine e1(slot, Direction::kAToB);
  CollectingSink sink;
  e1.push(udp_packet(100), kEpoch, sink);
  ASSERT_EQ(e1.held_packets(), 1U);
  EXPECT_EQ(e1.peek_next().packet, nullptr);
}

// rehandle_next: the packet peek_next() shows leaves with the handle given to it, at its time,
// whether it waits in the FIFO or in the calendar; nothing else changes (the other packets and
// all release times are those of a run without it).
TEST(PeekNext, RehandleNextChangesOnlyThatPacketsHandle) {
  const Profile p = profile_of(R"({"gradwall": "profile/v1", "seed": 7,
      "a_to_b": {"delay": {"delay_ms": 2, "jitter_ms": 1, "distribution": "normal"},
                 "reorder": {"p": 0.02, "gap": 5}}})");
  DirectionEngine plain(p, Direction::kAToB);
  DirectionEngine moved(p, Direction::kAToB);
  CollectingSink plain_out;
  CollectingSink moved_out;
  constexpr std::uint64_t kMoved = 1'000'000;
  std::uint64_t rehandled = 0;
  for (std::uint64_t i = 0; i < 5'000; ++i) {
    const Instant t = kEpoch + Duration{static_cast<std::int64_t>(i) * 1'000};
    for (DirectionEngine* e : {&plain, &moved}) {
      Packet q = udp_packet(1000);
      q.handle = i + 1;
      e->push(std::move(q), t, e == &plain ? plain_out : moved_out);
    }
    if (const NextRelease n = moved.peek_next(); n.packet != nullptr && n.packet->handle < kMoved) {
      moved.rehandle_next(kMoved + n.packet->handle);
      ++rehandled;
    }
  }
  plain.drain(plain_out, kEpoch + Duration{5'000'000});
  moved.drain(moved_out, kEpoch + Duration{5'000'000});
  ASSERT_EQ(plain_out.delivered.size(), moved_out.delivered.size());
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < plain_out.delivered.size(); ++i) {
    const Packet& a = plain_out.delivered[i];
    const Packet& b = moved_out.delivered[i];
    EXPECT_EQ(a.time, b.time) << i;
    if (b.handle > kMoved) {
      EXPECT_EQ(b.handle - kMoved, a.handle) << i;
      ++seen;
    } else {
      EXPECT_EQ(b.handle, a.handle) << i;
    }
  }
  EXPECT_GT(rehandled, 500U);
  EXPECT_EQ(seen, rehandled);
}

}  // namespace
}  // namespace gw
