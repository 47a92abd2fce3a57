// The text forms of a report: JUnit validated against tests/junit.xsd, report.json against
// reports/report.schema.json, the Markdown summary and the nccl-tests style table.
#include <gtest/gtest.h>

#include "reports/report.h"
#include "reports/writers.h"
#include "result_fixture.h"
#include "tool_util.h"

namespace gw::reports {
namespace {

using nlohmann::json;
using testing::collective_result;
using testing::flow_result;

json failing_report() {
  json result = collective_result();
  result["scenario"] = "ddp <wan> & \"friends\"";
  result["scenario_json"]["thresholds"] = {{"cct_p99_ms_max", 50}, {"busbw_GBps_min", 5}};
  return build_report(result);
}

std::size_t occurrences(const std::string& text, const std::string& word) {
  std::size_t n = 0;
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    ++n;
  }
  return n;
}

TEST(JunitWriter, OneTestcasePerCheckAndAFailureCarryingTheReason) {
  const json report = failing_report();
  const std::string xml = write_junit(report);
  EXPECT_EQ(occurrences(xml, "<testsuite "), 1u);
  EXPECT_EQ(occurrences(xml, "<testcase "), 3u);  // two thresholds + accounting_balanced
  EXPECT_EQ(occurrences(xml, "<failure "), 1u);
  EXPECT_NE(xml.find("tests=\"3\" failures=\"1\""), std::string::npos);
  EXPECT_NE(xml.find("name=\"ddp &lt;wan&gt; &amp; &quot;friends&quot;\""), std::string::npos);
  EXPECT_NE(xml.find("message=\"all_gather/ring/1000000/8: 0.875 &lt; 5\""), std::string::npos) << xml;
}

TEST(JunitWriter, ValidatesAgainstTheJunitSchema) {
  if (!testing::tool_works("xmllint --version")) {
    GTEST_SKIP() << "xmllint not installed";
  }
  const std::vector<json> reports = {failing_report(), build_report(flow_result())};
  const testing::TempDir tmp;
  const auto xml = tmp.file("junit.xml", write_junit(reports));
  const auto log = tmp.file("xmllint.log", "");
  const int rc =
      testing::run("xmllint --noout --schema " GW_SOURCE_DIR "/tests/junit.xsd " + xml.string(), log);
  EXPECT_EQ(rc, 0) << testing::slurp(log);
  EXPECT_EQ(occurrences(testing::slurp(xml), "<testsuite "), 2u);
}

TEST(ReportSchema, ReportsValidateAgainstReportSchema) {
  if (!testing::tool_works("python3 -c 'import jsonschema'")) {
    GTEST_SKIP() << "python3 jsonschema not installed";
  }
  const testing::TempDir tmp;
  json no_baseline = collective_result();
  no_baseline["baseline"] = nullptr;
  for (const json& report : {failing_report(), build_report(flow_result()), build_report(no_baseline),
                             build_report(testing::background_result())}) {
    const auto file = tmp.file("report.json", write_report_json(report));
    const auto log = tmp.file("jsonschema.log", "");
    const std::string script =
        "import json,sys,jsonschema; s=json.load(open(sys.argv[1])); "
        "jsonschema.Draft202012Validator.check_schema(s); "
        "jsonschema.validate(json.load(open(sys.argv[2])), s, cls=jsonschema.Draft202012Validator)";
    const int rc = testing::run(
        "python3 -c \"" + script + "\" " GW_SOURCE_DIR "/reports/report.schema.json " + file.string(), log);
    EXPECT_EQ(rc, 0) << testing::slurp(log);
  }
}

TEST(SummaryMarkdown, VerdictChecksCollectivesAndGpuCost) {
  const std::string md = write_summary_md(failing_report());
  EXPECT_NE(md.find("**FAIL**"), std::string::npos);
  EXPECT_NE(md.find("| busbw_GBps_min | **FAIL** | 0.875 | 5 |"), std::string::npos) << md;
  EXPECT_NE(
      md.find("| all_reduce | ring | 95.37 MiB | 8 | 10 | 12.5 ms | 40 ms | 40 ms | - | 14.00 | 1.25 |"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("GPU idle fraction: 0.200"), std::string::npos) << md;
  EXPECT_NE(md.find("$368640 and 103219 kWh over 720 h"), std::string::npos) << md;
}

TEST(SummaryMarkdown, FlowWorkloadListsFlows) {
  const std::string md = write_summary_md(build_report(flow_result()));
  EXPECT_NE(md.find("PASS"), std::string::npos);
  EXPECT_NE(md.find("### Flows"), std::string::npos);
  EXPECT_NE(md.find("| 1 | a/1 | b/1 | dcqcn | 2 Gbit/s | 2.5 ms | 8 ms | 30 |"), std::string::npos) << md;
  EXPECT_EQ(md.find("### GPU idle"), std::string::npos);
}

TEST(SummaryMarkdown, BackgroundTrafficByClass) {
  const std::string md = write_summary_md(build_report(testing::background_result()));
  EXPECT_NE(md.find("### Background traffic"), std::string::npos) << md;
  EXPECT_NE(md.find("| storage | 1 | 2 Gbit/s | "), std::string::npos) << md;
  EXPECT_EQ(write_summary_md(build_report(flow_result())).find("### Background traffic"), std::string::npos);
}

TEST(NcclTable, OneRowPerOpWithMedianTimeAndBandwidths) {
  const std::string table = nccl_table(failing_report());
  EXPECT_EQ(table.rfind("#", 0), 0u);
  for (const char* column : {"size(B)", "count", "op", "algorithm", "time(us)", "algbw(GB/s)", "busbw(GB/s)",
                             "predicted(us)", "ratio"}) {
    EXPECT_NE(table.find(column), std::string::npos) << column;
  }
  EXPECT_NE(table.find("100000000       10       all_reduce       ring     12500.00         8.00        14.00"
                       "       10000.00     1.25"),
            std::string::npos)
      << table;
  EXPECT_NE(
      table.find("all_gather       ring      1000.00         1.00         0.88              -        -"),
      std::string::npos)
      << table;
}

TEST(ReportFormats, RegistryFindsEachFormatByName) {
  for (const char* name : {"json", "junit", "md", "nccl", "html"}) {
    ASSERT_NE(find_report_format(name), nullptr) << name;
  }
  EXPECT_EQ(find_report_format("pdf"), nullptr);
  const json result = collective_result();
  const json report = build_report(result);
  EXPECT_EQ(find_report_format("junit")->write(report, result), write_junit(report));
}

}  // namespace
}  // namespace gw::reports
