// `gradwall sweep SCENARIO.json --set KEY=V1,V2 [--set ...] [--out DIR] [--jobs N]`: runs the
// grid of scenarios obtained by setting each KEY (a dotted JSON path into the scenario, array
// indices as numbers: `transport.cc`, `topology.wan.0.netem`) to each of its values, one
// `gradwall run` process per point, up to N at once (default: the cores), and writes one
// comparison: DIR/sweep.json and DIR/sweep.html. docs/guide/run.md.
#include <algorithm>
#include <boost/program_options.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "core/errors.h"
#include "core/json_reader.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/cli/run_points.h"
#include "harness/run/scenario.h"
#include "reports/html.h"

namespace gw {

namespace {

namespace fs = std::filesystem;
namespace po = boost::program_options;

struct Axis {
  std::string key;
  std::vector<std::string> path;
  std::vector<nlohmann::json> values;
  std::vector<std::string> texts;
};

Axis parse_set(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw InputError("--set", "",
                     "expected KEY=V1,V2,... (e.g. transport.cc=cubic,bbr), got \"" + text + "\"");
  }
  Axis a;
  a.key = text.substr(0, eq);
  std::string part;
  for (std::size_t i = 0; i <= a.key.size(); ++i) {
    if (i == a.key.size() || a.key[i] == '.') {
      if (part.empty()) {
        throw InputError("--set", "", "empty component in key \"" + a.key + "\"");
      }
      a.path.push_back(part);
      part.clear();
    } else {
      part += a.key[i];
    }
  }
  std::string values = text.substr(eq + 1) + ",";
  std::string v;
  for (const char c : values) {
    if (c != ',') {
      v += c;
      continue;
    }
    // A value that reads as JSON (a number, true, an object) is taken as such; anything else
    // is a string.
    nlohmann::json j = nlohmann::json::parse(v, nullptr, false);
    if (j.is_discarded() || j.is_string()) {
      j = v;
    }
    a.values.push_back(j);
    a.texts.push_back(v);
    v.clear();
  }
  return a;
}

void set_path(nlohmann::json& doc, const Axis& a, const nlohmann::json& value) {
  nlohmann::json* at = &doc;
  for (std::size_t i = 0; i < a.path.size(); ++i) {
    const std::string& p = a.path[i];
    const bool last = i + 1 == a.path.size();
    if (at->is_array()) {
      const bool digits = std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!digits || std::stoul(p) >= at->size()) {
        throw InputError("--set", "", "\"" + a.key + "\": \"" + p + "\" is not an index of that array");
      }
      at = &(*at)[std::stoul(p)];
    } else if (at->is_object()) {
      if (!last && !at->contains(p)) {
        throw InputError("--set", "", "\"" + a.key + "\": the scenario has no \"" + p + "\" there");
      }
      at = &(*at)[p];
    } else {
      throw InputError("--set", "", "\"" + a.key + "\" goes through a value that is not an object or array");
    }
  }
  *at = value;
}

// Every combination of the axes' values: one index per axis.
std::vector<std::vector<std::size_t>> grid(const std::vector<Axis>& axes) {
  std::vector<std::vector<std::size_t>> points{{}};
  for (const Axis& a : axes) {
    std::vector<std::vector<std::size_t>> grown;
    for (const auto& p : points) {
      for (std::size_t v = 0; v < a.values.size(); ++v) {
        auto q = p;
        q.push_back(v);
        grown.push_back(q);
      }
    }
    points = grown;
  }
  return points;
}

// One point of the grid: its settings, its scenario file and its output folder.
struct Point {
  std::string label;
  fs::path scenario;
  fs::path out;
};

// Writes OUT/point-I/scenario.json for every point of the grid, each validated before anything
// runs (InputError names the point's settings).
std::vector<Point> write_points(const nlohmann::json& base, const std::string& file,
                                const std::vector<Axis>& axes, const std::string& out) {
  std::vector<Point> points;
  const std::vector<std::vector<std::size_t>> indices = grid(axes);
  for (std::size_t i = 0; i < indices.size(); ++i) {
    nlohmann::json doc = base;
    Point p;
    for (std::size_t k = 0; k < axes.size(); ++k) {
      set_path(doc, axes[k], axes[k].values[indices[i][k]]);
      p.label += (p.label.empty() ? "" : " ") + axes[k].key + "=" + axes[k].texts[indices[i][k]];
    }
    p.out = fs::path(out) / ("point-" + std::to_string(i));
    fs::create_directories(p.out);
    absolute_profiles(doc, file);
    (void)parse_scenario(doc, file + " (" + p.label + ")");
    std::ofstream(p.out / "scenario.json") << doc.dump(2) << "\n";
    p.scenario = fs::absolute(p.out / "scenario.json");
    points.push_back(std::move(p));
  }
  return points;
}

// OUT/sweep.json (every point's verdict) and OUT/sweep.html (the points that ran, compared);
// returns the exit code: 0 every point passed, 1 one failed its checks, 3 one did not run.
int collect(const std::vector<Point>& points, const std::vector<int>& codes, const std::string& file,
            const std::string& out) {
  nlohmann::json sweep = {{"gradwall", "sweep/v1"}, {"scenario", file}, {"points", nlohmann::json::array()}};
  std::vector<nlohmann::json> reports_list;
  std::vector<std::string> ok_labels;
  int rc = kExitOk;
  for (std::size_t i = 0; i < points.size(); ++i) {
    nlohmann::json point = {
        {"label", points[i].label}, {"out", points[i].out.string()}, {"exit_code", codes[i]}};
    const fs::path report = points[i].out / "report.json";
    if ((codes[i] == 0 || codes[i] == 1) && fs::exists(report)) {
      const nlohmann::json r = read_json_file(report.string());
      point["verdict"] = r.value("verdict", "fail");
      reports_list.push_back(r);
      ok_labels.push_back(points[i].label);
    } else {
      point["verdict"] = "error";
      rc = kExitEnvironment;
    }
    if (codes[i] == 1 && rc == kExitOk) {
      rc = kExitCheckFailed;
    }
    std::cout << (point["verdict"] == "pass"   ? "PASS "
                  : point["verdict"] == "fail" ? "FAIL "
                                               : "ERROR ")
              << points[i].label << "  (" << points[i].out.string() << ", exit " << codes[i] << ")\n";
    sweep["points"].push_back(point);
  }
  std::ofstream(fs::path(out) / "sweep.json") << sweep.dump(2) << "\n";
  if (!reports_list.empty()) {
    std::ofstream(fs::path(out) / "sweep.html") << reports::write_html_compare(reports_list, ok_labels);
  }
  std::cout << "wrote " << (fs::path(out) / "sweep.json").string() << " and "
            << (fs::path(out) / "sweep.html").string() << "\n";
  return rc;
}

}  // namespace

int cmd_sweep(const Args& args) {
  po::options_description opts(
      "gradwall sweep SCENARIO.json --set KEY=V1,V2 [--set ...] [options]\n\nRuns the grid of the "
      "given settings (one `gradwall run` per point) and writes DIR/sweep.json and DIR/sweep.html.\n"
      "Exit 0 when every point passed its checks, 1 when one failed, 3 when a run crashed.\nOptions");
  std::string out = "gradwall-out/sweep";
  unsigned jobs = std::max(1U, std::thread::hardware_concurrency());
  opts.add_options()("help,h", "this help")("set", po::value<std::vector<std::string>>()->composing(),
                                            "KEY=V1,V2,... (KEY a dotted JSON path)")(
      "out", po::value<std::string>(&out)->default_value(out), "output folder")(
      "jobs", po::value<unsigned>(&jobs)->default_value(jobs), "runs at once")(
      "scenario", po::value<std::string>(), "scenario file");
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  if (!vm.count("scenario") || !vm.count("set")) {
    throw InputError("gradwall sweep", "", "give a scenario and at least one --set KEY=V1,V2");
  }
  const std::string file = vm["scenario"].as<std::string>();
  const nlohmann::json base = read_json_file(file);
  std::vector<Axis> axes;
  for (const std::string& s : vm["set"].as<std::vector<std::string>>()) {
    axes.push_back(parse_set(s));
  }
  fs::create_directories(out);
  const std::vector<Point> points = write_points(base, file, axes, out);
  std::vector<fs::path> scenarios;
  std::vector<fs::path> outs;
  for (const Point& p : points) {
    scenarios.push_back(p.scenario);
    outs.push_back(p.out);
  }
  return collect(points, run_points(scenarios, outs, jobs), file, out);
}

}  // namespace gw
