// compare(): per-metric change and regression beyond a tolerance, with the right direction.
#include <gtest/gtest.h>

#include "reports/compare.h"
#include "reports/report.h"
#include "result_fixture.h"

namespace gw::reports {
namespace {

using nlohmann::json;
using testing::collective_result;

// Every collective takes `factor` times as long.
json scaled_cct(double factor) {
  json r = collective_result();
  for (json& c : r["collectives"]) {
    const auto start = c["start_ns"].get<std::int64_t>();
    const auto cct = static_cast<double>(c["end_ns"].get<std::int64_t>() - start);
    c["end_ns"] = start + static_cast<std::int64_t>(cct * factor);
  }
  return r;
}

const CompareRow& row(const Comparison& c, const std::string& metric) {
  for (const CompareRow& r : c.rows) {
    if (r.metric == metric) {
      return r;
    }
  }
  throw std::runtime_error("no row " + metric);
}

const std::string kP99 = "cct_p99_ns[all_reduce/ring/100000000/8]";

TEST(CompareReports, TwentyPercentSlowerCctIsARegressionAtTenPercentNotAtThirty) {
  const json base = build_report(collective_result());
  const json slower = build_report(scaled_cct(1.2));
  const Comparison at10 = compare(base, slower, 10);
  EXPECT_TRUE(at10.any_regression);
  EXPECT_TRUE(row(at10, kP99).regression);
  EXPECT_NEAR(*row(at10, kP99).change_pct, 20, 1e-9);
  EXPECT_EQ(*row(at10, kP99).base, 40e6);
  EXPECT_EQ(*row(at10, kP99).next, 48e6);
  // busbw fell by 1 - 1/1.2 = 16.7 %: higher is better, so that is a regression too.
  EXPECT_TRUE(row(at10, "busbw_GBps[all_reduce/ring/100000000/8]").regression);
  const Comparison at30 = compare(base, slower, 30);
  EXPECT_FALSE(at30.any_regression);
  EXPECT_FALSE(row(at30, kP99).regression);
}

TEST(CompareReports, ImprovementsAreNeverRegressions) {
  const json base = build_report(collective_result());
  const Comparison c = compare(base, build_report(scaled_cct(0.5)), 0);
  EXPECT_FALSE(c.any_regression);
  EXPECT_NEAR(*row(c, kP99).change_pct, -50, 1e-9);
  EXPECT_GT(*row(c, "busbw_GBps[all_reduce/ring/100000000/8]").change_pct, 0);
}

TEST(CompareReports, LowerGoodputIsARegressionAndIdenticalRunsAreNot) {
  const json base = build_report(collective_result());
  EXPECT_FALSE(compare(base, base, 0).any_regression);
  json result = collective_result();
  result["flows"][0]["goodput_bps"] = 3e9;  // -25 %
  const Comparison c = compare(base, build_report(result), 10);
  const CompareRow& g = row(c, "goodput_bps[flow 0 a/0->b/0]");
  EXPECT_TRUE(g.higher_is_better);
  EXPECT_TRUE(g.regression);
  EXPECT_NEAR(*g.change_pct, -25, 1e-9);
}

TEST(CompareReports, IdleFractionFromZeroIsARegressionWithoutPercent) {
  json zero = collective_result();
  for (json& it : zero["iterations"]) {
    it["compute_ns"] = 100000000;
    it["exposed_comm_ns"] = 0;
  }
  const Comparison c = compare(build_report(zero), build_report(collective_result()), 50);
  const CompareRow& idle = row(c, "gpu_idle_fraction");
  EXPECT_FALSE(idle.change_pct.has_value());
  EXPECT_TRUE(idle.regression);
}

// An op kind BASE has and NEW lacks is missing and a regression (a gate must not pass a run
// for what it did not measure); one only NEW has is not.
TEST(CompareReports, MetricsMissingInNewAreRegressions) {
  json result = collective_result();
  result["collectives"].erase(result["collectives"].size() - 1);
  result["collectives"].erase(result["collectives"].size() - 1);  // no all_gather
  const Comparison c = compare(build_report(collective_result()), build_report(result), 10);
  const CompareRow& gone = row(c, "cct_p50_ns[all_gather/ring/1000000/8]");
  EXPECT_TRUE(gone.base.has_value());
  EXPECT_FALSE(gone.next.has_value());
  EXPECT_TRUE(gone.missing);
  EXPECT_TRUE(gone.regression);
  EXPECT_TRUE(c.any_regression);
  const Comparison reverse = compare(build_report(result), build_report(collective_result()), 10);
  const CompareRow& added = row(reverse, "cct_p50_ns[all_gather/ring/1000000/8]");
  EXPECT_FALSE(added.missing);
  EXPECT_FALSE(added.regression);
  const json j = to_json(c);
  EXPECT_EQ(j["tolerance_pct"], 10);
  EXPECT_TRUE(j["rows"][0].contains("change_pct"));
  EXPECT_NE(compare_table_md(c).find("| metric | base | new | change % |"), std::string::npos);
}

}  // namespace
}  // namespace gw::reports
