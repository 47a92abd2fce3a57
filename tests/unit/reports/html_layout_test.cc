// Layout of the HTML report's plots: stable ids for each figure (the browser test finds the plots
// by them), legends that stay inside the SVG, and tick labels without exponents.
#include <gtest/gtest.h>

#include "reports/html.h"
#include "reports/report.h"
#include "reports/svg.h"
#include "result_fixture.h"

namespace gw::reports {
namespace {

using nlohmann::json;

TEST(HtmlLayout, EachPlotIsAFigureWithAStableId) {
  const json result = testing::collective_result();
  const std::string html = write_html(build_report(result), result);
  for (const char* id : {"plot-cct-cdf", "plot-iterations", "plot-throughput", "plot-queue"}) {
    const auto at = html.find(std::string("<figure class=\"chart\" id=\"") + id + "\"><svg class=\"chart\"");
    EXPECT_NE(at, std::string::npos) << id;
  }
}

TEST(HtmlLayout, QueueDepthOfMebibytesIsPlottedInMiBWithoutExponents) {
  json result = testing::collective_result();
  result["series"]["hops"][0]["queue_bytes"] = json::array({0, 20000000, 10000000});
  const std::string html = write_html(build_report(result), result);
  const auto fig = html.find("id=\"plot-queue\"");
  ASSERT_NE(fig, std::string::npos);
  const std::string svg = html.substr(fig, html.find("</figure>", fig) - fig);
  EXPECT_NE(svg.find(">MiB</text>"), std::string::npos);
  EXPECT_EQ(svg.find("e+"), std::string::npos) << svg;
}

TEST(SvgLegend, LongNamesAreCutWithAnEllipsisAndKeptAsTooltip) {
  const std::string name(60, 'x');
  const std::string svg = svg_line_chart(
      {"t", "x", "y", [](double v) { return std::to_string(v); }, [](double v) { return std::to_string(v); }},
      {{name, {0, 1}, {0, 1}}, {"short", {0, 1}, {1, 0}}});
  EXPECT_NE(svg.find(">" + std::string(33, 'x') + "&#8230;<title>" + name + "</title></text>"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find(">short</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">" + name + "</text>"), std::string::npos);
}

}  // namespace
}  // namespace gw::reports
