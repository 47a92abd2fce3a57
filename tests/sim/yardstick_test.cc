// End-to-end congestion-control yardsticks (docs/references.md §3 "Analytic yardsticks"): whole
// scenarios run in virtual time, their measured windows, rates and queues compared with the
// analytic predictions. Every test states its tolerance and why it suffices. Windows are in
// packets of the 4096-byte payload MTU; a full data packet is 4158 bytes on the wire
// (docs/transport.md), so a bottleneck of B bit/s carries B x 4096/4158 of payload.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "emulator/engine/profile.h"
#include "harness/run/scenario.h"
#include "harness/sim/sim_runner.h"

namespace gw {
namespace {

constexpr double kMss = 4096;
constexpr double kWire = 4158;
constexpr double kPayloadShare = kMss / kWire;

// Two regions a, b (`hosts` each, 10 Gbit/s NICs) joined by one WAN link; `flows` bulk flows
// a -> b. `wan` is the link's JSON ("netem" and optional "limit_bytes").
nlohmann::json scenario_json(const nlohmann::json& wan, const std::string& cc, const std::string& duration,
                             int flows = 1, const nlohmann::json& cc_params = nlohmann::json::object(),
                             const std::string& interval = "100ms") {
  nlohmann::json link = wan;
  link["between"] = {"a", "b"};
  nlohmann::json transport = {{"cc", cc}};
  if (cc_params.is_object() && !cc_params.empty()) {
    transport["cc_params"] = cc_params;
  }
  return {{"gradwall", "scenario/v1"},
          {"name", "yardstick"},
          {"seed", 1},
          {"topology",
           {{"regions",
             {{{"name", "a"}, {"hosts", flows}, {"nic_rate", "10Gbit"}},
              {{"name", "b"}, {"hosts", flows}, {"nic_rate", "10Gbit"}}}},
            {"wan", {link}}}},
          {"workload",
           {{"kind", "flows"},
            {"duration", duration},
            {"flows", {{{"from", "a"}, {"to", "b"}, {"count", flows}}}}}},
          {"transport", transport},
          {"results", {{"interval", interval}}}};
}

Scenario netem_scenario(const std::string& a_to_b, const std::string& b_to_a, const std::string& cc,
                        const std::string& duration, int flows = 1,
                        const nlohmann::json& cc_params = nlohmann::json::object(),
                        const std::string& interval = "100ms", std::uint64_t limit_bytes = 1ULL << 30) {
  const nlohmann::json wan = {{"netem", {{"a_to_b", a_to_b}, {"b_to_a", b_to_a}}},
                              {"limit_bytes", limit_bytes}};
  return parse_scenario(scenario_json(wan, cc, duration, flows, cc_params, interval), "yardstick.json");
}

// The same with the WAN link given as profile/v1 directions (AQM, INT need a profile).
Scenario profile_scenario(const nlohmann::json& a_to_b, const nlohmann::json& b_to_a, const std::string& cc,
                          const std::string& duration, int flows = 1,
                          const nlohmann::json& cc_params = nlohmann::json::object(),
                          const std::string& interval = "100ms") {
  Scenario s = parse_scenario(
      scenario_json({{"netem", "delay 1ms"}}, cc, duration, flows, cc_params, interval), "yardstick.json");
  const nlohmann::json prof = {
      {"gradwall", "profile/v1"}, {"name", "yardstick"}, {"seed", 1}, {"a_to_b", a_to_b}, {"b_to_a", b_to_a}};
  s.topology.wan[0].profile = parse_profile(prof, "yardstick-profile.json");
  return s;
}

const HopResult& hop(const SimResult& r, const std::string& name) {
  for (const HopResult& h : r.hops) {
    if (h.name == name) {
      return h;
    }
  }
  ADD_FAILURE() << "no hop " << name;
  return r.hops.front();
}

std::size_t hop_index(const SimResult& r, const std::string& name) {
  for (std::size_t i = 0; i < r.hops.size(); ++i) {
    if (r.hops[i].name == name) {
      return i;
    }
  }
  ADD_FAILURE() << "no hop " << name;
  return 0;
}

std::uint64_t dropped(const SimResult& r, const std::string& key) {
  const auto it = r.accounting.dropped.find(key);
  return it == r.accounting.dropped.end() ? 0 : it->second;
}

// Samples [from, end) of a series as doubles.
std::vector<double> tail(const std::vector<std::uint64_t>& v, std::size_t from) {
  return {v.begin() + static_cast<std::ptrdiff_t>(std::min(from, v.size())), v.end()};
}

double mean(const std::vector<double>& v) {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double cv(const std::vector<double>& v) {
  const double m = mean(v);
  double ss = 0;
  for (double x : v) {
    ss += (x - m) * (x - m);
  }
  return m > 0 ? std::sqrt(ss / static_cast<double>(v.size())) / m : 0;
}

// The average window in packets from goodput and mean RTT (every packet in flight once per RTT).
double window_packets(const FlowResult& f) {
  return static_cast<double>(f.goodput_bps) / 8.0 * f.rtt_ns.mean * 1e-9 / kMss;
}

// ---------------------------------------------------------------------------------------------
// 1. Reno vs Mathis: BW = (MSS/RTT) sqrt(3/2) / sqrt(p), i.e. W = sqrt(3/(2p)) packets.
//
// Tolerance ±20 %. The mean over n independent loss cycles has a relative standard error of
// about 0.5/sqrt(n) (the window at a loss varies with the exponential loss interval); with
// ~150 loss events that is ~4 %, so ±20 % leaves room for the model's known bias (random loss
// raises Mathis' constant from 1.22 towards 1.31; timeouts lower it at p = 1e-2) and
// still fails a controller that is off by a quarter. Durations give ~150 loss events each:
// a loss every 1/p packets at W/RTT packets per second = sqrt(1.5 p)/RTT events per second,
// so 150 events take 150 RTT / sqrt(1.5 p) = 24.5 s, 77 s and 245 s at RTT 20 ms.
struct MathisCase {
  double p;
  const char* loss;
  const char* duration;
};

class RenoMathis : public ::testing::TestWithParam<MathisCase> {};

TEST_P(RenoMathis, GoodputMatchesMathisWithinTwentyPercent) {
  const MathisCase c = GetParam();
  const SimResult r = run_sim(netem_scenario(std::string("delay 10ms loss ") + c.loss, "delay 10ms", "reno",
                                             c.duration, 1, {}, "1s"));
  const FlowResult& f = r.flows.at(0);
  const double rtt_s = f.rtt_ns.mean * 1e-9;
  const double predicted = kMss * 8.0 / rtt_s * std::sqrt(1.5 / c.p);
  const double ratio = static_cast<double>(f.goodput_bps) / predicted;
  RecordProperty("ratio", std::to_string(ratio));
  EXPECT_GE(dropped(r, "wan a->b/loss"), 100U) << "too few loss events for the stated error";
  EXPECT_NEAR(ratio, 1.0, 0.2) << "p=" << c.p << " goodput " << f.goodput_bps << " predicted " << predicted;
}

INSTANTIATE_TEST_SUITE_P(LossRates, RenoMathis,
                         ::testing::Values(MathisCase{1e-4, "0.01%", "245s"}, MathisCase{1e-3, "0.1%", "77s"},
                                           MathisCase{1e-2, "1%", "25s"}),
                         [](const ::testing::TestParamInfo<MathisCase>& param_info) {
                           return "p" + std::to_string(
                                            static_cast<int>(std::lround(-std::log10(param_info.param.p))));
                         });

// ---------------------------------------------------------------------------------------------
// 2. CUBIC average window, RFC 9438 §5: max(1.054 (RTT/p)^0.75, sqrt(3/(2p))) packets (the
// Reno-friendly AIMD(3(1-beta)/(1+beta), beta) window is sqrt(3/(2p)) for any beta).
//
// Tolerance: -10 % / +35 %, wider than the brief's ±20 % on the high side, and why: §5's
// formula assumes deterministic (periodic) loss, so every cycle ends at W_max. With Bernoulli
// loss some cycles run long, and CUBIC's growth is convex beyond W_max (t^3) and the
// Reno-friendly estimate switches alpha_cubic to 1 once it passes cwnd_prior (§4.3); both
// lift the mean. Measured 1.23x in both regions (~170 loss events, ~4 % standard error); a
// missing region (the CUBIC term ignored, or the Reno-friendly term ignored) is off by 1.45x
// and 4x here, so the test still discriminates. The shape, W ~ RTT^0.75 in the CUBIC region,
// is checked at ±15 % since the random-loss factor cancels in the ratio.
double cubic_window(int rtt_ms, double p, const std::string& loss, const std::string& duration,
                    double* predicted_cubic, double* predicted_friendly) {
  const std::string half = std::to_string(rtt_ms / 2) + "ms";
  const SimResult r = run_sim(
      netem_scenario("delay " + half + " loss " + loss, "delay " + half, "cubic", duration, 1, {}, "1s"));
  const FlowResult& f = r.flows.at(0);
  const double rtt_s = f.rtt_ns.mean * 1e-9;
  *predicted_cubic = 1.054 * std::pow(rtt_s / p, 0.75);
  *predicted_friendly = std::sqrt(1.5 / p);
  EXPECT_GE(dropped(r, "wan a->b/loss"), 100U) << "too few loss events";
  return window_packets(f);
}

TEST(CubicYardstick, AverageWindowInCubicRegionFollowsRfc9438) {
  double pc = 0;
  double pf = 0;
  // RTT 200 ms, p 1e-3: CUBIC term 56 packets > Reno-friendly 39; ~170 losses in 540 s.
  const double w200 = cubic_window(200, 1e-3, "0.1%", "540s", &pc, &pf);
  ASSERT_GT(pc, 1.3 * pf) << "scenario not in the CUBIC region";
  EXPECT_GE(w200 / pc, 0.9) << "W " << w200 << " predicted " << pc;
  EXPECT_LE(w200 / pc, 1.35) << "W " << w200 << " predicted " << pc;
  // RTT 400 ms: the window grows by 2^0.75 = 1.68.
  double pc400 = 0;
  const double w400 = cubic_window(400, 1e-3, "0.1%", "700s", &pc400, &pf);
  EXPECT_NEAR((w400 / w200) / (pc400 / pc), 1.0, 0.15) << "W400 " << w400 << " W200 " << w200;
}

TEST(CubicYardstick, AverageWindowInRenoFriendlyRegionFollowsRfc9438) {
  double pc = 0;
  double pf = 0;
  // RTT 20 ms, p 1e-3: CUBIC term 10 packets < Reno-friendly 39; ~170 losses in 77 s.
  const double w = cubic_window(20, 1e-3, "0.1%", "77s", &pc, &pf);
  ASSERT_GT(pf, 3 * pc) << "scenario not in the Reno-friendly region";
  EXPECT_GE(w / pf, 0.9) << "W " << w << " predicted " << pf;
  EXPECT_LE(w / pf, 1.35) << "W " << w << " predicted " << pf;
}

// ---------------------------------------------------------------------------------------------
// 3. Scalable controllers under random CE marking with probability p (netem `loss P ecn` on the
// data direction, no loss): the idealised yardstick is W = 2/p (one cut of alpha/2 = p/2 per
// RTT balancing +1 MSS per RTT). Both controllers cut at most once per window, which the
// idealisation ignores, so their exact steady states differ, and the tests use them:
//  - Prague (tcp_prague.c): additive increase on every unmarked ACK, also during the window
//    after a cut. A cycle is that window plus the wait for the next mark, 1 + 1/c RTTs at
//    W = c/p, growing (1 + 1/c)(1 - p) MSS; the cut is W p/2 = c/2. Balance: c^2 - 2(1-p)c
//    - 2(1-p) = 0, c = 2.71 at p = 0.01, 2.62 at p = 0.05 (1.36x and 1.31x the 2/p yardstick).
//  - DCTCP (RFC 8257 as Linux runs it): no growth until the cut window is acknowledged and the
//    congestion-avoidance credit restarts at each cut, so growth per cycle is floor(N/W) MSS
//    with N ~ Exp(1/p) packets: 1/(e^c - 1) = c/2 gives c = 1.06 (0.53x the yardstick).
// Tolerance ±20 % of those, over the last 3/4 of a 60 s run (RTT 30 ms, above Prague's 25 ms
// reference so its RTT scaling is off): ~1000-2000 cuts, so the statistical error is a few %.
// The property the yardstick exists for -- W proportional to 1/p -- is asserted directly:
// W p equal at p = 0.01 and 0.05 within 15 %.
double scalable_window(const std::string& cc, double p) {
  const std::string loss = "delay 15ms loss " + std::to_string(p * 100) + "% ecn";
  const SimResult r = run_sim(netem_scenario(loss, "delay 15ms", cc, "60s", 1, {}, "100ms"));
  const FlowResult& f = r.flows.at(0);
  EXPECT_GT(f.marks_ce, 500U);
  EXPECT_EQ(f.retransmits, 0U);
  const std::vector<double> rate = tail(r.series.flow_rate_bps.at(0), r.series.flow_rate_bps[0].size() / 4);
  return mean(rate) / 8.0 * f.rtt_ns.mean * 1e-9 / kMss;
}

double prague_c(double p) {
  const double b = 1.0 - p;
  return b + std::sqrt(b * b + 2.0 * b);
}

TEST(ScalableYardstick, PragueWindowUnderRandomCeMarkingIsInverseInP) {
  const double w1 = scalable_window("prague", 0.01);
  const double w5 = scalable_window("prague", 0.05);
  EXPECT_NEAR(w1 / (prague_c(0.01) / 0.01), 1.0, 0.2) << "W " << w1 << " vs 2/p = 200";
  EXPECT_NEAR(w5 / (prague_c(0.05) / 0.05), 1.0, 0.2) << "W " << w5 << " vs 2/p = 40";
  EXPECT_NEAR((w1 * 0.01) / (w5 * 0.05), 1.0, 0.15);
}

TEST(ScalableYardstick, DctcpWindowUnderRandomCeMarkingIsInverseInP) {
  const double w1 = scalable_window("dctcp", 0.01);
  const double w5 = scalable_window("dctcp", 0.05);
  constexpr double kC = 1.06;
  EXPECT_NEAR(w1 / (kC / 0.01), 1.0, 0.2) << "W " << w1 << " vs 2/p = 200";
  EXPECT_NEAR(w5 / (kC / 0.05), 1.0, 0.2) << "W " << w5 << " vs 2/p = 40";
  EXPECT_NEAR((w1 * 0.01) / (w5 * 0.05), 1.0, 0.15);
}

// ---------------------------------------------------------------------------------------------
// 4. DCTCP with step marking at K (Alizadeh et al. SIGCOMM 2010 §3.3): with N synchronized
// flows the queue peaks at Q_max = K + N packets and oscillates with amplitude
// A = 1/2 sqrt(2N (C RTT + K)); it never empties when K > C RTT / 7, so the link stays busy.
// Here C = 5 Gbit/s, RTT ~ 121 us (C RTT = 18 packets), K = 20 packets, N = 2:
// Q_max = 22 packets, A = 6.2, Q_min = 15.8. Asserted: the queue seen by arriving packets
// has p99 <= Q_max + 1 packet (one packet of slack for the arrival that is itself counted)
// and median in [Q_min - 1, Q_max] (the oscillation sits where the analysis puts it); the
// aggregate goodput is >= 97 % of the payload rate (the queue does not underflow; 2 s includes
// the slow-start overshoot, ~1 %).
TEST(DctcpStepMarking, QueueStaysWithinTheAnalyticalBoundsAndTheLinkStaysBusy) {
  constexpr double kK = 20;
  constexpr int kN = 2;
  const nlohmann::json ab = {{"delay", {{"delay_us", 50}}},
                             {"rate", {{"rate_gbps", 5}}},
                             {"queue",
                              {{"limit_bytes", 4 << 20},
                               {"aqm",
                                {{"kind", "threshold"},
                                 {"kmin_bytes", static_cast<std::uint64_t>(kK * kWire)},
                                 {"kmax_bytes", static_cast<std::uint64_t>(kK * kWire)},
                                 {"pmax", 1}}}}}};
  const SimResult r = run_sim(profile_scenario(ab, {{"delay", {{"delay_us", 50}}}}, "dctcp", "2s", kN));
  const HopResult& h = hop(r, "wan a->b");
  const double rtt_s = static_cast<double>(r.flows.at(0).rtt_ns.min) * 1e-9;
  const double c_rtt = 5e9 * rtt_s / 8.0 / kWire;
  ASSERT_GT(kK, c_rtt / 7);
  const double q_max = kK + kN;
  const double amplitude = 0.5 * std::sqrt(2.0 * kN * (c_rtt + kK));
  const double q_min = q_max - amplitude;
  EXPECT_LE(static_cast<double>(h.queue_bytes.p99) / kWire, q_max + 1);
  EXPECT_GE(static_cast<double>(h.queue_bytes.p50) / kWire, q_min - 1);
  EXPECT_LE(static_cast<double>(h.queue_bytes.p50) / kWire, q_max);
  EXPECT_EQ(h.dropped.size(), 0U);
  double total = 0;
  for (const FlowResult& f : r.flows) {
    total += static_cast<double>(f.goodput_bps);
  }
  EXPECT_GE(total, 0.97 * 5e9 * kPayloadShare);
}

// ---------------------------------------------------------------------------------------------
// 5. BBR. B = 1 Gbit/s bottleneck (payload B x 4096/4158), RTT 20 ms, 5 MB buffer.
Scenario bbr_scenario(int version, const std::string& loss, const std::string& duration) {
  return netem_scenario("delay 10ms rate 1Gbit" + (loss.empty() ? "" : " loss " + loss), "delay 10ms", "bbr",
                        duration, 1, {{"version", version}}, "10ms", 5 << 20);
}

double bbr_share(const SimResult& r, double p) {
  return static_cast<double>(r.flows.at(0).goodput_bps) / (1e9 * kPayloadShare * (1 - p));
}

// BBRv1 ignores random loss: goodput ~ B (1 - p). Tolerance -10 %: ProbeRTT (200 ms per 10 s,
// 2 %), startup (~0.3 s of 20 s, ~1 %) and the pacing margin (1 %) cost ~4 %; measured 0.97.
TEST(BbrYardstick, V1GoodputIsBottleneckTimesOneMinusLossAtOnePercent) {
  const SimResult r = run_sim(bbr_scenario(1, "1%", "20s"));
  EXPECT_GE(bbr_share(r, 0.01), 0.9);
  EXPECT_LE(bbr_share(r, 0.01), 1.0);
}

// v3's loss response (draft-ietf-ccwg-bbr: a round losing more than BBRLossThresh = 2 % while
// probing caps inflight_hi) makes it back off above 2 % random loss, where v1 does not:
// at 5 % v1 keeps >= 0.9 B(1-p) and v3 falls below half of it (measured 0.98 and 0.03).
TEST(BbrYardstick, V3BacksOffAboveItsLossThresholdWhileV1Keeps) {
  const SimResult v1 = run_sim(bbr_scenario(1, "5%", "20s"));
  const SimResult v3 = run_sim(bbr_scenario(3, "5%", "20s"));
  EXPECT_GE(bbr_share(v1, 0.05), 0.9);
  EXPECT_LT(bbr_share(v3, 0.05), 0.5);
}

// v3 below its loss threshold: docs/references.md §3 has it back off only above 2 %/round, but the
// draft's lower bounds (BBRAdaptLowerBoundsFromCongestion) react to any loss in a non-probing
// round: inflight_lo = max(inflight_latest, beta x inflight_lo), and with the window at
// inflight_lo a round delivers inflight_lo x (1 - p), so under constant random loss inflight_lo
// shrinks by ~p per round until REFILL resets it (N. Cardwell, bbr-dev, 2024-02-27: "trends
// downward ... until it resets when refilling occurs, assuming constant loss"). Model: at
// p = 1 % every round of a 610-packet BDP has a loss; a CRUISE of N = 63 rounds (Reno
// coexistence cap, 1.3 s here) averages (1 - (1-p)^N) / (N p) = 0.745 of the window it started
// with; times the lossless run's 0.967 (ProbeRTT, startup, pacing margin): 0.72 B(1-p).
// Asserted within [0.62, 0.88] (model ±14 %: the CRUISE length is the random 2-3 s probe wait
// or 63 rounds, whichever is first, and UP/DOWN phases run at other windows); measured 0.76.
// v1 at the same loss keeps >= 0.9 (test above): the contrast the reports should show.
TEST(BbrYardstick, V3LowerBoundsDriftDownUnderRandomLossBelowItsThreshold) {
  const SimResult r = run_sim(bbr_scenario(3, "1%", "20s"));
  EXPECT_GE(bbr_share(r, 0.01), 0.62);
  EXPECT_LE(bbr_share(r, 0.01), 0.88);
}

// ProbeRTT drains the queue: v3 every probe_rtt_interval (5 s) cuts cwnd to 0.5 BDP for
// 200 ms; v1 every min_rtt_window (10 s) to 4 packets. Asserted on the 10 ms series after
// startup (t >= 2 s): every 5 s (v3) / 10 s (v1) window holds a sample where cwnd <= 0.55 BDP
// (v1: 4 packets) and the bottleneck queue is empty, and the flow is back to full rate within
// a second (goodput >= 0.9 B over the run -- before the v1 max-filter fix a ProbeRTT longer
// than 10 rounds dropped max_bw to the ProbeRTT rate and the flow needed ~1 s to recover).
void expect_probe_rtt_drains(int version, double interval_s, double cwnd_limit_bytes) {
  const SimResult r = run_sim(bbr_scenario(version, "", "22s"));
  const auto& cwnd = r.series.flow_cwnd_bytes.at(0);
  const auto& queue = r.series.hop_queue_bytes.at(hop_index(r, "wan a->b"));
  const std::size_t per_window = static_cast<std::size_t>(interval_s / 0.01);
  for (std::size_t start = 200; start + per_window <= cwnd.size(); start += per_window) {
    bool drained = false;
    for (std::size_t i = start; i < start + per_window; ++i) {
      drained = drained || (static_cast<double>(cwnd[i]) <= cwnd_limit_bytes && queue[i] == 0);
    }
    EXPECT_TRUE(drained) << "no ProbeRTT between " << start / 100.0 << " s and "
                         << (start + per_window) / 100.0 << " s";
  }
  EXPECT_GE(bbr_share(r, 0), 0.9);
}

TEST(BbrYardstick, ProbeRttDrainsTheQueueEveryFiveSecondsInV3) {
  const double bdp = 1e9 / 8.0 * 0.02;
  expect_probe_rtt_drains(3, 5.0, 0.55 * bdp);
}

TEST(BbrYardstick, ProbeRttDrainsTheQueueEveryTenSecondsInV1) {
  expect_probe_rtt_drains(1, 10.0, 4 * kMss);
}

// ---------------------------------------------------------------------------------------------
// 6. HPCC (Li et al. SIGCOMM 2019) targets utilization eta = 0.95 with a near-empty queue. One
// flow, 10 Gbit/s NIC into a 5 Gbit/s INT-stamping bottleneck, 10 us each way. Asserted:
// wire utilization (goodput / payload share / B) within ±5 % of eta, and p99 queue delay
// below 2 us (one 4 KB packet is 6.7 us at 5 Gbit/s: the queue is essentially never more than
// the packet in service). Measured 0.96 and 0.
TEST(HpccYardstick, UtilizationNearEtaWithAnEmptyQueue) {
  const nlohmann::json ab = {{"delay", {{"delay_us", 10}}},
                             {"rate", {{"rate_gbps", 5}}},
                             {"queue", {{"limit_bytes", 4 << 20}, {"int", {{"node_id", 1}}}}}};
  const SimResult r =
      run_sim(profile_scenario(ab, {{"delay", {{"delay_us", 10}}}}, "hpcc", "1s", 1, {}, "1ms"));
  const double u = static_cast<double>(r.flows.at(0).goodput_bps) / kPayloadShare / 5e9;
  EXPECT_NEAR(u, 0.95, 0.05 * 0.95);
  EXPECT_LE(hop(r, "wan a->b").queue_delay_ns.p99, 2'000);
}

// ---------------------------------------------------------------------------------------------
// 7. DCQCN (Zhu et al. SIGCOMM 2015), two flows, 5 Gbit/s bottleneck, RED-like threshold
// marking (Kmin 20 KB, Kmax 200 KB, Pmax 1 %), CNPs back over the reverse path, data-centre
// default timers (55 us) and byte counter (10 MB).
SimResult dcqcn_run(int one_way_us, const std::string& duration, const std::string& interval,
                    std::uint64_t buffer_bytes) {
  const nlohmann::json delay = {{"delay", {{"delay_us", one_way_us}}}};
  nlohmann::json ab = delay;
  ab["rate"] = {{"rate_gbps", 5}};
  ab["queue"] = {
      {"limit_bytes", buffer_bytes},
      {"aqm", {{"kind", "threshold"}, {"kmin_bytes", 20000}, {"kmax_bytes", 200000}, {"pmax", 0.01}}}};
  return run_sim(profile_scenario(ab, delay, "dcqcn", duration, 2, {}, interval));
}

// Short path (10 us one way): the queue stays bounded (never above 1 MB of the 64 MB buffer,
// no drops) and each flow's 10 ms rate varies little (coefficient of variation < 0.3 after
// the first quarter). Utilization is only asserted >= 70 %: measured 76 % (3.74 of 4.92
// Gbit/s payload) -- DCQCN's cut of alpha/2 per CNP with alpha starting at 1 and decaying
// by g = 1/256 per 55 us under-fills the link within this 1 s; reported, not hidden.
TEST(DcqcnYardstick, ConvergesOnAShortPath) {
  const SimResult r = dcqcn_run(10, "1s", "10ms", 64 << 20);
  const HopResult& h = hop(r, "wan a->b");
  EXPECT_EQ(h.dropped.size(), 0U);
  const auto& q = r.series.hop_queue_bytes.at(hop_index(r, "wan a->b"));
  EXPECT_LT(*std::max_element(q.begin() + static_cast<std::ptrdiff_t>(q.size() / 4), q.end()), 1U << 20);
  double total = 0;
  for (std::size_t i = 0; i < r.flows.size(); ++i) {
    total += static_cast<double>(r.flows[i].goodput_bps);
    const auto& rate = r.series.flow_rate_bps[i];
    EXPECT_LT(cv(tail(rate, rate.size() / 4)), 0.3) << "flow " << i;
  }
  EXPECT_GE(total, 0.7 * 5e9 * kPayloadShare);
}

// 50 ms one way, the same defaults: the 55 us timers recover the rate ~1800 times per RTT,
// long before a CNP can report the queue they built, so the loop oscillates. Shown without
// averaging it away: each flow's 50 ms rate swings (CV > 0.6, from ~0 to near line rate) and
// the queue swings by at least half the 16 MB buffer up to full, dropping packets (6 s, 60
// RTTs). Measured: 8.0 to 16.8 MB. (It drained to empty while bulk flows kept only 128 MiB
// posted and starved during each loss recovery.)
TEST(DcqcnYardstick, OscillatesOnAWanPathWithDataCentreDefaults) {
  const SimResult r = dcqcn_run(50'000, "6s", "50ms", 16 << 20);
  const auto& q = r.series.hop_queue_bytes.at(hop_index(r, "wan a->b"));
  const std::vector<double> qt = tail(q, q.size() / 4);
  EXPECT_LE(*std::min_element(qt.begin(), qt.end()), 0.5 * (16 << 20));
  EXPECT_GE(*std::max_element(qt.begin(), qt.end()), 0.9 * (16 << 20));
  EXPECT_GT(dropped(r, "wan a->b/queue_bytes"), 0U);
  for (std::size_t i = 0; i < r.flows.size(); ++i) {
    const auto& rate = r.series.flow_rate_bps[i];
    EXPECT_GT(cv(tail(rate, rate.size() / 4)), 0.6) << "flow " << i;
  }
}

// ---------------------------------------------------------------------------------------------
// 8. acc vs acc2 (docs/references.md §3, the seed design's pacer): from line rate (10 Gbit/s) into a
// 5 Gbit/s bottleneck, 1 ms each way, no ECN. acc cuts 5 % per srtt while the queue grows,
// then holds once the gradient is flat: the queue it built stays (no absolute-delay term).
// acc2's target-delay term drains it. Asserted: acc's median queue delay is above 2 ms (a
// standing queue of more than the one-way delay); acc2's is below 100 us (its 50 us
// target plus a packet), at least 20x lower; acc2 keeps >= 60 % of the bottleneck
// (measured: acc 14 ms, 4.9 Gbit/s; acc2 0, 3.5 Gbit/s).
TEST(AccYardstick, Acc2DrainsTheStandingQueueThatAccKeeps) {
  const auto run = [](const std::string& cc) {
    return run_sim(netem_scenario("delay 1ms rate 5Gbit", "delay 1ms", cc, "3s", 1, {}, "10ms", 64 << 20));
  };
  const SimResult acc = run("acc");
  const SimResult acc2 = run("acc2");
  const auto p50 = [](const SimResult& r) { return hop(r, "wan a->b").queue_delay_ns.p50; };
  EXPECT_GT(p50(acc), 2'000'000);
  EXPECT_LT(p50(acc2), 100'000);
  EXPECT_GE(static_cast<double>(acc2.flows.at(0).goodput_bps), 0.6 * 5e9 * kPayloadShare);
}

// ---------------------------------------------------------------------------------------------
// 9. Fairness: two flows of one controller through one bottleneck. Jain's index over the
// per-flow goodput of the second half of the run (after convergence), >= 0.95.
double jain_second_half(const SimResult& r) {
  std::vector<double> x;
  for (const auto& rate : r.series.flow_rate_bps) {
    x.push_back(mean(tail(rate, rate.size() / 2)));
  }
  return jain_index(x);
}

// CUBIC: 100 Mbit/s, RTT 10 ms, 125 kB (one BDP) drop-tail buffer, 60 s: window 30-60 s.
// (At 1 Gbit/s and RTT 20 ms the same index is only 0.94 over 15-30 s and 0.89 over 30-60 s:
// reported to the lead as a convergence question, not asserted here.)
TEST(Fairness, TwoCubicFlowsShareABottleneck) {
  const SimResult r =
      run_sim(netem_scenario("delay 5ms rate 100Mbit", "delay 5ms", "cubic", "60s", 2, {}, "100ms", 125'000));
  EXPECT_GE(jain_second_half(r), 0.95);
}

// DCTCP: 5 Gbit/s, RTT ~120 us, step marking at 20 packets, 2 s: window 1-2 s.
TEST(Fairness, TwoDctcpFlowsShareABottleneck) {
  const nlohmann::json ab = {
      {"delay", {{"delay_us", 50}}},
      {"rate", {{"rate_gbps", 5}}},
      {"queue",
       {{"limit_bytes", 4 << 20},
        {"aqm",
         {{"kind", "threshold"}, {"kmin_bytes", 20 * 4158}, {"kmax_bytes", 20 * 4158}, {"pmax", 1}}}}}};
  const SimResult r =
      run_sim(profile_scenario(ab, {{"delay", {{"delay_us", 50}}}}, "dctcp", "2s", 2, {}, "10ms"));
  EXPECT_GE(jain_second_half(r), 0.95);
}

}  // namespace
}  // namespace gw
