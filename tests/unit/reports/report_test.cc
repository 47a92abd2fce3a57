// build_report on hand-made results: every expected number below is worked out by hand from
// tests/unit/reports/result_fixture.h.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "reports/report.h"
#include "result_fixture.h"

namespace gw::reports {
namespace {

using nlohmann::json;
using testing::collective_result;
using testing::flow_result;

const json& op(const json& report, const std::string& key) {
  for (const json& o : report["collectives"]["ops"]) {
    if (o["key"] == key) {
      return o;
    }
  }
  throw std::runtime_error("no op " + key);
}

const json& check(const json& report, const std::string& name) {
  for (const json& c : report["checks"]) {
    if (c["name"] == name) {
      return c;
    }
  }
  throw std::runtime_error("no check " + name);
}

TEST(ReportCollectives, GroupsByOpAlgorithmBytesAndRanksInKeyOrder) {
  const json r = build_report(collective_result());
  ASSERT_EQ(r["gradwall"], "report/v1");
  ASSERT_EQ(r["collectives"]["ops"].size(), 2u);
  EXPECT_EQ(r["collectives"]["ops"][0]["key"], "all_gather/ring/1000000/8");
  EXPECT_EQ(r["collectives"]["ops"][1]["key"], "all_reduce/ring/100000000/8");
  EXPECT_EQ(r["collectives"]["count"], 12);
  EXPECT_EQ(r["collectives"]["time_statistic"], "median");
}

TEST(ReportCollectives, CctPercentilesAreNearestRank) {
  // Sorted CCTs (ms): 10 10.5 11 11.5 12.5 13 14 15 20 40. Nearest rank of 10 samples:
  // p50 = 5th, p90 = 9th, p99 = p99.9 = 10th.
  const json r = build_report(collective_result());
  const json& cct = op(r, "all_reduce/ring/100000000/8")["cct_ns"];
  EXPECT_EQ(cct["count"], 10);
  EXPECT_EQ(cct["min"], 10000000);
  EXPECT_EQ(cct["p50"], 12500000);
  EXPECT_EQ(cct["p90"], 20000000);
  EXPECT_EQ(cct["p99"], 40000000);
  EXPECT_EQ(cct["p999"], 40000000);
  EXPECT_EQ(cct["max"], 40000000);
  EXPECT_DOUBLE_EQ(cct["mean"].get<double>(), 15.75e6);  // 157.5 ms / 10
}

TEST(ReportCollectives, AlgbwIsBytesOverMedianCctAndBusbwScalesByFactor) {
  const json r = build_report(collective_result());
  const json& ar = op(r, "all_reduce/ring/100000000/8");
  // 1e8 B / 12.5 ms = 8e9 B/s = 8 GB/s (GB = 1e9 B); busbw = 8 x 1.75.
  EXPECT_DOUBLE_EQ(ar["algbw_GBps"].get<double>(), 8.0);
  EXPECT_DOUBLE_EQ(ar["busbw_GBps"].get<double>(), 14.0);
  EXPECT_EQ(ar["busbw_factor"], 1.75);
  const json& ag = op(r, "all_gather/ring/1000000/8");
  // CCTs 1 and 3 ms: the median (nearest rank) is 1 ms; 1e6 B / 1 ms = 1 GB/s.
  EXPECT_DOUBLE_EQ(ag["algbw_GBps"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(ag["busbw_GBps"].get<double>(), 0.875);
}

TEST(ReportCollectives, MeasuredOverPredictedUsesMedianAndIsNullWithoutPrediction) {
  const json r = build_report(collective_result());
  const json& ar = op(r, "all_reduce/ring/100000000/8");
  EXPECT_EQ(ar["predicted_ns"], 10000000);
  EXPECT_DOUBLE_EQ(ar["measured_over_predicted"].get<double>(), 1.25);
  EXPECT_TRUE(op(r, "all_gather/ring/1000000/8")["predicted_ns"].is_null());
  EXPECT_TRUE(op(r, "all_gather/ring/1000000/8")["measured_over_predicted"].is_null());
}

TEST(ReportGpu, IdleFractionIsExposedOverIterationTime) {
  const json gpu = build_report(collective_result())["gpu"];
  ASSERT_EQ(gpu["iterations"].size(), 4u);
  EXPECT_DOUBLE_EQ(gpu["iterations"][0]["gpu_idle_fraction"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(gpu["iterations"][2]["gpu_idle_fraction"].get<double>(), 0.3);
  EXPECT_EQ(gpu["iterations"][1]["compute_ns"], 80000000);
  EXPECT_EQ(gpu["iterations"][1]["exposed_comm_ns"], 20000000);
  // 80 ms exposed over 400 ms of iterations.
  EXPECT_DOUBLE_EQ(gpu["totals"]["gpu_idle_fraction"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(gpu["totals"]["mean_iteration_ns"].get<double>(), 100e6);
  EXPECT_DOUBLE_EQ(gpu["totals"]["exposed_comm_ns"].get<double>(), 80e6);
  EXPECT_DOUBLE_EQ(gpu["totals"]["compute_ns"].get<double>(), 320e6);
}

TEST(ReportGpu, SlowdownIsMeanIterationOverBaselineMeanIteration) {
  const json gpu = build_report(collective_result())["gpu"];
  EXPECT_DOUBLE_EQ(gpu["slowdown_vs_ideal"].get<double>(), 100.0 / 90.0);
  EXPECT_TRUE(gpu["slowdown_reason"].is_null());
  EXPECT_DOUBLE_EQ(gpu["baseline"]["mean_iteration_ns"].get<double>(), 90e6);
}

TEST(ReportGpu, SlowdownIsNullWithAReasonWithoutBaseline) {
  json result = collective_result();
  result["baseline"] = nullptr;
  result["scenario_json"]["thresholds"] = {{"slowdown_max", 1.5}};
  const json r = build_report(result);
  EXPECT_TRUE(r["gpu"]["slowdown_vs_ideal"].is_null());
  EXPECT_NE(r["gpu"]["slowdown_reason"].get<std::string>().find("no baseline"), std::string::npos);
  // Not measurable is failed, not passed.
  const json& c = check(r, "slowdown_max");
  EXPECT_FALSE(c["passed"].get<bool>());
  EXPECT_TRUE(c["measured"].is_null());
  EXPECT_NE(c["reason"].get<std::string>().find("no baseline"), std::string::npos);
  EXPECT_EQ(r["verdict"], "fail");
}

TEST(ReportGpu, CostOfIdleGpusPerIterationAndOverTheRun) {
  const json cost = build_report(collective_result())["gpu"]["cost"];
  // Per iteration: 1024 GPUs x 20 ms mean exposed = 1024 x 20e6 / 3.6e12 GPU-hours.
  const double gpu_h = 1024 * 20e6 / 3.6e12;
  EXPECT_DOUBLE_EQ(cost["per_iteration"]["idle_gpu_hours"].get<double>(), gpu_h);
  EXPECT_DOUBLE_EQ(cost["per_iteration"]["usd"].get<double>(), gpu_h * 2.5);
  EXPECT_DOUBLE_EQ(cost["per_iteration"]["energy_kwh"].get<double>(), gpu_h * 700 / 1000);
  // Run: 720 h / 100 ms = 25.92 million iterations; 1024 x 720 h x 0.2 idle = 147456 GPU-hours.
  EXPECT_DOUBLE_EQ(cost["run"]["iterations"].get<double>(), 25920000);
  EXPECT_DOUBLE_EQ(cost["run"]["idle_gpu_hours"].get<double>(), 147456);
  EXPECT_DOUBLE_EQ(cost["run"]["usd"].get<double>(), 368640);
  EXPECT_DOUBLE_EQ(cost["run"]["energy_kwh"].get<double>(), 103219.2);
  // What the impairment adds: 10 ms of every 100 ms iteration -> 1024 x 720 x 0.1 GPU-hours.
  EXPECT_DOUBLE_EQ(cost["slowdown"]["run"]["idle_gpu_hours"].get<double>(), 73728);
  EXPECT_DOUBLE_EQ(cost["slowdown"]["run"]["usd"].get<double>(), 184320);
}

TEST(ReportGpu, CostIsNullWithAReasonWithoutScenarioCost) {
  json result = collective_result();
  result["scenario_json"].erase("cost");
  const json gpu = build_report(result)["gpu"];
  EXPECT_TRUE(gpu["cost"].is_null());
  EXPECT_NE(gpu["cost_reason"].get<std::string>().find("cost"), std::string::npos);
}

TEST(ReportPackets, DropsMarksAndRetransmitsSumOverPathsAndFlows) {
  const json p = build_report(collective_result())["packets"];
  EXPECT_EQ(p["packets_sent"], 2000);
  EXPECT_EQ(p["retransmits"], 40);
  EXPECT_DOUBLE_EQ(p["retransmit_fraction"].get<double>(), 0.02);
  EXPECT_EQ(p["timeouts"], 1);
  EXPECT_EQ(p["dropped"], 10);
  EXPECT_EQ(p["dropped_by_cause"], (json{{"loss", 3}, {"queue", 7}}));
  EXPECT_EQ(p["marked_ce"], 8);
  EXPECT_EQ(p["duplicated"], 1);
  EXPECT_EQ(p["corrupted"], 1);
  EXPECT_EQ(p["reordered"], 2);
  EXPECT_EQ(p["one_way_delay_ns"]["p99"], 3500000);
}

// The transport's totals (result.json packets.packets_sent/retransmits/timeouts) cover every
// queue pair, the collectives' connections too, which are not in `flows`: they win over the
// per-flow sums.
TEST(ReportPackets, TransportTotalsIncludeTheCollectivesConnections) {
  json result = collective_result();
  result["packets"]["packets_sent"] = 9000;
  result["packets"]["retransmits"] = 90;
  result["packets"]["timeouts"] = 3;
  const json p = build_report(result)["packets"];
  EXPECT_EQ(p["packets_sent"], 9000);
  EXPECT_EQ(p["retransmits"], 90);
  EXPECT_DOUBLE_EQ(p["retransmit_fraction"].get<double>(), 0.01);
  EXPECT_EQ(p["timeouts"], 3);
}

// Ops and iterations that had not finished when the run ended (end_ns -1) are left out of the
// statistics and fail the workload_completed check.
TEST(ReportChecks, UnfinishedOpsAndIterationsFailWorkloadCompleted) {
  json result = collective_result();
  const json complete = build_report(result);
  EXPECT_THROW(check(complete, "workload_completed"), std::runtime_error) << "only listed when it fails";
  json op_left = result["collectives"][0];
  op_left["end_ns"] = -1;
  result["collectives"].push_back(op_left);
  json it_left = result["iterations"][0];
  it_left["index"] = 4;
  it_left["end_ns"] = -1;
  it_left["exposed_comm_ns"] = -1;
  result["iterations"].push_back(it_left);
  const json r = build_report(result);
  EXPECT_EQ(r["collectives"]["count"], complete["collectives"]["count"]);
  EXPECT_EQ(r["gpu"]["iterations"], complete["gpu"]["iterations"]);
  const json& c = check(r, "workload_completed");
  EXPECT_FALSE(c["passed"].get<bool>());
  EXPECT_EQ(c["measured"], 2);
  EXPECT_EQ(r["verdict"], "fail");
}

TEST(ReportPaths, QueueDepthPercentilesPerHop) {
  const json paths = build_report(collective_result())["paths"];
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0]["name"], "uplink a");
  EXPECT_EQ(paths[0]["dropped"], 8);
  EXPECT_DOUBLE_EQ(paths[0]["drop_fraction"].get<double>(), 8.0 / 2000);
  EXPECT_EQ(paths[0]["queue_bytes"]["p99"], 300);
  EXPECT_EQ(paths[1]["queue_delay_ns"]["max"], 5);
}

TEST(ReportFlows, GoodputRttRetransmitsAndJain) {
  const json f = build_report(collective_result())["flows"];
  ASSERT_EQ(f["flows"].size(), 2u);
  EXPECT_EQ(f["flows"][1]["goodput_bps"], 2e9);
  EXPECT_EQ(f["flows"][1]["rtt_ns"]["p99"], 8000000);
  EXPECT_DOUBLE_EQ(f["flows"][1]["retransmit_fraction"].get<double>(), 0.03);
  // (4 + 2)^2 / (2 x (16 + 4)) = 0.9
  EXPECT_DOUBLE_EQ(f["jain_fairness"].get<double>(), 0.9);
  EXPECT_DOUBLE_EQ(f["goodput_total_bps"].get<double>(), 6e9);
}

TEST(ReportChecks, EachThresholdPassesOrFailsAgainstItsLimit) {
  json result = collective_result();
  result["scenario_json"]["thresholds"] = {{"cct_p99_ms_max", 50},
                                           {"cct_p50_ms_max", 10},
                                           {"gpu_idle_fraction_max", 0.3},
                                           {"busbw_GBps_min", 5},
                                           {"slowdown_max", 1.5},
                                           {"goodput_gbps_min", 3},
                                           {"retransmit_fraction_max", 0.05},
                                           {"accounting_balanced", true}};
  const json r = build_report(result);
  // Worst op p99 is all_reduce's 40 ms <= 50.
  EXPECT_TRUE(check(r, "cct_p99_ms_max")["passed"].get<bool>());
  EXPECT_DOUBLE_EQ(check(r, "cct_p99_ms_max")["measured"].get<double>(), 40);
  // Worst op p50 is 12.5 ms > 10.
  EXPECT_FALSE(check(r, "cct_p50_ms_max")["passed"].get<bool>());
  EXPECT_NE(check(r, "cct_p50_ms_max")["reason"].get<std::string>().find("all_reduce/ring/100000000/8"),
            std::string::npos);
  EXPECT_TRUE(check(r, "gpu_idle_fraction_max")["passed"].get<bool>());
  // The smallest busbw is all_gather's 0.875 GB/s < 5.
  EXPECT_FALSE(check(r, "busbw_GBps_min")["passed"].get<bool>());
  EXPECT_DOUBLE_EQ(check(r, "busbw_GBps_min")["measured"].get<double>(), 0.875);
  EXPECT_TRUE(check(r, "slowdown_max")["passed"].get<bool>());
  // The slowest flow has 2 Gbit/s < 3.
  EXPECT_FALSE(check(r, "goodput_gbps_min")["passed"].get<bool>());
  EXPECT_DOUBLE_EQ(check(r, "goodput_gbps_min")["measured"].get<double>(), 2);
  EXPECT_TRUE(check(r, "retransmit_fraction_max")["passed"].get<bool>());
  EXPECT_TRUE(check(r, "accounting_balanced")["passed"].get<bool>());
  EXPECT_EQ(r["checks"].size(), 8u);
  EXPECT_EQ(r["verdict"], "fail");
}

// GPU idle 0.2 impaired, 5/90 = 0.056 on the baseline: a limit of 0.1 fails but a network without
// impairments would pass it; 0.05 fails on both, so no fix to the impairments reaches it. The
// fixture's baseline has no collectives, so the CCT check has no baseline beside it.
TEST(ReportChecks, BaselineValueBesideEachCheckAndLimitsOutOfReach) {
  json result = collective_result();
  result["scenario_json"]["thresholds"] = {{"gpu_idle_fraction_max", 0.1}, {"cct_p99_ms_max", 50}};
  json r = build_report(result);
  const json idle = check(r, "gpu_idle_fraction_max");
  EXPECT_FALSE(idle["passed"].get<bool>());
  EXPECT_NEAR(idle["baseline_measured"].get<double>(), 5.0 / 90, 1e-12);
  EXPECT_FALSE(idle["out_of_reach"].get<bool>());
  EXPECT_FALSE(check(r, "cct_p99_ms_max").contains("baseline_measured"));
  result["scenario_json"]["thresholds"] = {{"gpu_idle_fraction_max", 0.05}};
  r = build_report(result);
  EXPECT_TRUE(check(r, "gpu_idle_fraction_max")["out_of_reach"].get<bool>());
  EXPECT_NE(check(r, "gpu_idle_fraction_max")["reason"].get<std::string>().find("out of reach even without"),
            std::string::npos);
}

// warmup_iterations 1: iteration 0 (exposed 10 ms) and its ten all-reduces are left out; the
// GPU idle becomes (20 + 30 + 20) / 300 and only the two all-gathers of iteration 1 remain.
TEST(ReportWarmup, FirstIterationsLeftOutOfEveryStatistic) {
  json result = collective_result();
  result["warmup_iterations"] = 1;
  const json r = build_report(result);
  EXPECT_EQ(r["run"]["warmup_iterations_excluded"], 1);
  EXPECT_NEAR(r["gpu"]["totals"]["gpu_idle_fraction"].get<double>(), 70.0 / 300, 1e-12);
  ASSERT_EQ(r["collectives"]["ops"].size(), 1u);
  EXPECT_EQ(r["collectives"]["ops"][0]["op"], "all_gather");
  // As many warm-up iterations as the run has: nothing is dropped, and a warning says so.
  result["warmup_iterations"] = 4;
  const json all = build_report(result);
  EXPECT_EQ(all["run"]["warmup_iterations_excluded"], 0);
  EXPECT_NEAR(all["gpu"]["totals"]["gpu_idle_fraction"].get<double>(), 0.2, 1e-12);
  ASSERT_FALSE(all["warnings"].empty());
  EXPECT_EQ(all["warnings"][0]["kind"], "warmup");
}

std::vector<std::string> warning_kinds(const json& report) {
  std::vector<std::string> kinds;
  for (const json& w : report["warnings"]) {
    kinds.push_back(w["kind"].get<std::string>());
  }
  return kinds;
}

// The fixture's iterations are all 100 ms: no trend. The last one 120 ms long (+20 % > 10 %) is.
TEST(ReportWarnings, TrendingIterationTime) {
  json result = collective_result();
  EXPECT_TRUE(warning_kinds(build_report(result)).empty());
  result["iterations"][3]["end_ns"] = result["iterations"][3]["start_ns"].get<std::int64_t>() + 120000000;
  const json r = build_report(result);
  ASSERT_EQ(warning_kinds(r), std::vector<std::string>{"trending"});
  EXPECT_NE(r["warnings"][0]["message"].get<std::string>().find("+20.0 %"), std::string::npos);
}

// Swift and TIMELY with their datacenter defaults on a path whose RTT p50 is 2.5 ms; tuned, or on a
// fabric, no warning. go_back_n over a path that reordered packets (the fixture's first path: 2).
TEST(ReportWarnings, ControllerUnsuitedToThePathAndGoBackNUnderReordering) {
  json result = collective_result();
  result["scenario_json"]["transport"] = {{"cc", "swift"}};
  EXPECT_EQ(warning_kinds(build_report(result)), std::vector<std::string>{"controller"});
  result["scenario_json"]["transport"] = {{"cc", "timely"}};
  EXPECT_EQ(warning_kinds(build_report(result)), std::vector<std::string>{"controller"});
  result["scenario_json"]["transport"] = {{"cc", "swift"}, {"cc_params", {{"base_target_us", 60000}}}};
  EXPECT_TRUE(warning_kinds(build_report(result)).empty());
  result["scenario_json"]["transport"] = {{"cc", "dctcp"}, {"recovery", "go_back_n"}};
  EXPECT_EQ(warning_kinds(build_report(result)), std::vector<std::string>{"recovery"});
  result["paths"][0]["reordered"] = 0;
  EXPECT_TRUE(warning_kinds(build_report(result)).empty());
}

TEST(ReportChecks, AllPassingGivesPassAndAccountingIsCheckedUnlisted) {
  json result = collective_result();
  result["scenario_json"]["thresholds"] = {{"cct_p99_ms_max", 120}, {"gpu_idle_fraction_max", 0.3}};
  const json r = build_report(result);
  EXPECT_EQ(r["checks"].size(), 3u);
  EXPECT_TRUE(check(r, "accounting_balanced")["passed"].get<bool>());
  EXPECT_EQ(r["verdict"], "pass");
  result["accounting"]["balanced"] = false;
  EXPECT_EQ(build_report(result)["verdict"], "fail");
}

TEST(ReportChecks, CollectiveThresholdOnAFlowWorkloadFailsAsUnmeasurable) {
  json result = flow_result();
  result["scenario_json"]["thresholds"] = {{"cct_p99_ms_max", 120}, {"goodput_gbps_min", 1}};
  const json r = build_report(result);
  EXPECT_TRUE(r["gpu"].is_null());
  EXPECT_TRUE(r["collectives"]["ops"].empty());
  const json& c = check(r, "cct_p99_ms_max");
  EXPECT_FALSE(c["passed"].get<bool>());
  EXPECT_NE(c["reason"].get<std::string>().find("no collectives"), std::string::npos);
  EXPECT_TRUE(check(r, "goodput_gbps_min")["passed"].get<bool>());
  EXPECT_EQ(r["verdict"], "fail");
}

TEST(ReportChecks, UnknownThresholdIsAnInputErrorWithDidYouMean) {
  json result = collective_result();
  result["scenario_json"]["thresholds"] = {{"cct_p99_ms_mx", 120}};
  try {
    build_report(result, "out/result.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "out/result.json");
    EXPECT_EQ(e.path(), "$.scenario_json.thresholds.cct_p99_ms_mx");
    EXPECT_NE(e.reason().find("did you mean \"cct_p99_ms_max\""), std::string::npos) << e.what();
  }
}

TEST(ReportChecks, KnownThresholdNamesIncludeTheDocumentedOnes) {
  for (const char* name :
       {"cct_p99_ms_max", "cct_p50_ms_max", "gpu_idle_fraction_max", "busbw_GBps_min", "slowdown_max",
        "goodput_gbps_min", "retransmit_fraction_max", "accounting_balanced"}) {
    EXPECT_TRUE(known_threshold_names().contains(name)) << name;
  }
}

void expect_input_error(const json& result, const std::string& path, const std::string& reason_part) {
  try {
    build_report(result, "r.json");
    ADD_FAILURE() << "no error for " << path;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "r.json");
    EXPECT_EQ(e.path(), path) << e.what();
    EXPECT_NE(e.reason().find(reason_part), std::string::npos) << e.what();
  }
}

TEST(ReportInput, MalformedResultsNameTheJsonPathAndReason) {
  json r = collective_result();
  r["collectives"][3]["end_ns"] = 0;
  expect_input_error(r, "$.collectives[3].end_ns", "must not precede start_ns");
  r = collective_result();
  r["collectives"][1].erase("op");
  expect_input_error(r, "$.collectives[1].op", "is required");
  r = collective_result();
  r["iterations"][2]["exposed_comm_ns"] = "20ms";
  expect_input_error(r, "$.iterations[2].exposed_comm_ns", "must be a number");
  r = collective_result();
  r["gradwall"] = "scenario/v1";
  expect_input_error(r, "$.gradwall", "expected \"result/v1\"");
  r = collective_result();
  r["flows"][0]["rtt_ns"]["p90"] = 1;
  expect_input_error(r, "$.flows[0].rtt_ns", "must not decrease");
  r = collective_result();
  r["scenario_json"]["thresholds"] = {{"busbw_GBps_min", "fast"}};
  expect_input_error(r, "$.scenario_json.thresholds.busbw_GBps_min", "must be a number");
  r = collective_result();
  r["baseline"]["iterations"][1]["compute_ns"] = 1e9;
  expect_input_error(r, "$.baseline.iterations[1].compute_ns", "must be in");
  r = testing::background_result();
  r["background"][0].erase("class");
  expect_input_error(r, "$.background[0].class", "is required");
  r = testing::background_result();
  r["background"][0]["goodput_bps"] = -1;
  expect_input_error(r, "$.background[0].goodput_bps", "must be in");
}

TEST(ReportBackground, ClassesFromTheResultAndEachFlowTagged) {
  const json report = build_report(testing::background_result());
  const json& bg = report["flows"]["background"];
  ASSERT_EQ(bg.size(), 1u);
  EXPECT_EQ(bg[0]["class"], "storage");
  EXPECT_EQ(bg[0]["flows"], 1);
  EXPECT_EQ(bg[0]["bytes_delivered"], 250000000);
  EXPECT_DOUBLE_EQ(bg[0]["goodput_bps"].get<double>(), 2e9);
  EXPECT_EQ(bg[0]["retransmits"], 30);
  EXPECT_TRUE(report["flows"]["flows"][0]["class"].is_null());  // the workload's
  EXPECT_EQ(report["flows"]["flows"][1]["class"], "storage");
  // Without background traffic the list is there and empty.
  EXPECT_TRUE(build_report(collective_result())["flows"]["background"].empty());
}

}  // namespace
}  // namespace gw::reports
