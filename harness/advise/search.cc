#include "harness/advise/search.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "core/errors.h"
#include "core/json_reader.h"
#include "harness/advise/score.h"
#include "harness/cli/run_points.h"
#include "harness/run/scenario.h"
#include "harness/run/workloads/reading.h"

namespace gw::advise {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::size_t kMaxPoints = 4096;

// A screening run in units of a full one: the pattern once instead of every iteration, and no
// unimpaired baseline (a full run simulates the job twice).
double screen_cost(const Scenario& s) {
  return 0.5 * static_cast<double>(s.workload.period) / static_cast<double>(s.workload.iterations);
}

std::vector<std::vector<std::size_t>> every_choice(const std::vector<Axis>& axes) {
  std::vector<std::vector<std::size_t>> out{{}};
  for (const Axis& a : axes) {
    std::vector<std::vector<std::size_t>> grown;
    for (const auto& c : out) {
      for (std::size_t v = 0; v < a.values.size() && grown.size() < kMaxPoints; ++v) {
        grown.push_back(c);
        grown.back().push_back(v);
      }
    }
    out = std::move(grown);
  }
  return out;
}

Measured read_run(const fs::path& dir, int code, bool full, const fs::path& root) {
  Measured m;
  m.full = full;
  m.exit_code = code;
  m.out = fs::relative(dir, root).string();
  const fs::path report = dir / "report.json";
  if ((code != 0 && code != 1) || !fs::exists(report)) {
    m.verdict = "error";
    return m;
  }
  const json r = read_json_file(report.string());
  m.verdict = r.value("verdict", "fail");
  const json& t = r["gpu"]["totals"];
  m.gpu_idle_fraction = t.value("gpu_idle_fraction", 1.0);
  m.idle_ns = t.value("exposed_comm_ns", 0.0) / std::max(1.0, t.value("iterations", 1.0));
  if (r["gpu"].contains("slowdown_vs_ideal") && r["gpu"]["slowdown_vs_ideal"].is_number()) {
    m.slowdown = r["gpu"]["slowdown_vs_ideal"].get<double>();
  }
  if (r.contains("collectives") && r["collectives"].contains("ops")) {
    for (const json& op : r["collectives"]["ops"]) {
      m.cct_p99_ns = std::max(m.cct_p99_ns, op["cct_ns"].value("p99", 0.0));
    }
  }
  double into = 0, dropped = 0;
  for (const json& h : r.value("paths", json::array())) {
    if (h.value("name", "").rfind("wan ", 0) == 0) {
      into += h.value("packets_in", 0.0);
      dropped += h.value("dropped", 0.0);
    }
  }
  m.wan_drop_fraction = into > 0 ? dropped / into : 0;
  for (const json& c : r["checks"]) {
    m.checks.emplace_back(c.value("name", ""), c.value("passed", false));
  }
  return m;
}

// Runs the points in the simulator (screening runs are the scenario's pattern once, no
// warm-up), each in OUT/runs/NNN, `jobs` at once.
class Runner {
 public:
  Runner(Search& s, const SearchOptions& o) : s_(s), o_(o) {}

  void run(const std::vector<std::size_t>& which, bool full) {
    std::vector<std::pair<std::size_t, bool>> work;
    for (const std::size_t i : which) {
      work.emplace_back(i, full);
    }
    run(work);
  }

  // Each (point, full) not run that way yet, all at once.
  void run(const std::vector<std::pair<std::size_t, bool>>& work) {
    std::vector<fs::path> files;
    std::vector<fs::path> outs;
    std::vector<std::pair<std::size_t, bool>> todo;
    for (const auto& [i, full] : work) {
      const Point& p = s_.points[i];
      if (full ? p.best_full() != nullptr : p.screen() != nullptr) {
        continue;
      }
      json doc = p.scenario;
      const Scenario sc = parse_scenario(doc, p.label);
      if (!full) {
        doc.merge_patch(
            {{"workload", {{"iterations", sc.workload.period}}}, {"results", {{"warmup_iterations", 0}}}});
      }
      std::ostringstream name;
      name << "run-" << std::setw(3) << std::setfill('0') << next_++;
      const fs::path dir = o_.out / "runs" / name.str();
      fs::create_directories(dir);
      std::ofstream(dir / "scenario.json") << doc.dump(2) << "\n";
      files.push_back(fs::absolute(dir / "scenario.json"));
      outs.push_back(dir);
      todo.emplace_back(i, full);
      s_.runs_used += full ? 1.0 : screen_cost(sc);
    }
    // Screening runs rank on idle time alone: no unimpaired baseline (half their cost).
    std::vector<std::vector<std::string>> extra;
    for (const auto& [i, full] : todo) {
      extra.push_back(full ? std::vector<std::string>{} : std::vector<std::string>{"--no-ideal"});
    }
    const std::vector<int> codes = run_points_each(files, outs, o_.jobs, extra, true);
    for (std::size_t k = 0; k < todo.size(); ++k) {
      s_.points[todo[k].first].runs.push_back(read_run(outs[k], codes[k], todo[k].second, o_.out));
    }
  }

  bool budget_left(double units) const { return s_.runs_used + units <= o_.budget + 1e-9; }

 private:
  Search& s_;
  const SearchOptions& o_;
  std::size_t next_ = 0;
};

std::vector<std::size_t> without_cc(std::vector<std::size_t> choice) {
  choice[0] = 0;
  return choice;
}

// Every point of the space that the scenario's checks accept, with its prediction.
void build_points(Search& s, const json& scenario, const std::string& file, const SearchOptions& o) {
  json base = scenario;
  absolute_profiles(base, file);
  s.axes = remedy_space(base, file, o.out / "profiles");
  if (!o.axes.empty()) {
    std::erase_if(s.axes, [&](const Axis& a) {
      return a.name != "cc" && std::find(o.axes.begin(), o.axes.end(), a.name) == o.axes.end();
    });
    if (std::find(o.axes.begin(), o.axes.end(), "cc") == o.axes.end()) {
      s.axes[0].values.resize(1);  // the cc axis stays first, with only the scenario's own
    }
  }
  for (const std::vector<std::size_t>& choice : every_choice(s.axes)) {
    Point p{choice, label_of(s.axes, choice), apply(base, s.axes, choice), {}, 0, 0, {}};
    for (std::size_t k = 0; k < choice.size(); ++k) {
      p.added_gbps += s.axes[k].values[choice[k]].added_gbps;
    }
    try {
      const Scenario sc = parse_scenario(p.scenario, file + " (" + p.label + ")");
      p.predicted = predict(sc);
      p.ranks = static_cast<double>(total_hosts(sc.topology));
      s.points.push_back(std::move(p));
    } catch (const InputError& e) {
      s.refused.push_back(p.label + ": " + e.reason());
    }
  }
  if (s.points.empty() || s.points[0].label != label_of(s.axes, std::vector<std::size_t>(s.axes.size(), 0))) {
    throw InputError(file, "$",
                     "the scenario itself cannot be timed: " + (s.refused.empty() ? "" : s.refused[0]));
  }
}

// Step 1's points: settings other than the congestion control, with the scenario's own; the
// scenario first, then the best predictions within prune_factor of the best one.
std::vector<std::size_t> promising(const Search& s, const CostSpec& cost, const SearchOptions& o) {
  std::vector<std::size_t> own_cc;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    if (s.points[i].choice[0] == 0) {
      own_cc.push_back(i);
    }
  }
  std::stable_sort(own_cc.begin(), own_cc.end(), [&](std::size_t a, std::size_t b) {
    return predicted_score(s.points[a], cost) < predicted_score(s.points[b], cost);
  });
  const double best_prediction = predicted_score(s.points[own_cc.front()], cost);
  std::vector<std::size_t> first{0};
  const std::size_t groups = std::max<std::size_t>(2, static_cast<std::size_t>(o.budget / 3));
  for (const std::size_t i : own_cc) {
    if (first.size() >= groups || predicted_score(s.points[i], cost) > best_prediction * o.prune_factor) {
      break;
    }
    if (i != 0) {
      first.push_back(i);
    }
  }
  return first;
}

// The points that differ from `best` only in the congestion control, `best` last.
std::vector<std::size_t> controllers_of(const Search& s, std::size_t best) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    if (i != best && without_cc(s.points[i].choice) == without_cc(s.points[best].choice)) {
      out.push_back(i);
    }
  }
  out.push_back(best);
  return out;
}

}  // namespace

const Measured* Point::best_full() const {
  for (const Measured& m : runs) {
    if (m.full) {
      return &m;
    }
  }
  return nullptr;
}

const Measured* Point::screen() const {
  for (const Measured& m : runs) {
    if (!m.full) {
      return &m;
    }
  }
  return nullptr;
}

Search search(const json& scenario, const std::string& file, const SearchOptions& o) {
  Search s;
  build_points(s, scenario, file, o);
  const Scenario own = parse_scenario(s.points[0].scenario, file);
  const CostSpec& cost = own.cost;
  Runner runner(s, o);
  // 1. The promising settings at full length. When the model leaves one, step 2's screening
  //    runs go with it (they do not depend on its outcome).
  const std::vector<std::size_t> first = promising(s, cost, o);
  std::vector<std::pair<std::size_t, bool>> batch;
  for (const std::size_t i : first) {
    batch.emplace_back(i, true);
  }
  const double screen_units = screen_cost(own);
  std::vector<std::size_t> ccs = controllers_of(s, first.front());
  const bool together =
      first.size() == 1 && ccs.size() > 1 &&
      runner.budget_left(1 + static_cast<double>(ccs.size()) * screen_units + ccs.size() / 3.0);
  if (together) {
    for (const std::size_t i : ccs) {
      batch.emplace_back(i, false);
    }
  }
  runner.run(batch);
  // 2. On the best of them, every congestion control: a screening run each (the scenario's
  //    pattern once, no warm-up), then the best third at full length (successive halving,
  //    eta = 3).
  std::size_t best = first.front();
  for (const std::size_t i : first) {
    if (measured_rank(s.points[i], *s.points[i].best_full(), cost) <
        measured_rank(s.points[best], *s.points[best].best_full(), cost)) {
      best = i;
    }
  }
  ccs = controllers_of(s, best);
  if (ccs.size() > 1 &&
      (together || runner.budget_left(static_cast<double>(ccs.size()) * screen_units + ccs.size() / 3.0))) {
    runner.run(ccs, false);
    std::stable_sort(ccs.begin(), ccs.end(), [&](std::size_t a, std::size_t b) {
      return measured_rank(s.points[a], *s.points[a].screen(), cost) <
             measured_rank(s.points[b], *s.points[b].screen(), cost);
    });
    ccs.resize((ccs.size() + 2) / 3);
    runner.run(ccs, true);
  }
  return s;
}

}  // namespace gw::advise
