// The learned controller (generators/cc/learned.h): the network it evaluates, its policy file,
// and what it does with the action.
#include "generators/cc/learned.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "core/rng.h"
#include "tests/unit/cc/cc_driver.h"

namespace gw::cc {
namespace {

constexpr int kIn = LearnedPolicy::kInputs;
constexpr int kH = LearnedPolicy::kHidden;

LearnedPolicy random_policy(std::uint64_t seed, double scale) {
  LearnedPolicy p;
  Rng rng(seed, "test");
  for (float& w : p.weights) {
    w = static_cast<float>(rng.normal() * scale);
  }
  return p;
}

// The documented activation in double.
double lambert_tanh(double x) {
  x = std::clamp(x, -4.97, 4.97);
  const double x2 = x * x;
  return x * (135135 + x2 * (17325 + x2 * (378 + x2))) / (135135 + x2 * (62370 + x2 * (3150 + x2 * 28)));
}

// The MLP in double precision, written out layer by layer from the documented layout.
double reference(const LearnedPolicy& p, const std::array<float, kIn>& x) {
  const float* w = p.weights.data();
  double h1[kH];
  double h2[kH];
  for (int j = 0; j < kH; ++j) {
    double s = w[kIn * kH + j];
    for (int i = 0; i < kIn; ++i)
      s += static_cast<double>(w[j * kIn + i]) * x[static_cast<std::size_t>(i)];
    h1[j] = lambert_tanh(s);
  }
  w += kIn * kH + kH;
  for (int j = 0; j < kH; ++j) {
    double s = w[kH * kH + j];
    for (int i = 0; i < kH; ++i)
      s += static_cast<double>(w[j * kH + i]) * h1[i];
    h2[j] = lambert_tanh(s);
  }
  w += kH * kH + kH;
  double s = w[kH];
  for (int i = 0; i < kH; ++i)
    s += static_cast<double>(w[i]) * h2[i];
  return lambert_tanh(s);
}

TEST(LearnedPolicy, HasAboutTwoThousandWeights) {
  EXPECT_EQ(LearnedPolicy::kWeights, 2017U);
}

// float against double: 1e-4 covers float rounding through three layers of 32 sums of O(1) terms
// (about 2^-24 x 32 x 3 relative, well under 1e-5, with margin for tanh's own rounding).
TEST(LearnedPolicy, DecideIsTheDocumentedNetwork) {
  const LearnedPolicy p = random_policy(3, 0.3);
  Rng rng(4, "inputs");
  for (int k = 0; k < 100; ++k) {
    std::array<float, kIn> x{};
    for (float& v : x)
      v = static_cast<float>(rng.uniform() * 2 - 1);
    EXPECT_NEAR(p.decide(x), reference(p, x), 1e-4);
  }
}

// The activation is tanh within 1e-4 (the Padé approximant's worst error is near |x| = 4.9),
// odd, monotonic (to within a float's rounding) and inside [-1, 1].
TEST(LearnedPolicy, TheActivationIsTanh) {
  float last = -2;
  for (int k = -80000; k <= 80000; ++k) {
    const float x = static_cast<float>(k) * 1e-4F;
    const float y = policy_tanh(x);
    ASSERT_NEAR(y, std::tanh(static_cast<double>(x)), 1e-4) << x;
    ASSERT_EQ(policy_tanh(-x), -y);
    ASSERT_GE(y, last - 1e-6F) << x;  // monotonic to within float rounding near saturation
    ASSERT_LE(std::fabs(y), 1.0F);
    last = y;
  }
}

// What the controller runs (column by column) is bit for bit the stored network (row by row).
TEST(LearnedPolicy, TheFastLayoutDecidesBitForBitTheSame) {
  const LearnedPolicy p = random_policy(8, 0.4);
  const PolicyNet net(p);
  Rng rng(9, "inputs");
  for (int k = 0; k < 1000; ++k) {
    std::array<float, kIn> x{};
    for (float& v : x)
      v = static_cast<float>(rng.uniform() * 4 - 2);
    ASSERT_EQ(std::bit_cast<std::uint32_t>(net.decide(x)), std::bit_cast<std::uint32_t>(p.decide(x))) << k;
  }
}

TEST(LearnedPolicy, FileRoundTripKeepsTheWeightsBitForBit) {
  LearnedPolicy p = random_policy(5, 0.5);
  p.action_gain = 0.75;
  p.provenance = {{"seed", 5}};
  const LearnedPolicy q = parse_policy(nlohmann::json::parse(policy_to_json(p).dump()));
  EXPECT_EQ(q.weights_hash(), p.weights_hash());
  EXPECT_EQ(q.action_gain, 0.75);
  EXPECT_FALSE(q.startup);
  EXPECT_EQ(q.provenance["seed"], 5);
  p.startup = true;
  EXPECT_TRUE(parse_policy(nlohmann::json::parse(policy_to_json(p).dump())).startup);
  nlohmann::json older = policy_to_json(p);
  older["architecture"].erase("startup");  // files from before the startup run without one
  EXPECT_FALSE(parse_policy(older).startup);
  EXPECT_NE(random_policy(6, 0.5).weights_hash(), p.weights_hash());
}

std::string policy_error(const nlohmann::json& doc) {
  try {
    (void)parse_policy(doc);
  } catch (const PolicyError& e) {
    return e.path + ": " + e.reason;
  }
  return "";
}

TEST(LearnedPolicy, ABadFileNamesThePathAndTheReason) {
  const nlohmann::json good = policy_to_json(random_policy(1, 0.1));
  EXPECT_EQ(policy_error(good), "");
  nlohmann::json d = good;
  d["gradwall"] = "policy/v2";
  EXPECT_EQ(policy_error(d), "$.gradwall: must be \"policy/v1\"");
  d = good;
  d["architecture"]["hidden"] = {64, 64};
  EXPECT_EQ(policy_error(d), "$.architecture.hidden: must be [32,32] (this gradwall's learned controller)");
  d = good;
  d["weights"].erase(0);
  EXPECT_EQ(policy_error(d), "$.weights: has 2016 numbers, the architecture needs 2017");
  d = good;
  d["weights"][7] = "x";
  EXPECT_EQ(policy_error(d), "$.weights[7]: not a finite number below 1e6 in magnitude");
  d = good;
  d["architecture"]["action_gain"] = 0;
  EXPECT_EQ(policy_error(d), "$.architecture.action_gain: a number in (0, 4]");
  d = good;
  d["architecture"]["startup"] = 1;
  EXPECT_EQ(policy_error(d), "$.architecture.startup: true or false");
}

// A policy whose output is a constant: all weights 0 but the last bias.
std::shared_ptr<const LearnedPolicy> constant_policy(float bias, double gain) {
  auto p = std::make_shared<LearnedPolicy>();
  p->weights.back() = bias;
  p->action_gain = gain;
  return p;
}

// 1000-byte segments on a 100 Gbit/s NIC: the rates the tests below reach stay far below it.
CcContext context_1000b_100g() {
  CcContext ctx;
  ctx.mss_bytes = 1000;
  ctx.line_rate_bps = 100'000'000'000ULL;
  return ctx;
}

// The action is applied once per smoothed RTT: a = tanh(b) each interval multiplies the rate by
// 2^(gain a). With a ~ 1 (b = 20) and gain 1 the rate doubles per RTT; with a ~ -1 it halves
// down to the floor. The window is 2 x rate x srtt.
TEST(LearnedController, AppliesTheActionOncePerRtt) {
  const CcContext ctx = context_1000b_100g();
  auto up = make_learned_with(ctx, constant_policy(20, 1.0), 10e6, 1e6);
  test::Driver d(*up, 1000);
  const Duration rtt{10'000'000};
  d.round({.rtt = rtt, .packets = 10});  // the first ACK starts the interval
  const double r0 = static_cast<double>(up->pacing_rate().bps);
  for (int k = 1; k <= 5; ++k) {
    d.round({.rtt = rtt, .packets = 10});
    // a is tanh(20) = 0.9999994 (the activation saturates at 4.97): 2^a is 2 within 1e-6 a round.
    EXPECT_NEAR(static_cast<double>(up->pacing_rate().bps), r0 * std::pow(2, k), r0 * std::pow(2, k) * 1e-5)
        << k;
  }
  EXPECT_NEAR(static_cast<double>(up->cwnd_bytes()),
              2 * static_cast<double>(up->pacing_rate().bps) / 8 * 0.01, 2);

  auto down = make_learned_with(ctx, constant_policy(-20, 0.5), 100e6, 1e6);
  test::Driver e(*down, 1000);
  for (int k = 0; k < 40; ++k)
    e.round({.rtt = rtt, .packets = 10});
  EXPECT_EQ(down->pacing_rate().bps, 1'000'000U) << "the rate fell below min_rate";
  EXPECT_EQ(down->name(), "learned");
}

std::shared_ptr<const LearnedPolicy> with_startup(float bias) {
  auto p = std::make_shared<LearnedPolicy>(*constant_policy(bias, 1.0));
  p->startup = true;
  return p;
}

// With `startup` the rate doubles each interval whatever the network says (here it always
// says halve), until the interval's least RTT passes the least by RFC 9406's RttThresh
// (clamp(min RTT / 8, 4 ms, 16 ms): 4 ms at 10 ms); then the rate is the interval's delivery
// rate when lower, and the network decides from the next interval on.
TEST(LearnedController, StartupDoublesUntilTheRttGrowsPastHystartsThreshold) {
  const CcContext ctx = context_1000b_100g();
  auto cc = make_learned_with(ctx, with_startup(-20), 10e6, 1e6);
  test::Driver d(*cc, 1000);
  d.round({.rtt = Duration{10'000'000}, .packets = 10});
  const double r0 = static_cast<double>(cc->pacing_rate().bps);
  for (int k = 0; k < 6; ++k) {  // 3 ms of queue, under the 4 ms threshold: still doubling
    d.round({.rtt = Duration{k < 3 ? 10'000'000 : 13'000'000}, .packets = 10});
    ASSERT_EQ(static_cast<double>(cc->pacing_rate().bps), r0 * std::pow(2, k + 1)) << k;
  }
  // 10 packets a round: the path delivers 10 kB per 20-ms interval, 4 Mbit/s, far below the
  // 640 Mbit/s startup reached. A decision's interval ends at the first ACK of the next
  // round, so the raised RTT shows in the first or the second decision.
  double before = static_cast<double>(cc->pacing_rate().bps);
  int rounds = 0;
  while (static_cast<double>(cc->pacing_rate().bps) >= before && rounds < 3) {
    before = static_cast<double>(cc->pacing_rate().bps);
    d.round({.rtt = Duration{20'000'000}, .packets = 10});
    ++rounds;
  }
  ASSERT_LT(rounds, 3) << "startup did not end on 10 ms of queue";
  const double exit_rate = static_cast<double>(cc->pacing_rate().bps);
  EXPECT_GT(exit_rate, 2e6);
  EXPECT_LT(exit_rate, 8e6) << "not the interval's delivery rate";
  d.round({.rtt = Duration{20'000'000}, .packets = 10});  // the network: 2^-0.9999994
  EXPECT_NEAR(static_cast<double>(cc->pacing_rate().bps), exit_rate / 2, exit_rate * 1e-5);

  // A CE mark ends it at once; so does more than 5 % of an interval lost (here 2 of 10).
  for (const bool ce : {true, false}) {
    auto c = make_learned_with(ctx, with_startup(-20), 10e6, 1e6);
    test::Driver e(*c, 1000);
    e.round({.rtt = Duration{10'000'000}, .packets = 10});
    e.round({.rtt = Duration{10'000'000}, .packets = 10});
    const double doubled = static_cast<double>(c->pacing_rate().bps);
    EXPECT_EQ(doubled, 2 * r0);
    for (int j = 0; j < 2; ++j) {
      e.round(
          {.rtt = Duration{10'000'000},
           .packets = 10,
           .ce = ce ? std::function<bool(std::uint64_t)>([](std::uint64_t i) { return i == 0; }) : nullptr,
           .lost = ce ? 0U : 2U});
    }
    EXPECT_LT(static_cast<double>(c->pacing_rate().bps), doubled) << (ce ? "CE" : "loss");
  }
}

// The registry makes it from cc_params.policy (an id register_policy gave) and refuses it
// without one.
TEST(LearnedController, NeedsARegisteredPolicy) {
  const std::uint32_t id = register_policy(constant_policy(0, 1));
  EXPECT_NE(make_congestion_control("learned", CcContext{}, {{"policy", id}}), nullptr);
  try {
    (void)make_congestion_control("learned", CcContext{}, {});
    ADD_FAILURE() << "made without a policy";
  } catch (const CcConfigError& e) {
    EXPECT_NE(e.reason.find("cc_params.policy"), std::string::npos) << e.reason;
  }
  EXPECT_THROW((void)make_congestion_control("learned", CcContext{}, {{"policy", id + 1000}}), CcConfigError);
}

}  // namespace
}  // namespace gw::cc
