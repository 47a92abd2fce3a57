// `gradwall sweep SCENARIO.json --set KEY=V1,V2 [--set ...] [--out DIR] [--jobs N]`: runs the
// grid of scenarios obtained by setting each KEY (a dotted JSON path into the scenario, array
// indices as numbers: `transport.cc`, `topology.wan.0.netem`) to each of its values, one
// `gradwall run` process per point, up to N at once (default: the cores), and writes one
// comparison: DIR/sweep.json and DIR/sweep.html. docs/guide/run.md.
#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdlib>
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

// Profiles the scenario names by a file path are copied into OUT/profiles/ and named relative
// to the point's folder ("../profiles/NAME"), so OUT runs on any machine; shipped profiles stay
// names (each machine resolves them from its own installation).
void portable_profiles(nlohmann::json& doc, const std::string& file, const fs::path& out) {
  if (!doc.contains("topology") || !doc["topology"].contains("wan") || !doc["topology"]["wan"].is_array()) {
    return;
  }
  for (auto& link : doc["topology"]["wan"]) {
    if (!link.is_object() || !link.contains("profile") || !link["profile"].is_string()) {
      continue;
    }
    const std::string name = link["profile"].get<std::string>();
    const fs::path beside = fs::path(file).parent_path() / name;
    const fs::path given(name);
    const fs::path src = given.is_absolute() ? given : beside;
    if (!fs::is_regular_file(src)) {
      continue;  // a shipped name
    }
    fs::create_directories(out / "profiles");
    fs::copy_file(src, out / "profiles" / src.filename(), fs::copy_options::overwrite_existing);
    link["profile"] = "../profiles/" + src.filename().string();
  }
}

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
    portable_profiles(doc, file, out);
    try {
      (void)parse_scenario(doc, (p.out / "scenario.json").string());
    } catch (const InputError& e) {
      throw InputError(file + " (" + p.label + ")", e.path(), e.reason());
    }
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
        {"label", points[i].label}, {"out", points[i].out.filename().string()}, {"exit_code", codes[i]}};
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

// DIR/manifest.json: the plan's scenario and points, paths relative to DIR.
void write_manifest(const std::vector<Point>& points, const std::string& file, const fs::path& dir) {
  nlohmann::json m = {{"gradwall", "sweep-plan/v1"}, {"scenario", file}, {"points", nlohmann::json::array()}};
  for (const Point& p : points) {
    m["points"].push_back({{"label", p.label}, {"dir", p.out.filename().string()}});
  }
  std::ofstream(dir / "manifest.json") << m.dump(2) << "\n";
}

// The plan in DIR: its scenario file name and its points, with DIR's own paths.
std::pair<std::string, std::vector<Point>> read_manifest(const fs::path& dir) {
  const nlohmann::json m = read_json_file((dir / "manifest.json").string());
  if (m.value("gradwall", "") != "sweep-plan/v1" || !m.contains("points") || !m["points"].is_array()) {
    throw InputError((dir / "manifest.json").string(), "$.gradwall", "not a sweep plan (sweep-plan/v1)");
  }
  std::vector<Point> points;
  for (const nlohmann::json& p : m["points"]) {
    const fs::path out = dir / p.at("dir").get<std::string>();
    points.push_back({p.at("label").get<std::string>(), fs::absolute(out / "scenario.json"), out});
  }
  return {m.value("scenario", ""), points};
}

void write_exit_code(const fs::path& point_dir, int code) {
  std::ofstream(point_dir / "exit_code") << code << "\n";
}

// A point's recorded exit code; -1 when it has not run.
int read_exit_code(const fs::path& point_dir) {
  std::ifstream in(point_dir / "exit_code");
  int code = -1;
  return in >> code ? code : -1;
}

// `--point DIR [I]`: I, or the array index a batch system gives the task.
std::size_t point_index(const std::vector<std::string>& v, std::size_t count) {
  std::string text = v.size() > 1 ? v[1] : "";
  for (const char* env : {"JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"}) {
    if (text.empty() && std::getenv(env) != nullptr) {
      text = std::getenv(env);
    }
  }
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      text.size() > 9 || std::stoul(text) >= count) {
    throw InputError("--point", "",
                     "a point index below " + std::to_string(count) +
                         " (or JOB_COMPLETION_INDEX / SLURM_ARRAY_TASK_ID in the environment), got \"" +
                         text + "\"");
  }
  return std::stoul(text);
}

// Files a batch system runs the plan with (`--emit`): a Kubernetes Indexed Job, an sbatch array
// script, or GitHub Actions matrices of at most 256 jobs each (the limit of one matrix).
void emit(const std::string& what, const fs::path& dir, std::size_t n) {
  const std::string last = std::to_string(n - 1);
  if (what == "k8s") {
    std::ofstream(dir / "sweep-job.yaml")
        << "# gradwall sweep: one pod per point; mount this plan folder at /plan (e.g. a PVC).\n"
           "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: gradwall-sweep\nspec:\n  completionMode: "
           "Indexed\n"
           "  completions: "
        << n << "\n  parallelism: " << std::min<std::size_t>(n, 16)
        << "\n  backoffLimitPerIndex: 1\n  maxFailedIndexes: " << n
        << "\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: point\n"
           "          image: gradwall:latest\n          command: [\"gradwall\", \"sweep\", \"--point\", "
           "\"/plan\"]\n"
           "          volumeMounts:\n            - {name: plan, mountPath: /plan}\n      volumes:\n"
           "        - name: plan\n          persistentVolumeClaim: {claimName: gradwall-sweep-plan}\n";
  } else if (what == "slurm") {
    // Slurm runs a copy of the script from its spool: the plan is the folder it was submitted from.
    std::ofstream(dir / "sweep.sbatch")
        << "#!/bin/bash\n#SBATCH --job-name=gradwall-sweep\n#SBATCH --array=0-" << last
        << "\n#SBATCH --ntasks=1\n#SBATCH --output=slurm-%A_%a.out\n"
           "# submit from the plan folder: cd DIR && sbatch sweep.sbatch\n"
           "gradwall sweep --point \"$SLURM_SUBMIT_DIR\" \"$SLURM_ARRAY_TASK_ID\"\n";
  } else if (what == "gha") {
    for (std::size_t chunk = 0; chunk * 256 < n; ++chunk) {
      nlohmann::json m = {{"point", nlohmann::json::array()}};
      for (std::size_t i = chunk * 256; i < std::min(n, (chunk + 1) * 256); ++i) {
        m["point"].push_back(i);
      }
      std::ofstream(dir / ("gha-matrix-" + std::to_string(chunk) + ".json")) << m.dump() << "\n";
    }
  } else {
    throw InputError("--emit", "", "k8s, slurm or gha, got \"" + what + "\"");
  }
}

}  // namespace

int cmd_sweep(const Args& args) {
  po::options_description opts(
      "gradwall sweep SCENARIO.json --set KEY=V1,V2 [--set ...] [options]\n"
      "gradwall sweep SCENARIO.json --set ... --plan DIR [--emit k8s|slurm|gha]\n"
      "gradwall sweep --point DIR [I]\ngradwall sweep --collect DIR\n\nRuns the grid of the "
      "given settings (one `gradwall run` per point) and writes DIR/sweep.json and DIR/sweep.html; or "
      "plans it in DIR, runs one point of a plan (I, else JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID), or "
      "collects a plan's points.\nExit 0 when every point passed its checks, 1 when one failed, 3 when a run "
      "crashed or did not run.\nOptions");
  std::string out = "gradwall-out/sweep";
  unsigned jobs = std::max(1U, std::thread::hardware_concurrency());
  opts.add_options()("help,h", "this help")("set", po::value<std::vector<std::string>>()->composing(),
                                            "KEY=V1,V2,... (KEY a dotted JSON path)")(
      "out", po::value<std::string>(&out)->default_value(out), "output folder")(
      "jobs", po::value<unsigned>(&jobs)->default_value(jobs), "runs at once")(
      "plan", po::value<std::string>(), "write the points and a manifest into DIR; run nothing")(
      "emit", po::value<std::vector<std::string>>()->composing(), "with --plan: k8s, slurm or gha")(
      "point", po::value<std::vector<std::string>>()->multitoken(),
      "DIR [I]: run point I of the plan in DIR")(
      "collect", po::value<std::string>(), "DIR: merge the plan's points into DIR/sweep.json and sweep.html")(
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
  if (vm.count("point")) {
    const std::vector<std::string> v = vm["point"].as<std::vector<std::string>>();
    const auto [file, points] = read_manifest(v.at(0));
    const Point& p = points.at(point_index(v, points.size()));
    const int code = run_points({p.scenario}, {p.out}, 1).front();
    write_exit_code(p.out, code);
    return code;
  }
  if (vm.count("collect")) {
    const fs::path dir = vm["collect"].as<std::string>();
    const auto [file, points] = read_manifest(dir);
    std::vector<int> codes;
    for (const Point& p : points) {
      codes.push_back(read_exit_code(p.out));
    }
    return collect(points, codes, file, dir.string());
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
  const bool plan = vm.count("plan") > 0;
  if (plan) {
    out = vm["plan"].as<std::string>();
  }
  fs::create_directories(out);
  const std::vector<Point> points = write_points(base, file, axes, out);
  write_manifest(points, fs::path(file).filename().string(), out);
  if (plan) {
    for (const std::string& e :
         vm.count("emit") ? vm["emit"].as<std::vector<std::string>>() : std::vector<std::string>{}) {
      emit(e, out, points.size());
    }
    std::cout << "planned " << points.size() << " points in " << out
              << ": run each with `gradwall sweep --point " << out << " I` (I = 0.." << points.size() - 1
              << "), then `gradwall sweep --collect " << out << "`\n";
    return kExitOk;
  }
  std::vector<fs::path> scenarios;
  std::vector<fs::path> outs;
  for (const Point& p : points) {
    scenarios.push_back(p.scenario);
    outs.push_back(p.out);
  }
  const std::vector<int> codes = run_points(scenarios, outs, jobs);
  for (std::size_t i = 0; i < points.size(); ++i) {
    write_exit_code(points[i].out, codes[i]);
  }
  return collect(points, codes, fs::path(file).filename().string(), out);
}

}  // namespace gw
