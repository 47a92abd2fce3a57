// evaluation.html: issue 20's goals checked for the learned row against acc2 on each path
// (utilization >= 0.9x, p99 queue <= 1.2x, Jain >= 0.9 with two flows), and an offline page.
#include <gtest/gtest.h>

#include "reports/evaluation_html.h"

namespace gw::reports {
namespace {

using nlohmann::json;

json row(const std::string& path, const std::string& cc, int flows, double util, double queue_ns,
         double jain) {
  return {{"path", path},
          {"cc", cc},
          {"flows", flows},
          {"utilization", util},
          {"queue_p99_ns", queue_ns},
          {"congestion_loss", 0.01},
          {"jain", jain},
          {"reward", 0.1}};
}

std::string section(const std::string& html, const std::string& path) {
  const auto at = html.find("<h2>" + path + "</h2>");
  EXPECT_NE(at, std::string::npos) << path;
  return html.substr(at, html.find("</table>", at) - at);
}

std::string learned_row(const std::string& table) {
  const auto at = table.find("<tr class=\"learned\">");
  EXPECT_NE(at, std::string::npos);
  return table.substr(at, table.find("</tr>", at) - at);
}

TEST(EvaluationHtml, ChecksEachGoalAgainstAcc2OnThePath) {
  const json e = {{"policy", "p.json"},
                  {"weights_fnv1a64", "00ff"},
                  {"rows",
                   {row("step", "learned", 1, 0.50, 100e6, 1), row("step", "acc2", 1, 0.65, 150e6, 1),
                    row("quiet", "learned", 1, 0.90, 0, 1), row("quiet", "acc2", 1, 0.95, 0, 1),
                    row("two", "learned", 2, 0.88, 70e6, 0.85), row("two", "acc2", 2, 0.89, 50e6, 1)}}};
  const std::string html = write_evaluation_html(e);
  // step: utilization 0.77x (fails), queue 0.67x (passes).
  const std::string step = learned_row(section(html, "step"));
  EXPECT_NE(step.find("class=\"fail\">0.77x"), std::string::npos) << step;
  EXPECT_NE(step.find("class=\"pass\">0.67x"), std::string::npos) << step;
  // quiet: 0.95x passes; both queues empty count as equal.
  const std::string quiet = learned_row(section(html, "quiet"));
  EXPECT_NE(quiet.find("class=\"pass\">0.95x"), std::string::npos) << quiet;
  EXPECT_NE(quiet.find("class=\"pass\">both 0"), std::string::npos) << quiet;
  // two flows: 0.99x passes, queue 1.40x fails, Jain 0.850 fails; Jain is checked only here.
  const std::string two = learned_row(section(html, "two"));
  EXPECT_NE(two.find("class=\"pass\">0.99x"), std::string::npos) << two;
  EXPECT_NE(two.find("class=\"fail\">1.40x"), std::string::npos) << two;
  EXPECT_NE(two.find("class=\"fail\">0.850"), std::string::npos) << two;
  EXPECT_EQ(step.find("class=\"pass\">1.000"), std::string::npos) << "single flow: Jain is not a goal";
  EXPECT_NE(step.find("<td>1.000</td>"), std::string::npos) << step;
  // Met: step 1 of 2, quiet 2 of 2, two flows 1 of 3.
  EXPECT_NE(html.find("Goals met: <b>4 of 7</b>"), std::string::npos);
  // The acc2 rows carry no verdict, and every path gets its chart; no URL but the SVG namespace.
  EXPECT_EQ(section(html, "step").find("<tr><td class=\"l\">acc2</td><td>0.650</td><td>1.00x</td>"),
            section(html, "step").find("<tr><td class=\"l\">acc2"));
  std::size_t charts = 0;
  for (auto at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) {
    ++charts;
  }
  EXPECT_EQ(charts, 3U);
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

}  // namespace
}  // namespace gw::reports
