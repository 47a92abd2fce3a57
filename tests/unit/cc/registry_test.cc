// The congestion-control registry: names, construction, and the exact error messages.
#include <gtest/gtest.h>

#include "generators/cc/congestion_control.h"

namespace gw::cc {
namespace {

std::string error_of(std::string_view name, const CcParams& params) {
  try {
    (void)make_congestion_control(name, CcContext{}, params);
  } catch (const CcConfigError& e) {
    return e.reason;
  }
  return "";
}

TEST(CcRegistry, EveryNameConstructsWithDefaults) {
  const auto names = congestion_control_names();
  EXPECT_EQ(names.size(), 13U);
  for (const std::string& name : names) {
    if (name == "learned") {
      continue;  // needs a policy file (learned_test.cc); the scenario loader supplies the shipped one
    }
    const auto cc = make_congestion_control(name, CcContext{}, {});
    ASSERT_NE(cc, nullptr) << name;
    EXPECT_EQ(cc->name(), name);
    EXPECT_GT(cc->cwnd_bytes(), 0U) << name;
  }
}

TEST(CcRegistry, UnknownNameListsTheKnownOnes) {
  EXPECT_EQ(error_of("vegas", {}),
            "unknown congestion control 'vegas'; known: acc, acc2, bbr, cubic, dcqcn, dctcp, fixed, hpcc, "
            "learned, prague, reno, swift, timely");
}

TEST(CcRegistry, UnknownParameterIsNamedWithTheKnownOnes) {
  EXPECT_EQ(error_of("reno", {{"betta", 0.5}}),
            "unknown parameter 'betta' for congestion control 'reno'; known: beta, initial_cwnd_packets, "
            "initial_ssthresh_packets, min_cwnd_packets");
}

TEST(CcRegistry, OutOfRangeValueGivesTheReason) {
  EXPECT_EQ(error_of("cubic", {{"beta", 1.5}}),
            "congestion control 'cubic': parameter 'beta' must be in (0, 1), got 1.5");
  EXPECT_EQ(error_of("dctcp", {{"initial_cwnd_packets", 2.5}}),
            "congestion control 'dctcp': parameter 'initial_cwnd_packets' must be an integer in [1, "
            "1000000], got 2.5");
  EXPECT_EQ(error_of("cubic", {{"hystart", 2}}),
            "congestion control 'cubic': parameter 'hystart' must be 0 or 1, got 2");
}

TEST(CcRegistry, BbrVersionIsOneOrThree) {
  EXPECT_EQ(error_of("bbr", {{"version", 2}}),
            "congestion control 'bbr': parameter 'version' must be 1 or 3, got 2");
  EXPECT_EQ(error_of("bbr", {{"version", 1}}), "");
}

TEST(CcRegistry, EveryDocumentedParameterIsAccepted) {
  const std::map<std::string, CcParams> samples = {
      {"reno",
       {{"beta", 0.5},
        {"initial_cwnd_packets", 10},
        {"initial_ssthresh_packets", 0},
        {"min_cwnd_packets", 2}}},
      {"cubic", {{"c", 0.4}, {"beta", 0.7}, {"fast_convergence", 1}, {"hystart", 1}}},
      {"dctcp", {{"g", 0.0625}, {"initial_alpha", 1}}},
      {"prague", {{"g", 0.0625}, {"ref_rtt_ms", 25}, {"rtt_independence", 1}, {"ss_pacing_gain", 2}}},
      {"dcqcn",
       {{"g", 0.004},
        {"alpha_timer_us", 55},
        {"rate_timer_us", 55},
        {"byte_counter_mb", 10},
        {"f_stages", 5},
        {"rai_mbps", 40},
        {"rhai_mbps", 400},
        {"min_rate_mbps", 1}}},
      {"hpcc", {{"eta", 0.95}, {"max_stage", 5}, {"rai_mbps", 40}, {"base_rtt_us", 10}}},
      {"timely",
       {{"ewma_alpha", 0.875}, {"beta", 0.8}, {"delta_mbps", 10}, {"t_low_us", 50}, {"t_high_us", 500}}},
      {"swift",
       {{"base_target_us", 25}, {"per_hop_us", 1}, {"fs_range_us", 100}, {"ai", 1}, {"max_mdf", 0.5}}},
      {"bbr",
       {{"version", 3}, {"loss_threshold", 0.02}, {"beta", 0.7}, {"headroom", 0.15}, {"drain_gain", 0.5}}},
      {"acc",
       {{"gradient_threshold", 0.01}, {"cut_fraction", 0.05}, {"step_gbps", 1.5}, {"queue_limit_us", 50}}},
      {"acc2",
       {{"target_delay_us", 50},
        {"beta", 0.8},
        {"max_mdf", 0.5},
        {"gradient_gain", 5},
        {"step_fraction", 0.02}}},
  };
  for (const auto& [name, params] : samples) {
    EXPECT_EQ(error_of(name, params), "") << name;
  }
}

TEST(CcRegistry, Acc2OnlyParametersAreRejectedByAcc) {
  EXPECT_NE(error_of("acc", {{"target_delay_us", 50}}), "");
}

}  // namespace
}  // namespace gw::cc
