#include "harness/advise/advice.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "core/json_reader.h"
#include "core/text_file.h"
#include "core/units.h"
#include "generators/collectives/nccl.h"
#include "harness/advise/predict.h"
#include "harness/advise/score.h"
#include "reports/advice_html.h"
#include "reports/compare.h"
#include "reports/text.h"

namespace gw::advise {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json number_or_null(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

json settings_of(const Search& s, const Point& p) {
  json out = json::object();
  for (std::size_t k = 0; k < s.axes.size(); ++k) {
    const std::string& l = s.axes[k].values[p.choice[k]].label;
    out[s.axes[k].name] = l.empty() ? "as the scenario says" : l;
  }
  return out;
}

json measured_json(const Measured& m) {
  json checks = json::array();
  for (const auto& [name, passed] : m.checks) {
    checks.push_back({{"name", name}, {"passed", passed}});
  }
  return {{"run", m.out},
          {"exit_code", m.exit_code},
          {"verdict", m.verdict},
          {"gpu_idle_fraction", m.gpu_idle_fraction},
          {"idle_ns_per_iteration", m.idle_ns},
          {"slowdown_vs_ideal", number_or_null(m.slowdown)},
          {"cct_p99_ns", m.cct_p99_ns},
          {"wan_drop_fraction", m.wan_drop_fraction},
          {"checks", checks}};
}

json point_json(const Search& s, const Point& p, const CostSpec& cost) {
  json e = {{"change", p.label},
            {"settings", settings_of(s, p)},
            {"predicted_iteration_ns", p.predicted.iteration.count()},
            {"predicted_idle_ns", p.predicted.idle().count()},
            {"added_wan_gbps", p.added_gbps}};
  if (const Measured* m = p.best_full()) {
    e["measured"] = measured_json(*m);
    if (priced(cost)) {
      const MonthlyCost c = monthly_cost(m->gpu_idle_fraction, p.added_gbps, cost, p.ranks);
      e["usd_per_month"] = {{"idle_gpus", c.idle_gpus}, {"wan", c.wan}, {"total", c.total()}};
    } else {
      e["usd_per_month"] = nullptr;
    }
  }
  if (const Measured* m = p.screen()) {
    e["screening"] = measured_json(*m);
  }
  return e;
}

// Slowdown (or idle time) against monthly cost (or added capacity): the points no other point
// beats on both.
std::vector<bool> pareto(const std::vector<json>& entries) {
  auto xy = [](const json& e) {
    const bool priced_point = e["usd_per_month"].is_object();
    const double x =
        priced_point ? e["usd_per_month"]["total"].get<double>() : e["added_wan_gbps"].get<double>();
    const json& m = e["measured"];
    const double y = priced_point && m["slowdown_vs_ideal"].is_number()
                         ? m["slowdown_vs_ideal"].get<double>()
                         : m["idle_ns_per_iteration"].get<double>();
    return std::pair{x, y};
  };
  std::vector<bool> front(entries.size(), false);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i]["measured"]["verdict"] == "error") {
      continue;
    }
    // Plain variables: clang 14 (Debian 12) cannot capture structured bindings in a lambda.
    const std::pair<double, double> p = xy(entries[i]);
    const double x = p.first;
    const double y = p.second;
    front[i] = std::none_of(entries.begin(), entries.end(), [&](const json& o) {
      if (o["measured"]["verdict"] == "error") {
        return false;
      }
      const auto [ox, oy] = xy(o);
      return ox <= x && oy <= y && (ox < x || oy < y);
    });
  }
  return front;
}

json capacity_json(const std::vector<CapacityAnswer>& answers) {
  json out = json::array();
  for (const CapacityAnswer& a : answers) {
    json steps = json::array();
    for (const auto& [f, v] : a.steps) {
      steps.push_back({{"factor", f}, {"verdict", v}});
    }
    out.push_back({{"settings", a.settings},
                   {"least_factor", number_or_null(a.factor)},
                   {"wan_gbps", a.factor ? json(a.gbps) : json(nullptr)},
                   {"largest_tried", a.largest_tried},
                   {"steps", steps}});
  }
  return out;
}

json space_json(const Search& s) {
  json axes = json::array();
  for (const Axis& a : s.axes) {
    json values = json::array();
    for (const Value& v : a.values) {
      values.push_back(v.label.empty() ? "as the scenario says" : v.label);
    }
    axes.push_back({{"axis", a.name}, {"values", values}, {"analytic", !a.simulated_only}});
  }
  return axes;
}

// The first choice against the scenario on the metrics both have: a changed algorithm or bucket
// size renames the op kinds, and a metric that is only renamed is not a regression.
reports::Comparison applied_comparison(const json& base, const json& next) {
  reports::Comparison c = reports::compare(base, next, 10);
  std::erase_if(c.rows, [](const reports::CompareRow& r) { return !r.base || !r.next; });
  c.any_regression =
      std::any_of(c.rows.begin(), c.rows.end(), [](const reports::CompareRow& r) { return r.regression; });
  return c;
}

json applied_json(const Search& s, const json& first, const fs::path& out) {
  const Measured* orig = s.points[0].best_full();
  if (orig == nullptr || orig->verdict == "error" || first["measured"]["verdict"] == "error") {
    return nullptr;
  }
  const json base = read_json_file((out / orig->out / "report.json").string());
  const json next =
      read_json_file((out / first["measured"]["run"].get<std::string>() / "report.json").string());
  return {{"original_run", orig->out},
          {"recommended_run", first["measured"]["run"]},
          {"comparison", reports::to_json(applied_comparison(base, next))}};
}

json caveats(const std::vector<json>& ranked) {
  json out = json::array();
  if (!ranked.empty() && ranked.front()["settings"].value("sync", "").rfind("diloco", 0) == 0) {
    out.push_back(
        "DiLoCo trades WAN time for convergence the simulator does not see: gradwall times the "
        "communication, not the learning. Validate the inner steps (H) on the real model "
        "(docs/scenarios.md \"diloco\").");
  }
  out.push_back(
      "The analytic model only prunes; every ranked change ran in the simulator. Confirm the first "
      "choice on the bench (gradwall run --mode live) before acting on it.");
  return out;
}

}  // namespace

Advice build_advice(const Search& s, const Scenario& original, const std::string& file,
                    const std::vector<CapacityAnswer>& capacity, const fs::path& out) {
  Advice a;
  const CostSpec& cost = original.cost;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    if (s.points[i].best_full() != nullptr) {
      a.ranking.push_back(i);
    }
  }
  std::stable_sort(a.ranking.begin(), a.ranking.end(), [&](std::size_t x, std::size_t y) {
    return measured_rank(s.points[x], *s.points[x].best_full(), cost) <
           measured_rank(s.points[y], *s.points[y].best_full(), cost);
  });
  std::vector<json> ranked;
  for (const std::size_t i : a.ranking) {
    ranked.push_back(point_json(s, s.points[i], cost));
  }
  const std::vector<bool> front = pareto(ranked);
  for (std::size_t k = 0; k < ranked.size(); ++k) {
    ranked[k]["pareto"] = static_cast<bool>(front[k]);
  }
  json screened = json::array();
  for (const Point& p : s.points) {
    if (p.best_full() == nullptr && p.screen() != nullptr) {
      screened.push_back(point_json(s, p, cost));
    }
  }
  const bool passes = !ranked.empty() && ranked.front()["measured"]["verdict"] == "pass";
  a.doc = {{"gradwall", "advice/v1"},
           {"scenario", fs::path(file).filename().string()},
           {"name", original.name},
           {"seed", original.seed},
           {"ranked_on", priced(cost) ? "usd_per_month" : "idle_ns_per_iteration"},
           {"space", space_json(s)},
           {"points_in_space", s.points.size() + s.refused.size()},
           {"points_refused", s.refused},
           {"simulated_runs", s.runs_used},
           {"ranking", ranked},
           {"screened_only", screened},
           {"original", point_json(s, s.points[0], cost)},
           {"first_choice", ranked.empty() ? json(nullptr) : ranked.front()},
           {"a_change_passes", passes},
           {"capacity", capacity_json(capacity)},
           {"applied", ranked.empty() ? json(nullptr) : applied_json(s, ranked.front(), out)},
           {"caveats", caveats(ranked)}};
  return a;
}

}  // namespace gw::advise

namespace gw::advise {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The settings of the first choice, read back from its scenario: what a user pastes.
struct Settings {
  std::string algorithm = "ring";
  int channels = 1;
  std::uint64_t buffsize = 4ull << 20;  // NCCL_BUFFSIZE's default
  std::optional<double> bucket_cap_mb;
  std::string sync = "every step";
  std::string cc;
  std::string protocol = "simple";
  std::uint32_t qps_per_connection = 1;
};

Settings settings_of_scenario(const Scenario& s, const json& doc) {
  Settings out;
  const json& w = doc["workload"];
  const bool coll = s.workload.kind == "collective";
  out.algorithm = coll ? w.value("/collective/algorithm"_json_pointer, std::string("ring"))
                       : w.value("algorithm", std::string("ring"));
  out.channels = coll ? w.value("/collective/channels"_json_pointer, 1) : w.value("channels", 1);
  if (s.workload.nccl.buffsize > 0) {
    out.buffsize = s.workload.nccl.buffsize;
  }
  out.protocol = std::string(coll::protocol_name(s.workload.nccl.protocol));
  out.qps_per_connection = s.workload.nccl.qps_per_connection;
  if (s.workload.kind == "ddp" || s.workload.kind == "diloco") {
    double bytes = 25.0 * (1 << 20);
    if (w.contains("bucket_bytes")) {
      bytes = w["bucket_bytes"].get<double>();
    } else if (w.contains("bucket")) {
      bytes = static_cast<double>(parse_size(w["bucket"].get<std::string>()).value_or(0));
    }
    out.bucket_cap_mb = bytes / (1 << 20);
  }
  if (s.workload.kind == "diloco") {
    out.sync =
        "diloco H=" + std::to_string(w.value("inner_steps", 1)) + " (" + w.value("compression", "none") + ")";
  }
  out.cc = s.transport.cc;
  return out;
}

// NCCL has Ring and Tree; a per-region hierarchy is built above NCCL (a process group per
// region), so the file says so rather than naming an NCCL_ALGO that does not exist.
std::string nccl_env(const Settings& st, const std::string& scenario) {
  std::ostringstream os;
  os << "# gradwall advise: NCCL settings of the first choice for " << scenario << "\n";
  if (st.algorithm == "ring") {
    os << "NCCL_ALGO=Ring\n";
  } else if (st.algorithm == "double_binary_tree") {
    os << "NCCL_ALGO=Tree\n";
  } else {
    os << "# algorithm " << st.algorithm
       << ": reduce-scatter inside each region, all-reduce across, all-gather inside; NCCL has no\n"
          "# such NCCL_ALGO: build it with one process group per region and one across (e.g.\n"
          "# torch.distributed.new_subgroups, or an HSDP device mesh of (regions, ranks per region)).\n";
  }
  os << "NCCL_MIN_NCHANNELS=" << st.channels << "\nNCCL_MAX_NCHANNELS=" << st.channels << "\n";
  os << "NCCL_BUFFSIZE=" << st.buffsize << "\n";
  if (st.protocol != "simple") {
    std::string upper = st.protocol;
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char c) { return std::toupper(c); });
    os << "NCCL_PROTO=" << upper << "\n";
  }
  if (st.qps_per_connection != 1) {
    os << "NCCL_IB_QPS_PER_CONNECTION=" << st.qps_per_connection << "\n";
  }
  return os.str();
}

json hints_json(const Scenario& s, const Settings& st, const json& first) {
  json pairs = json::array();
  for (const RegionPath& p : region_paths(s)) {
    pairs.push_back({{"from", p.from},
                     {"to", p.to},
                     {"rtt_ms", static_cast<double>(p.rtt.count()) / 1e6},
                     {"bandwidth_gbps", p.bps / 1e9}});
  }
  json regions = json::array();
  for (const auto& r : s.topology.regions) {
    if (r.hosts > 0) {
      regions.push_back({{"name", r.name}, {"gpus", r.hosts}});
    }
  }
  return {{"gradwall", "hints/v1"},
          {"region_pairs", pairs},
          {"wan_loss_measured",
           first.is_null() ? json(nullptr) : first["measured"].value("wan_drop_fraction", json(nullptr))},
          {"placement",
           {{"keep_regions_contiguous", true},
            {"regions", regions},
            {"why",
             "ranks of a region next to each other in rank order, so a ring or a hierarchy crosses "
             "each WAN boundary as few times as the algorithm needs"}}},
          {"algorithm", st.algorithm},
          {"nccl", {{"NCCL_MIN_NCHANNELS", st.channels}, {"NCCL_BUFFSIZE", st.buffsize}}},
          {"bucket_cap_mb", st.bucket_cap_mb ? json(*st.bucket_cap_mb) : json(nullptr)},
          {"sync_policy", st.sync},
          {"congestion_control", st.cc}};
}

// One Kueue-admitted Indexed Job per region, each kept inside one topology domain (Kueue's
// topology-aware scheduling annotation), with the NCCL settings as environment.
std::string k8s_yaml(const Scenario& s, const Settings& st) {
  std::ostringstream os;
  os << "# gradwall advise: one Job per region, each kept in one topology block by Kueue's\n"
        "# topology-aware scheduling; set the queue name and image to yours.\n";
  bool first = true;
  for (const auto& r : s.topology.regions) {
    if (r.hosts == 0) {
      continue;
    }
    os << (first ? "" : "---\n") << "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: train-" << r.name
       << "\n  labels:\n    kueue.x-k8s.io/queue-name: training\nspec:\n  completionMode: Indexed\n  "
          "completions: "
       << r.hosts << "\n  parallelism: " << r.hosts
       << "\n  template:\n    metadata:\n      annotations:\n        "
          "kueue.x-k8s.io/podset-required-topology: "
          "\"cloud.provider.com/topology-block\"\n    spec:\n      restartPolicy: Never\n      containers:\n"
          "        - name: trainer\n          image: trainer:latest\n          resources:\n            "
          "limits:\n"
          "              nvidia.com/gpu: 1\n          env:\n";
    os << "            - {name: NCCL_MIN_NCHANNELS, value: \"" << st.channels << "\"}\n";
    os << "            - {name: NCCL_MAX_NCHANNELS, value: \"" << st.channels << "\"}\n";
    os << "            - {name: NCCL_BUFFSIZE, value: \"" << st.buffsize << "\"}\n";
    first = false;
  }
  return os.str();
}

std::string ray_py(const Scenario& s) {
  std::ostringstream os;
  os << "# gradwall advise: one Ray placement group per region, its GPU bundles packed together.\n"
        "import ray\nfrom ray.util.placement_group import placement_group\n\n\n"
        "def region_groups():\n    return {\n";
  for (const auto& r : s.topology.regions) {
    if (r.hosts > 0) {
      os << "        \"" << r.name << "\": placement_group([{\"GPU\": 1}] * " << r.hosts
         << ", strategy=\"PACK\", name=\"" << r.name << "\"),\n";
    }
  }
  os << "    }\n";
  return os.str();
}

std::string summary_md(const json& a) {
  std::ostringstream os;
  os << "# gradwall advise: " << a["name"].get<std::string>() << "\n\n";
  const json& first = a["first_choice"];
  os << "First choice: **" << (first.is_null() ? "none" : first["change"].get<std::string>()) << "** ("
     << (a["a_change_passes"].get<bool>() ? "passes the scenario's checks" : "no change in the space passes")
     << "). " << a["simulated_runs"].get<double>()
     << " simulator runs (in runs of the scenario's length) over " << a["points_in_space"] << " points.\n\n";
  os << "| # | change | verdict | GPU idle | slowdown | CCT p99 | $ / month | Pareto "
        "|\n|---|---|---|---|---|---|---|---|\n";
  std::size_t k = 0;
  for (const json& e : a["ranking"]) {
    const json& m = e["measured"];
    os << "| " << ++k << " | " << reports::md_cell(e["change"].get<std::string>()) << " | "
       << m["verdict"].get<std::string>() << " | " << reports::fixed(m["gpu_idle_fraction"], 3) << " | "
       << reports::fixed(m["slowdown_vs_ideal"], 2) << " | "
       << reports::duration_text(m["cct_p99_ns"].get<double>()) << " | "
       << (e["usd_per_month"].is_object() ? reports::fixed(e["usd_per_month"]["total"], 0) : "-") << " | "
       << (e["pareto"].get<bool>() ? "yes" : "") << " |\n";
  }
  for (const json& c : a["capacity"]) {
    os << "\nCapacity (" << c["settings"].get<std::string>() << "): "
       << (c["least_factor"].is_null()
               ? "no pass up to x" + reports::value_text(c["largest_tried"])
               : "passes from x" + reports::value_text(c["least_factor"]) + " (" +
                     reports::value_text(c["wan_gbps"]) + " Gbit/s of WAN, all links)")
       << "\n";
  }
  for (const json& c : a["caveats"]) {
    os << "\n- " << c.get<std::string>();
  }
  os << "\n";
  return os.str();
}

}  // namespace

std::string write_advice(const Advice& a, const Scenario& original, const fs::path& out) {
  const json& first = a.doc["first_choice"];
  const json first_doc =
      first.is_null()
          ? json(nullptr)
          : read_json_file((out / first["measured"]["run"].get<std::string>() / "scenario.json").string());
  const Scenario chosen = first.is_null() ? original : parse_scenario(first_doc, "first choice");
  const Settings st =
      settings_of_scenario(chosen, first.is_null() ? json{{"workload", json::object()}} : first_doc);
  write_text_file_atomically((out / "advice.json").string(), a.doc.dump(2) + "\n");
  const std::string summary = summary_md(a.doc);
  write_text_file_atomically((out / "summary.md").string(), summary);
  write_text_file_atomically((out / "advice.html").string(), reports::write_advice_html(a.doc));
  write_text_file_atomically((out / "nccl.env").string(), nccl_env(st, a.doc["scenario"].get<std::string>()));
  write_text_file_atomically((out / "hints.json").string(), hints_json(chosen, st, first).dump(2) + "\n");
  write_text_file_atomically((out / "k8s.yaml").string(), k8s_yaml(chosen, st));
  write_text_file_atomically((out / "ray_placement.py").string(), ray_py(chosen));
  if (a.doc["applied"].is_object()) {
    const json& j = a.doc["applied"];
    const json base = read_json_file((out / j["original_run"].get<std::string>() / "report.json").string());
    const json next =
        read_json_file((out / j["recommended_run"].get<std::string>() / "report.json").string());
    write_text_file_atomically(
        (out / "applied.md").string(),
        "# Applied in sim: the first choice against the scenario as it is\n\n"
        "Base: " +
            j["original_run"].get<std::string>() +
            "/report.json; new: " + j["recommended_run"].get<std::string>() +
            "/report.json. Metrics of one run only (op kinds renamed by a new algorithm or "
            "bucket size) are left out; both reports have them.\n\n" +
            reports::compare_table_md(applied_comparison(base, next)));
  }
  return summary;
}

}  // namespace gw::advise
