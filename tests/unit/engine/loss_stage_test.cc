#include "emulator/engine/loss_stage.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "tests/unit/engine/sink_for_tests.h"

namespace gw {
namespace {

// Binomial bound: |k/n - p| <= 5 sqrt(p(1-p)/n) fails by chance with probability < 1e-6.
void expect_rate(double observed, double p, double n) {
  EXPECT_NEAR(observed, p, 5 * std::sqrt(p * (1 - p) / n)) << "p=" << p << " n=" << n;
}

TEST(RandomLoss, RateIsInsideBinomialBound) {
  for (const double p : {0.0001, 0.01, 0.2}) {
    LossSettings s;
    s.p = p;
    LossStage loss(s, 7, "t");
    const int n = 1'000'000;
    int lost = 0;
    for (int i = 0; i < n; ++i) {
      lost += loss.lose_next() ? 1 : 0;
    }
    expect_rate(static_cast<double>(lost) / n, p, n);
  }
}

TEST(RandomLoss, ZeroNeverAndOneAlways) {
  LossSettings s;
  s.p = 0;
  LossStage never(s, 1, "t");
  s.p = 1;
  LossStage always(s, 1, "t");
  for (int i = 0; i < 10000; ++i) {
    ASSERT_FALSE(never.lose_next());
    ASSERT_TRUE(always.lose_next());
  }
}

// Correlation keeps the mean of netem's smoothed uniform at 2^31 but makes losses cluster:
// consecutive-loss pairs become more frequent than p^2.
TEST(RandomLoss, CorrelationClustersLosses) {
  LossSettings s;
  s.p = 0.3;
  s.correlation = 0.9;
  LossStage loss(s, 3, "t");
  const int n = 200000;
  int lost = 0;
  int pairs = 0;
  bool prev = false;
  for (int i = 0; i < n; ++i) {
    const bool l = loss.lose_next();
    lost += l ? 1 : 0;
    pairs += (l && prev) ? 1 : 0;
    prev = l;
  }
  const double rate = static_cast<double>(lost) / n;
  EXPECT_GT(static_cast<double>(pairs) / n, 1.5 * rate * rate);
}

// Gilbert-Elliott with 1-h = 1 and 1-k = 0: a packet is lost exactly when it arrives in the
// bad state, so loss runs are the bad sojourns: geometric with mean 1/r, and the loss rate is
// the stationary P(bad) = p / (p + r) (docs/references.md section 1).
TEST(GilbertElliottLoss, MeanBurstLengthIsOneOverRAndPBadIsPOverPPlusR) {
  LossSettings s;
  s.model = LossModel::kGemodel;
  s.ge_p = 0.01;
  s.ge_r = 0.25;
  s.ge_1_h = 1;
  s.ge_1_k = 0;
  LossStage loss(s, 11, "t");
  const int n = 2'000'000;
  int lost = 0;
  int bursts = 0;
  bool prev = false;
  for (int i = 0; i < n; ++i) {
    const bool l = loss.lose_next();
    lost += l ? 1 : 0;
    bursts += (l && !prev) ? 1 : 0;
    prev = l;
  }
  // ~n p r/(p+r) = 19,230 bursts; the mean of a geometric(r) has sd sqrt(1-r)/r/sqrt(bursts)
  // = 0.025, so 5 sd = 0.125 around 1/r = 4.
  const double mean_burst = static_cast<double>(lost) / bursts;
  EXPECT_NEAR(mean_burst, 1 / s.ge_r, 0.125);
  // P(bad): the bad/good alternation has about 2 * bursts independent cycles; the loss
  // fraction's relative sd is about sqrt(2/bursts) ~ 1 %, so 5 % relative is > 4 sd.
  const double p_bad = s.ge_p / (s.ge_p + s.ge_r);
  EXPECT_NEAR(static_cast<double>(lost) / n, p_bad, 0.05 * p_bad);
}

TEST(GilbertElliottLoss, LossInEachStateFollowsHAndK) {
  LossSettings s;
  s.model = LossModel::kGemodel;
  s.ge_p = 0.02;
  s.ge_r = 0.2;
  s.ge_1_h = 0.6;
  s.ge_1_k = 0.01;
  LossStage loss(s, 5, "t");
  const int n = 2'000'000;
  int lost = 0;
  for (int i = 0; i < n; ++i) {
    lost += loss.lose_next() ? 1 : 0;
  }
  const double pb = s.ge_p / (s.ge_p + s.ge_r);
  const double expected = pb * s.ge_1_h + (1 - pb) * s.ge_1_k;
  // Same cycle argument as above: ~6,700 cycles, relative sd ~2 %; 10 % is 5 sd.
  EXPECT_NEAR(static_cast<double>(lost) / n, expected, 0.10 * expected);
}

// The 4-state model's empirical state occupancy matches the stationary distribution of its
// transition matrix (solved here by power iteration), and a packet is lost exactly when the
// chain moves into state 3 or 4.
TEST(FourStateLoss, StationaryProbabilitiesMatchTheChain) {
  LossSettings s;
  s.model = LossModel::kState;
  s.p13 = 0.05;
  s.p31 = 0.3;
  s.p32 = 0.2;
  s.p23 = 0.4;
  s.p14 = 0.02;
  const double P[4][4] = {
      {1 - s.p13 - s.p14, 0, s.p13, s.p14},
      {0, 1 - s.p23, s.p23, 0},
      {s.p31, s.p32, 1 - s.p31 - s.p32, 0},
      {1, 0, 0, 0},
  };
  std::array<double, 4> pi{1, 0, 0, 0};
  for (int it = 0; it < 10000; ++it) {
    std::array<double, 4> next{};
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) {
        next[j] += pi[i] * P[i][j];
      }
    }
    pi = next;
  }
  LossStage loss(s, 9, "t");
  const int n = 2'000'000;
  std::array<int, 4> seen{};
  int lost = 0;
  for (int i = 0; i < n; ++i) {
    const bool l = loss.lose_next();
    const auto st = static_cast<int>(loss.state()) - 1;
    ++seen[st];
    lost += l ? 1 : 0;
    ASSERT_EQ(l, st == 2 || st == 3) << "loss must coincide with entering state 3 or 4";
  }
  // The chain mixes within ~20 steps, so n_eff >= 1e5 and a proportion's sd is <= 0.0016;
  // 0.008 absolute is 5 sd.
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(static_cast<double>(seen[k]) / n, pi[k], 0.008) << "state " << k + 1;
  }
  EXPECT_NEAR(static_cast<double>(lost) / n, pi[2] + pi[3], 0.008);
}

class Collect final : public StageOutput {
 public:
  void emit(Packet&& p) override { out.push_back(std::move(p)); }
  void drop(Packet&& /*p*/, DropCause c) override { drops += c == DropCause::kLoss ? 1 : 0; }
  void marked(const Packet& /*p*/) override { ++marks; }
  std::vector<Packet> out;
  int drops = 0;
  int marks = 0;
};

TEST(LossEcn, MarksEcnCapableInsteadOfDroppingAndStillDropsNotEct) {
  LossSettings s;
  s.p = 1;
  s.ecn = true;
  LossStage loss(s, 1, "t");
  Collect c;
  loss.push(testing::udp_packet(1000, Ecn::kEct0), kEpoch, c);
  loss.push(testing::udp_packet(1000, Ecn::kEct1), kEpoch, c);
  loss.push(testing::udp_packet(1000, Ecn::kCe), kEpoch, c);
  loss.push(testing::udp_packet(1000, Ecn::kNotEct), kEpoch, c);
  ASSERT_EQ(c.out.size(), 3U);
  EXPECT_EQ(c.drops, 1);
  EXPECT_EQ(c.marks, 2);  // CE already: delivered, not counted again
  for (const Packet& p : c.out) {
    EXPECT_EQ(p.headers.ecn, Ecn::kCe);
  }
}

}  // namespace
}  // namespace gw
