// `gradwall compare BASE.json NEW.json [--tolerance PCT] [--json]`: a baseline regression
// check between two runs. Each file is a report.json or a result.json (its report is computed).
// Exit 0 when nothing regressed beyond the tolerance, 1 when something did. docs/reports.md.
#include <boost/program_options.hpp>
#include <iostream>

#include "core/errors.h"
#include "core/json_reader.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "reports/compare.h"
#include "reports/report.h"

namespace gw {

namespace {

namespace po = boost::program_options;

nlohmann::json load_report(const std::string& file) {
  const nlohmann::json doc = read_json_file(file);
  const std::string kind = doc.is_object() ? doc.value("gradwall", "") : "";
  if (kind == "report/v1") {
    return doc;
  }
  if (kind == "result/v1") {
    return reports::build_report(doc, file);
  }
  throw InputError(file, "$.gradwall",
                   "expected a report (\"report/v1\") or a result (\"result/v1\"), got \"" + kind + "\"");
}

}  // namespace

int cmd_compare(const Args& args) {
  po::options_description opts(
      "gradwall compare BASE.json NEW.json [options]\n\nCompares two runs (report.json or "
      "result.json): CCT percentiles and bus bandwidth per op, GPU idle fraction, slowdown,\n"
      "goodput per flow. Exit 1 when a metric is worse than BASE by more than the tolerance.\n"
      "Options");
  double tolerance = 10;
  opts.add_options()("help,h", "this help")(
      "tolerance", po::value<double>(&tolerance)->default_value(tolerance), "allowed worsening, percent")(
      "json", "print the comparison as JSON")("files", po::value<std::vector<std::string>>(), "BASE NEW");
  po::positional_options_description pos;
  pos.add("files", 2);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  if (!vm.count("files") || vm["files"].as<std::vector<std::string>>().size() != 2) {
    throw InputError("gradwall compare", "", "give two files: BASE.json NEW.json");
  }
  if (!(tolerance >= 0 && tolerance <= 1000)) {
    throw InputError("--tolerance", "", "must be in [0, 1000] percent");
  }
  const auto& files = vm["files"].as<std::vector<std::string>>();
  const reports::Comparison c =
      reports::compare(load_report(files[0]), load_report(files[1]), tolerance, files[0], files[1]);
  if (vm.count("json")) {
    std::cout << reports::to_json(c).dump(2) << "\n";
  } else {
    std::cout << "base " << files[0] << "\nnew  " << files[1] << "\ntolerance " << tolerance << " %\n\n"
              << reports::compare_table_md(c) << "\n"
              << (c.any_regression ? "regression beyond the tolerance\n" : "no regression\n");
  }
  return c.any_regression ? kExitCheckFailed : kExitOk;
}

}  // namespace gw
