// Specification of the delay stage (netem `delay`, `distribution`, `reorder`) and of netem's
// correlated uniform generator. Statistical tests use n = 100,000 packets (200,000 draws for
// the generator) and state their tolerance; with a fixed seed they are deterministic, and the
// tolerances are chosen so that a correct implementation would fail for a random seed with
// probability <= 0.001 (KS) or well below that (5-sigma bounds).
#include "emulator/engine/delay_stage.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "emulator/engine/correlated.h"
#include "emulator/engine/distribution.h"

namespace gw {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kUs = 1'000;

// What came out of the stage, in emission order.
struct Released {
  std::uint64_t id;
  Instant arrival;
  Instant time;
};

class Collector final : public StageOutput {
 public:
  void emit(Packet&& p) override { released.push_back({p.id, p.arrival, p.time}); }
  void drop(Packet&& /*p*/, DropCause /*cause*/) override { ++dropped; }
  void marked(const Packet& /*p*/) override { ++marked_count; }

  std::vector<Released> released;
  std::uint64_t dropped = 0;
  std::uint64_t marked_count = 0;
};

// Drives a stage as the pipeline does (stage.h): before each arrival, pull at every wakeup up
// to and including the arrival instant; push; at the end pull until idle. Packet i arrives at
// i * spacing. Checks the contract on the way: nothing dropped or marked, nothing released
// before it arrived, and emission order is time order.
std::vector<Released> run(Stage& stage, std::size_t n, Duration spacing) {
  Collector out;
  for (std::size_t i = 0; i < n; ++i) {
    const Instant now = kEpoch + spacing * static_cast<std::int64_t>(i);
    while (stage.next_wakeup() <= now) {
      stage.pull(stage.next_wakeup(), out);
    }
    Packet p;
    p.id = i;
    p.size_bytes = 1000;
    p.arrival = now;
    p.time = now;
    stage.push(std::move(p), now, out);
  }
  while (stage.next_wakeup() != kNever) {
    stage.pull(stage.next_wakeup(), out);
  }
  EXPECT_EQ(stage.held_packets(), 0U);
  EXPECT_EQ(stage.held_bytes(), 0U);
  EXPECT_EQ(out.dropped, 0U);
  EXPECT_EQ(out.marked_count, 0U);
  EXPECT_EQ(out.released.size(), n);
  for (std::size_t i = 0; i < out.released.size(); ++i) {
    EXPECT_GE(out.released[i].time, out.released[i].arrival);
    if (i > 0) {
      EXPECT_GE(out.released[i].time, out.released[i - 1].time) << "emitted out of time order at " << i;
    }
  }
  return out.released;
}

// Per-packet delay in ns, indexed by packet id.
std::vector<std::int64_t> delays_by_id(const std::vector<Released>& r) {
  std::vector<std::int64_t> d(r.size());
  for (const Released& x : r) {
    d[x.id] = ns_of(x.time - x.arrival);
  }
  return d;
}

std::uint64_t count_reordered(const std::vector<Released>& r) {
  std::uint64_t reordered = 0;
  std::uint64_t max_id = 0;
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (i > 0 && r[i].id < max_id) {
      ++reordered;
    }
    max_id = std::max(max_id, r[i].id);
  }
  return reordered;
}

double mean(const std::vector<double>& x) {
  double s = 0;
  for (const double v : x) {
    s += v;
  }
  return s / static_cast<double>(x.size());
}

double variance(const std::vector<double>& x) {
  const double m = mean(x);
  double s = 0;
  for (const double v : x) {
    s += (v - m) * (v - m);
  }
  return s / static_cast<double>(x.size());
}

double lag1_autocorrelation(const std::vector<double>& x) {
  const double m = mean(x);
  double num = 0;
  double den = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    den += (x[i] - m) * (x[i] - m);
    if (i + 1 < x.size()) {
      num += (x[i] - m) * (x[i + 1] - m);
    }
  }
  return num / den;
}

// Kolmogorov-Smirnov critical value at alpha = 0.001: c(alpha) / sqrt(n) with
// c(alpha) = sqrt(-ln(alpha / 2) / 2) = sqrt(ln(2000) / 2) = 1.9495 (asymptotic form, accurate
// for n in the thousands and beyond). For n = 100,000: 0.006165.
double ks_critical_001(std::size_t n) {
  return std::sqrt(-std::log(0.001 / 2) / 2) / std::sqrt(static_cast<double>(n));
}

DelaySettings jittered(Duration delay, Duration jitter) {
  DelaySettings s;
  s.delay = delay;
  s.jitter = jitter;
  return s;
}

constexpr std::size_t kN = 100'000;

// ---- correlated uniform (sch_netem.c get_crandom) -----------------------------------------

TEST(CorrelatedUniform, ZeroCorrelationPassesTheStreamThrough) {
  Rng a(3, "c");
  Rng b(3, "c");
  CorrelatedUniform g(0.0, a);
  b.next_u32();  // the constructor's init_crandom draw
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(g.next(a), b.next_u32());
  }
}

TEST(CorrelatedUniform, FullCorrelationRepeatsTheFirstValue) {
  Rng r(3, "c");
  CorrelatedUniform g(1.0, r);
  const std::uint32_t first = g.next(r);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(g.next(r), first);
  }
}

// Derivation: X_n = (1 - r) U_n + r X_{n-1} with U_n iid uniform and r = (rho + 1) / 2^32 is an
// AR(1) process. Stationary: Var X = (1-r)^2 Var U + r^2 Var X, so Var X = (1-r)/(1+r) Var U;
// Cov(X_n, X_{n-1}) = r Var X, so the lag-1 autocorrelation is exactly r (the >> 32 truncation
// shifts values by < 1 in 2^32). For an AR(1) the sample lag-1 autocorrelation has sd
// ~ sqrt((1 - r^2) / n) <= 0.0023 at n = 200,000 (Bartlett); tolerance 0.012 is > 5 sd.
// The variance ratio's relative sd is ~ sqrt(2 (1 + r^2) / (1 - r^2) / n) <= 0.01 up to r = 0.9;
// tolerance 5 % relative.
TEST(CorrelatedUniform, Lag1AutocorrelationEqualsRho) {
  constexpr std::size_t n = 200'000;
  for (const double c : {0.0, 0.25, 0.5, 0.75, 0.9}) {
    Rng r(11, "corr");
    CorrelatedUniform g(c, r);
    std::vector<double> x(n);
    for (double& v : x) {
      v = static_cast<double>(g.next(r)) * 0x1.0p-32;
    }
    EXPECT_NEAR(lag1_autocorrelation(x), c, 0.012) << "correlation " << c;
    EXPECT_NEAR(mean(x), 0.5, 0.01) << "correlation " << c;
    const double expected_var = (1 - c) / (1 + c) / 12.0;
    EXPECT_NEAR(variance(x) / expected_var, 1.0, 0.05) << "correlation " << c;
  }
}

// Binomial: sd of the fraction is sqrt(p (1-p) / n) <= 0.0016 at n = 100,000; tolerance 5 sd.
TEST(CorrelatedUniform, ChanceHasProbabilityP) {
  Rng r(5, "chance");
  CorrelatedUniform g(0.0, r);
  for (const double p : {0.01, 0.3, 0.5}) {
    std::size_t hits = 0;
    for (std::size_t i = 0; i < kN; ++i) {
      hits += g.chance(p, r) ? 1 : 0;
    }
    EXPECT_NEAR(static_cast<double>(hits) / kN, p, 0.008) << p;
  }
}

TEST(CorrelatedUniform, ChanceZeroNeverDrawsAndOneAlwaysHits) {
  Rng r(5, "chance");
  Rng copy(5, "chance");
  CorrelatedUniform g(0.5, r);
  CorrelatedUniform h(0.5, copy);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_FALSE(g.chance(0.0, r));
  }
  EXPECT_EQ(g.next(r), h.next(copy)) << "p = 0 must leave the stream untouched";
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(g.chance(1.0, r));
  }
  EXPECT_TRUE(chance(0xFFFFFFFFU, scaled_probability(1.0)));
  EXPECT_FALSE(chance(0, scaled_probability(0.0)));
}

// ---- delay and jitter --------------------------------------------------------------------

TEST(DelayStage, ConstantDelayIsExact) {
  DelayStage stage(jittered(Duration{42'500'123}, Duration{0}), 1, "delay");
  const std::vector<Released> r = run(stage, 10'000, Duration{7 * kUs});
  for (std::size_t i = 0; i < r.size(); ++i) {
    ASSERT_EQ(r[i].id, i);
    ASSERT_EQ(ns_of(r[i].time - r[i].arrival), 42'500'123);
  }
}

TEST(DelayStage, EqualReleaseTimesLeaveInArrivalOrder) {
  DelayStage stage(jittered(Duration{5 * kMs}, Duration{0}), 1, "delay");
  const std::vector<Released> r = run(stage, 1000, Duration{0});
  for (std::size_t i = 0; i < r.size(); ++i) {
    ASSERT_EQ(r[i].id, i);
  }
}

// Uniform jitter J: the sample is an integer uniform on [-J, J-1], mean -0.5 ns, variance
// ((2J)^2 - 1) / 12 ~ J^2 / 3. Mean: sd J / sqrt(3n) = 18.3 us for J = 10 ms, tolerance 92 us
// (5 sd). Variance: relative sd sqrt((mu4 - sigma^4) / n) / sigma^2 = sqrt(0.8 / n) = 0.0028
// (uniform: mu4 = 9/5 sigma^4), tolerance 1.5 % (5 sd).
TEST(DelayStage, UniformJitterHasNetemMoments) {
  const std::int64_t delay = 50 * kMs;
  const std::int64_t jitter = 10 * kMs;
  DelayStage stage(jittered(Duration{delay}, Duration{jitter}), 2, "delay");
  const std::vector<std::int64_t> d = delays_by_id(run(stage, kN, Duration{100 * kUs}));
  std::vector<double> x(d.begin(), d.end());
  EXPECT_NEAR(mean(x), static_cast<double>(delay) - 0.5, 92.0 * kUs);
  const double expected_var = (4.0 * jitter * jitter - 1) / 12.0;
  EXPECT_NEAR(variance(x) / expected_var, 1.0, 0.015);
  EXPECT_GE(*std::min_element(d.begin(), d.end()), delay - jitter);
  EXPECT_LE(*std::max_element(d.begin(), d.end()), delay + jitter - 1);
}

// The expected CDF is netem's exact one: the sample is (u % 2J) - J with u uniform on 2^32,
// so offsets below 2^32 mod 2J are one part in 2^32 / 2J (= 215 for J = 10 ms) more likely than
// the rest. Against the continuous uniform CDF that modulo bias would add up to 0.0009 to D.
// Steps of the 1 ns lattice are 5e-8 and are ignored.
TEST(DelayStage, UniformJitterPassesKsAgainstUniformCdf) {
  const std::int64_t delay = 50 * kMs;
  const std::int64_t jitter = 10 * kMs;
  DelayStage stage(jittered(Duration{delay}, Duration{jitter}), 3, "delay");
  std::vector<std::int64_t> d = delays_by_id(run(stage, kN, Duration{100 * kUs}));
  std::sort(d.begin(), d.end());
  const double two32 = 0x1.0p32;
  const auto span = static_cast<double>(2 * jitter);
  const double q = std::floor(two32 / span);
  const double rem = two32 - q * span;
  const auto cdf = [&](std::int64_t v) {  // P(delay <= v)
    const auto r1 = static_cast<double>(v - (delay - jitter) + 1);
    return std::clamp((q * r1 + std::min(r1, rem)) / two32, 0.0, 1.0);
  };
  double ks = 0;
  const auto n = static_cast<double>(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) {
    const double f = cdf(d[i]);
    ks = std::max(
        {ks, std::abs(f - static_cast<double>(i + 1) / n), std::abs(f - static_cast<double>(i) / n)});
  }
  EXPECT_LT(ks, ks_critical_001(d.size())) << "KS D = " << ks;
}

// With a table, the sample is netem_table_offset(J, table[u % 4096]); 4096 divides 2^32, so
// each entry has probability exactly 1/4096 and the expected CDF is the table's empirical CDF
// mapped through the offset. KS on a discrete distribution is conservative (the true
// alpha is below the nominal 0.001), so the critical value 1.9495 / sqrt(n) still holds.
TEST(DelayStage, NormalTableJitterPassesKsAgainstTableCdf) {
  const std::int64_t delay = 50 * kMs;
  const std::int64_t jitter = 10 * kMs;
  DelaySettings s = jittered(Duration{delay}, Duration{jitter});
  s.distribution = load_distribution("normal");
  DelayStage stage(s, 4, "delay");
  std::vector<std::int64_t> sample = delays_by_id(run(stage, kN, Duration{100 * kUs}));
  for (std::int64_t& v : sample) {
    v -= delay;
  }
  std::vector<std::int64_t> expected;
  for (const std::int16_t t : s.distribution.values) {
    expected.push_back(netem_table_offset(jitter, t));
  }
  std::sort(sample.begin(), sample.end());
  std::sort(expected.begin(), expected.end());
  // Both CDFs are step functions with jumps only at values of the two sets, so the sup of
  // |F_n - F| is reached at one of those values (right limits).
  std::vector<std::int64_t> points = sample;
  points.insert(points.end(), expected.begin(), expected.end());
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  double ks = 0;
  for (const std::int64_t v : points) {
    const auto fn = static_cast<double>(std::upper_bound(sample.begin(), sample.end(), v) - sample.begin()) /
                    static_cast<double>(sample.size());
    const auto f =
        static_cast<double>(std::upper_bound(expected.begin(), expected.end(), v) - expected.begin()) /
        static_cast<double>(expected.size());
    ks = std::max(ks, std::abs(fn - f));
  }
  EXPECT_LT(ks, ks_critical_001(sample.size())) << "KS D = " << ks;
}

// netem maps the correlated draw into the jitter range with `rnd % (2 * jitter)`. For a jitter
// much smaller than 2^32 ns the modulo keeps only the low-order part of the smoothed value, so
// successive delays are nearly uncorrelated even at correlation 0.5: the configured
// correlation has almost no effect in netem, and gradwall reproduces that faithfully.
// Tolerance: sd of a lag-1 autocorrelation of independent values is 1/sqrt(n) = 0.0032; 5 sd.
TEST(DelayStage, JitterCorrelationIsMostlyLostToNetemModulo) {
  DelaySettings s = jittered(Duration{50 * kMs}, Duration{10 * kMs});
  s.correlation = 0.5;
  DelayStage stage(s, 5, "delay");
  const std::vector<std::int64_t> d = delays_by_id(run(stage, kN, Duration{100 * kUs}));
  const std::vector<double> x(d.begin(), d.end());
  EXPECT_NEAR(lag1_autocorrelation(x), 0.0, 0.016);
}

TEST(DelayStage, NegativeTotalDelayClampsToZero) {
  // delay 1 ms, jitter 5 ms: sample <= -1 ms for 4,000,001 of 10,000,000 equally likely values.
  // Binomial sd at n = 100,000 is 0.0015; tolerance 0.008 (5 sd).
  DelayStage stage(jittered(Duration{1 * kMs}, Duration{5 * kMs}), 6, "delay");
  const std::vector<std::int64_t> d = delays_by_id(run(stage, kN, Duration{100 * kUs}));
  const auto zero = static_cast<double>(std::count(d.begin(), d.end(), 0));
  EXPECT_NEAR(zero / kN, 0.4, 0.008);
  EXPECT_GE(*std::min_element(d.begin(), d.end()), 0);
}

// ---- reordering policies ------------------------------------------------------------------

TEST(DelayStage, NetemPolicyReordersUnderJitter) {
  DelaySettings s = jittered(Duration{10 * kMs}, Duration{50 * kMs});
  DelayStage stage(s, 7, "delay");
  EXPECT_GT(count_reordered(run(stage, kN, Duration{10 * kUs})), kN / 2);
}

// Overtaking packets wait in a small ring before they enter the release calendar (its bucket
// prefetched meanwhile). With jitter wider than the delay (many releases clamped to the
// arrival, most packets overtaking) those pending are often the earliest held: next_wakeup()
// and held_packets() must count them at every step, each packet must leave at its release
// time, and equal times in arrival order. The release times come from a first run (run()
// checks time order); a second stage on the same seed draws the same ones.
TEST(DelayStage, PendingOvertakersCountInEveryWakeup) {
  const DelaySettings s = jittered(Duration{20 * kUs}, Duration{50 * kUs});
  const Duration spacing{3 * kUs};
  constexpr std::size_t n = 20'000;
  DelayStage first(s, 4, "delay");
  const std::vector<Released> r = run(first, n, spacing);
  ASSERT_GT(count_reordered(r), n / 4);
  std::vector<Instant> release(n);
  for (std::size_t i = 0; i < r.size(); ++i) {
    release[r[i].id] = r[i].time;
    if (i > 0 && r[i].time == r[i - 1].time) {
      EXPECT_GT(r[i].id, r[i - 1].id) << "equal release times out of arrival order";
    }
  }
  DelayStage stage(s, 4, "delay");
  Collector out;
  std::set<std::pair<Instant, std::uint64_t>> held;  // (release time, id)
  const auto take_released = [&](std::size_t from) {
    for (std::size_t k = from; k < out.released.size(); ++k) {
      const Released& x = out.released[k];
      EXPECT_EQ(x.time, release[x.id]);
      held.erase({release[x.id], x.id});
    }
  };
  for (std::size_t i = 0; i < n; ++i) {
    const Instant now = kEpoch + spacing * static_cast<std::int64_t>(i);
    while (stage.next_wakeup() <= now) {
      const Instant t = stage.next_wakeup();
      ASSERT_FALSE(held.empty());
      ASSERT_EQ(t, held.begin()->first) << "packet " << i;
      const std::size_t before = out.released.size();
      stage.pull(t, out);
      ASSERT_GT(out.released.size(), before);
      take_released(before);
    }
    ASSERT_EQ(stage.next_wakeup(), held.empty() ? kNever : held.begin()->first) << "packet " << i;
    ASSERT_EQ(stage.held_packets(), held.size());
    Packet p;
    p.id = i;
    p.size_bytes = 1000;
    p.arrival = now;
    p.time = now;
    const std::size_t before = out.released.size();
    stage.push(std::move(p), now, out);
    if (out.released.size() == before) {
      held.insert({release[i], i});
    } else {
      take_released(before);  // left at once (zero delay, nothing due before it)
    }
  }
  EXPECT_EQ(out.released.size() + held.size(), n);
}

TEST(DelayStage, PreservePolicyNeverReorders) {
  DelaySettings s = jittered(Duration{10 * kMs}, Duration{50 * kMs});
  s.reorder_policy = ReorderPolicy::kPreserve;
  DelayStage stage(s, 7, "delay");
  const std::vector<Released> r = run(stage, kN, Duration{10 * kUs});
  for (std::size_t i = 0; i < r.size(); ++i) {
    ASSERT_EQ(r[i].id, i);
    if (i > 0) {
      ASSERT_GE(r[i].time, r[i - 1].time);
    }
  }
}

// netem `reorder 100% gap 5`: counter counts delayed packets since the last reordered one; the
// packet that finds counter == gap - 1 is a candidate, and p = 1 sends it at once.
TEST(DelayStage, ReorderGapFiveSendsEveryFifthPacketAtOnce) {
  DelaySettings s = jittered(Duration{10 * kMs}, Duration{0});
  s.reorder_p = 1.0;
  s.reorder_gap = 5;
  DelayStage stage(s, 8, "delay");
  const std::vector<std::int64_t> d = delays_by_id(run(stage, 1000, Duration{100 * kUs}));
  for (std::size_t i = 0; i < d.size(); ++i) {
    ASSERT_EQ(d[i], (i + 1) % 5 == 0 ? 0 : 10 * kMs) << "packet " << i;
  }
}

// tc sets gap 1 when `reorder P` is given alone: every packet is a candidate with probability
// P. Binomial sd 0.0016 at n = 100,000; tolerance 0.008 (5 sd).
TEST(DelayStage, ReorderWithoutGapMakesEveryPacketACandidate) {
  DelaySettings s = jittered(Duration{10 * kMs}, Duration{0});
  s.reorder_p = 0.25;
  DelayStage stage(s, 9, "delay");
  const std::vector<std::int64_t> d = delays_by_id(run(stage, kN, Duration{100 * kUs}));
  const auto immediate = static_cast<double>(std::count(d.begin(), d.end(), 0));
  EXPECT_NEAR(immediate / kN, 0.25, 0.008);
}

TEST(DelayStage, ExplicitReorderIsNotAppliedUnderPreserve) {
  DelaySettings s = jittered(Duration{10 * kMs}, Duration{0});
  s.reorder_p = 1.0;
  s.reorder_gap = 5;
  s.reorder_policy = ReorderPolicy::kPreserve;
  DelayStage stage(s, 8, "delay");
  for (const std::int64_t d : delays_by_id(run(stage, 1000, Duration{100 * kUs}))) {
    ASSERT_EQ(d, 10 * kMs);
  }
}

// ---- determinism and reconfiguration ------------------------------------------------------

TEST(DelayStage, SameSeedGivesIdenticalReleaseTimes) {
  DelaySettings s = jittered(Duration{20 * kMs}, Duration{5 * kMs});
  s.correlation = 0.3;
  s.reorder_p = 0.1;
  s.reorder_gap = 3;
  s.distribution = load_distribution("paretonormal");
  auto times = [&](std::uint64_t seed) {
    DelayStage stage(s, seed, "a_to_b/delay");
    std::vector<std::int64_t> t;
    for (const Released& r : run(stage, 20'000, Duration{50 * kUs})) {
      t.push_back(ns_of(r.time));
    }
    return t;
  };
  EXPECT_EQ(times(42), times(42));
  EXPECT_NE(times(42), times(43));
}

TEST(DelayStage, SetSettingsKeepsHeldPackets) {
  DelayStage stage(jittered(Duration{100 * kMs}, Duration{0}), 1, "delay");
  Collector out;
  for (std::uint64_t i = 0; i < 10; ++i) {
    Packet p;
    p.id = i;
    p.size_bytes = 100;
    p.arrival = p.time = at_ns(static_cast<std::int64_t>(i) * kUs);
    stage.push(std::move(p), at_ns(static_cast<std::int64_t>(i) * kUs), out);
  }
  stage.set_settings(jittered(Duration{1 * kMs}, Duration{0}));
  EXPECT_EQ(stage.held_packets(), 10U);
  EXPECT_EQ(stage.held_bytes(), 1000U);
  Packet late;
  late.id = 10;
  late.arrival = late.time = at_ns(10 * kUs);
  stage.push(std::move(late), at_ns(10 * kUs), out);
  while (stage.next_wakeup() != kNever) {
    stage.pull(stage.next_wakeup(), out);
  }
  ASSERT_EQ(out.released.size(), 11U);
  EXPECT_EQ(out.released[0].id, 10U);  // new delay applies to new packets only
  EXPECT_EQ(ns_of(out.released[0].time), 10 * kUs + 1 * kMs);
  for (std::size_t i = 1; i < 11; ++i) {
    EXPECT_EQ(out.released[i].id, i - 1);
    EXPECT_EQ(ns_of(out.released[i].time), static_cast<std::int64_t>(i - 1) * kUs + 100 * kMs);
  }
}

TEST(DelayStage, JitterSampleMatchesTabledist) {
  const std::vector<std::int16_t> none;
  EXPECT_EQ(netem_jitter_sample(123, Duration{0}, none), 0);
  EXPECT_EQ(netem_jitter_sample(0, Duration{10}, none), -10);
  EXPECT_EQ(netem_jitter_sample(19, Duration{10}, none), 9);
  EXPECT_EQ(netem_jitter_sample(20, Duration{10}, none), -10);
  const std::vector<std::int16_t> table{-8192, 0, 8192, 16384};
  EXPECT_EQ(netem_jitter_sample(0, Duration{1000}, table), -1000);
  EXPECT_EQ(netem_jitter_sample(6, Duration{1000}, table), 1000);
  EXPECT_EQ(netem_jitter_sample(7, Duration{1000}, table), 2000);
  // Beyond the kernel's u32 range: multiply-shift covers [-J, J).
  const Duration big{std::int64_t{3} << 31};
  EXPECT_EQ(netem_jitter_sample(0, big, none), -big.count());
  EXPECT_LT(netem_jitter_sample(0xFFFFFFFFU, big, none), big.count());
  EXPECT_GT(netem_jitter_sample(0xFFFFFFFFU, big, none), big.count() - (std::int64_t{1} << 3));
}

}  // namespace
}  // namespace gw
