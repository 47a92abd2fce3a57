// Instantaneous-threshold ECN marking, plus the two trivial pieces around the AQMs: drop-tail
// and the factory.
#include "emulator/engine/aqm/threshold.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "emulator/engine/aqm/droptail.h"
#include "emulator/engine/aqm/make_aqm.h"

namespace gw {
namespace {

Packet packet(Ecn ecn) {
  Packet p;
  p.size_bytes = 1500;
  p.headers.ecn = ecn;
  return p;
}

QueueView queue(std::uint64_t bytes) {
  QueueView q;
  q.bytes[0] = bytes;
  q.packets[0] = (bytes + 1499) / 1500;
  return q;
}

// Kmin 100 kB, Kmax 500 kB, Pmax 0.2 (a DCQCN-style setting).
ThresholdSettings dcqcn() {
  ThresholdSettings s;
  s.kmin_bytes = 100'000;
  s.kmax_bytes = 500'000;
  s.pmax = 0.2;
  return s;
}

double mark_fraction(ThresholdAqm& aqm, std::uint64_t queue_bytes, int n) {
  int marks = 0;
  for (int i = 0; i < n; ++i) {
    marks += aqm.on_enqueue(packet(Ecn::kEct1), queue(queue_bytes), at_ns(i)) == AqmVerdict::kMark ? 1 : 0;
  }
  return static_cast<double>(marks) / n;
}

TEST(Threshold, PassesBelowKminAndMarksEverythingAboveKmax) {
  ThresholdAqm aqm(dcqcn(), Rng(1, "threshold"));
  EXPECT_EQ(mark_fraction(aqm, 99'999, 10'000), 0.0);
  EXPECT_EQ(mark_fraction(aqm, 100'000, 10'000), 0.0);  // p = 0 at Kmin
  EXPECT_EQ(mark_fraction(aqm, 500'001, 10'000), 1.0);
}

TEST(Threshold, ProbabilityRampsLinearlyToPmaxAtKmax) {
  const ThresholdAqm aqm(dcqcn(), Rng(1, "threshold"));
  EXPECT_DOUBLE_EQ(aqm.mark_probability(200'000), 0.05);
  EXPECT_DOUBLE_EQ(aqm.mark_probability(300'000), 0.10);
  EXPECT_DOUBLE_EQ(aqm.mark_probability(400'000), 0.15);
  EXPECT_DOUBLE_EQ(aqm.mark_probability(500'000), 0.20);
}

// Measured marking rate at 1/4, 1/2, 3/4 and all of the ramp: n = 100,000 arrivals each, so
// the fraction has sd sqrt(p (1 - p) / n) <= 0.0013 and 5 sd <= 0.0064. That separates points
// of the ramp 0.05 apart by more than 7 tolerances, and a fixed seed makes it reproducible.
TEST(Threshold, MeasuredMarkingRateFollowsTheRamp) {
  ThresholdAqm aqm(dcqcn(), Rng(2, "threshold"));
  const int n = 100'000;
  const std::pair<std::uint64_t, double> ramp[] = {
      {200'000, 0.05}, {300'000, 0.10}, {400'000, 0.15}, {500'000, 0.20}};
  for (const auto& [q, p] : ramp) {
    EXPECT_NEAR(mark_fraction(aqm, q, n), p, 5 * std::sqrt(p * (1 - p) / n)) << "queue " << q;
  }
}

TEST(Threshold, NeverTouchesNotEctPackets) {
  ThresholdAqm aqm(dcqcn(), Rng(3, "threshold"));
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(aqm.on_enqueue(packet(Ecn::kNotEct), queue(1'000'000), at_ns(i)), AqmVerdict::kPass);
  }
}

// DCTCP's single K: kmin = kmax = K, pmax = 1: mark from K on.
TEST(Threshold, SingleThresholdMarksFromK) {
  ThresholdSettings s;
  s.kmin_bytes = s.kmax_bytes = 30'000;
  s.pmax = 1.0;
  ThresholdAqm aqm(s, Rng(4, "threshold"));
  EXPECT_EQ(mark_fraction(aqm, 29'999, 1000), 0.0);
  EXPECT_EQ(mark_fraction(aqm, 30'000, 1000), 1.0);
}

TEST(DropTail, AlwaysPasses) {
  DropTailAqm aqm;
  EXPECT_EQ(aqm.on_enqueue(packet(Ecn::kNotEct), queue(1'000'000'000), at_ns(0)), AqmVerdict::kPass);
  EXPECT_EQ(aqm.on_dequeue(packet(Ecn::kEct0), Duration{1'000'000'000}, queue(1'000'000'000), at_ns(0)),
            AqmVerdict::kPass);
  EXPECT_EQ(aqm.next_timer(), kNever);
  EXPECT_EQ(aqm.queues(), 1);
}

TEST(MakeAqm, BuildsEveryKind) {
  AqmSettings s;
  const std::pair<AqmKind, const char*> kinds[] = {
      {AqmKind::kDropTail, "droptail"}, {AqmKind::kRed, "red"},         {AqmKind::kCodel, "codel"},
      {AqmKind::kPie, "pie"},           {AqmKind::kDualPi2, "dualpi2"}, {AqmKind::kThreshold, "threshold"},
  };
  for (const auto& [kind, name] : kinds) {
    s.kind = kind;
    EXPECT_EQ(make_aqm(s, 1, "q")->name(), name);
  }
}

// The AQM's draws come from Rng(seed, stream + "/aqm"): same seed and stream, same verdicts;
// another stream, other verdicts.
TEST(MakeAqm, RandomnessComesFromTheSeededStream) {
  AqmSettings s;
  s.kind = AqmKind::kThreshold;
  s.threshold = dcqcn();
  const auto verdicts = [&](const std::string& stream) {
    const auto aqm = make_aqm(s, 9, stream);
    std::string out;
    for (int i = 0; i < 200; ++i) {
      out += aqm->on_enqueue(packet(Ecn::kEct0), queue(300'000), at_ns(i)) == AqmVerdict::kMark ? 'm' : '.';
    }
    return out;
  };
  EXPECT_EQ(verdicts("a_to_b/queue"), verdicts("a_to_b/queue"));
  EXPECT_NE(verdicts("a_to_b/queue"), verdicts("b_to_a/queue"));

  Rng own(9, "a_to_b/queue/aqm");
  std::string expected;
  for (int i = 0; i < 200; ++i) {
    expected += own.uniform() < 0.1 ? 'm' : '.';
  }
  EXPECT_EQ(verdicts("a_to_b/queue"), expected);
}

}  // namespace
}  // namespace gw
