// The HTML report is one self-contained file: its plots are inline SVG and it names no URL.
#include <gtest/gtest.h>

#include "reports/compare.h"
#include "reports/html.h"
#include "reports/report.h"
#include "result_fixture.h"

namespace gw::reports {
namespace {

using nlohmann::json;
using testing::collective_result;
using testing::flow_result;

std::size_t occurrences(const std::string& text, const std::string& word) {
  std::size_t n = 0;
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    ++n;
  }
  return n;
}

// No http(s) URL anywhere except an SVG namespace declaration (none is needed inline).
void expect_offline(const std::string& html) {
  // (Plain string search: std::regex trips GCC 12's -Wmaybe-uninitialized under -O2 + ASan.)
  std::string stripped = html;
  const std::string ns = "xmlns=\"http://www.w3.org/2000/svg\"";
  for (auto at = stripped.find(ns); at != std::string::npos; at = stripped.find(ns, at)) {
    stripped.erase(at, ns.size());
  }
  EXPECT_EQ(stripped.find("http://"), std::string::npos);
  EXPECT_EQ(stripped.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
}

TEST(HtmlReport, CollectiveRunHasCdfIterationBarsSeriesAndTables) {
  const json result = collective_result();
  const std::string html = write_html(build_report(result), result);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<style>"), std::string::npos);
  EXPECT_EQ(occurrences(html, "<svg "), 4u);  // CCT CDF, iterations, throughput, queue depth
  EXPECT_NE(html.find("<title>CCT CDF per op</title>"), std::string::npos);
  EXPECT_NE(html.find("<title>Per iteration: compute vs exposed communication</title>"), std::string::npos);
  EXPECT_NE(html.find("<title>Throughput per flow</title>"), std::string::npos);
  EXPECT_NE(html.find("<title>Queue depth per hop</title>"), std::string::npos);
  // One CDF line per op kind, one stacked bar (3 parts) per iteration.
  EXPECT_EQ(occurrences(html, "<polyline"), 2u + 2u + 1u);
  EXPECT_NE(html.find("all_reduce/ring/100000000/8"), std::string::npos);
  EXPECT_NE(html.find("<h2>Checks</h2>"), std::string::npos);
  EXPECT_NE(html.find("<h2>Flows</h2>"), std::string::npos);
  EXPECT_NE(html.find("<h2>Paths</h2>"), std::string::npos);
  expect_offline(html);
}

TEST(HtmlReport, FlowRunHasNoCollectiveSectionsButStillPlotsSeries) {
  const json result = flow_result();
  const std::string html = write_html(build_report(result), result);
  EXPECT_EQ(html.find("<h2>Collectives</h2>"), std::string::npos);
  EXPECT_EQ(html.find("<h2>GPU idle</h2>"), std::string::npos);
  EXPECT_EQ(occurrences(html, "<svg "), 2u);
  expect_offline(html);
}

TEST(HtmlReport, BackgroundTrafficTableAndFlowClasses) {
  const json result = testing::background_result();
  const std::string html = write_html(build_report(result), result);
  EXPECT_NE(html.find("<h2>Background traffic</h2>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"l\">storage</td><td>1</td><td>2 Gbit/s</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"l\">workload</td>"), std::string::npos);  // flow 0
  const json plain = collective_result();
  EXPECT_EQ(write_html(build_report(plain), plain).find("Background traffic"), std::string::npos);
}

TEST(HtmlReport, NamesAreEscaped) {
  json result = collective_result();
  result["scenario"] = "<script>alert(1)</script>";
  const std::string html = write_html(build_report(result), result);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
}

TEST(HtmlCompare, RunsSideBySideWithChartsAndRegressionsAgainstTheFirst) {
  const json base = build_report(collective_result());
  json slower_result = collective_result();
  for (json& c : slower_result["collectives"]) {
    c["end_ns"] = c["start_ns"].get<std::int64_t>() +
                  (c["end_ns"].get<std::int64_t>() - c["start_ns"].get<std::int64_t>()) * 12 / 10;
  }
  const json slower = build_report(slower_result);
  const std::string html = write_html_compare({base, slower}, {"base", "wan 50ms"}, 10);
  EXPECT_NE(html.find("wan 50ms vs base: regression at 10 %"), std::string::npos);
  // p99 CCT bars for both ops and the idle fraction.
  EXPECT_EQ(occurrences(html, "<svg "), 3u);
  EXPECT_NE(html.find("cct_p99_ns[all_reduce/ring/100000000/8]"), std::string::npos);
  expect_offline(html);
}

}  // namespace
}  // namespace gw::reports
