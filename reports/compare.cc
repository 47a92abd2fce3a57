#include "reports/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "reports/text.h"

namespace gw::reports {
namespace {

using nlohmann::json;

void add(std::vector<Metric>& out, std::string name, const json& v, bool higher_is_better) {
  if (v.is_number()) {
    out.push_back({std::move(name), v.get<double>(), higher_is_better});
  }
}

const Metric* find(const std::vector<Metric>& ms, const std::string& name) {
  const auto it = std::find_if(ms.begin(), ms.end(), [&](const Metric& m) { return m.name == name; });
  return it == ms.end() ? nullptr : &*it;
}

CompareRow row_of(const std::string& name, const Metric* base, const Metric* next, double tolerance_pct) {
  CompareRow r;
  r.metric = name;
  r.higher_is_better = (base ? base : next)->higher_is_better;
  if (base) {
    r.base = base->value;
  }
  if (next) {
    r.next = next->value;
  }
  if (!base || !next) {
    return r;
  }
  const double worse = r.higher_is_better ? base->value - next->value : next->value - base->value;
  if (base->value != 0) {
    r.change_pct = (next->value - base->value) / base->value * 100;
    r.regression = worse / std::abs(base->value) * 100 > tolerance_pct;
  } else {
    r.change_pct = next->value == 0 ? std::optional<double>(0) : std::nullopt;
    r.regression = worse > 0;
  }
  return r;
}

json optional_json(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

}  // namespace

std::vector<Metric> comparable_metrics(const json& report) {
  std::vector<Metric> out;
  for (const json& op : report["collectives"]["ops"]) {
    const std::string key = "[" + op["key"].get<std::string>() + "]";
    add(out, "cct_p50_ns" + key, op["cct_ns"]["p50"], false);
    add(out, "cct_p99_ns" + key, op["cct_ns"]["p99"], false);
    add(out, "busbw_GBps" + key, op["busbw_GBps"], true);
  }
  if (const json& gpu = report["gpu"]; !gpu.is_null()) {
    add(out, "gpu_idle_fraction", gpu["totals"]["gpu_idle_fraction"], false);
    add(out, "slowdown_vs_ideal", gpu["slowdown_vs_ideal"], false);
  }
  for (const json& f : report["flows"]["flows"]) {
    add(out,
        "goodput_bps[flow " + std::to_string(f["id"].get<std::int64_t>()) + " " +
            f["from"].get<std::string>() + "->" + f["to"].get<std::string>() + "]",
        f["goodput_bps"], true);
  }
  return out;
}

Comparison compare(const json& base_report, const json& new_report, double tolerance_pct) {
  const std::vector<Metric> base = comparable_metrics(base_report);
  const std::vector<Metric> next = comparable_metrics(new_report);
  Comparison c;
  c.tolerance_pct = tolerance_pct;
  for (const Metric& m : base) {
    c.rows.push_back(row_of(m.name, &m, find(next, m.name), tolerance_pct));
  }
  for (const Metric& m : next) {
    if (!find(base, m.name)) {
      c.rows.push_back(row_of(m.name, nullptr, &m, tolerance_pct));
    }
  }
  c.any_regression =
      std::any_of(c.rows.begin(), c.rows.end(), [](const CompareRow& r) { return r.regression; });
  return c;
}

json to_json(const Comparison& c) {
  json rows = json::array();
  for (const CompareRow& r : c.rows) {
    rows.push_back({{"metric", r.metric},
                    {"base", optional_json(r.base)},
                    {"new", optional_json(r.next)},
                    {"change_pct", optional_json(r.change_pct)},
                    {"higher_is_better", r.higher_is_better},
                    {"regression", r.regression}});
  }
  return {
      {"tolerance_pct", c.tolerance_pct}, {"rows", std::move(rows)}, {"any_regression", c.any_regression}};
}

std::string compare_table_md(const Comparison& c) {
  std::ostringstream os;
  os << "| metric | base | new | change % | |\n|---|---|---|---|---|\n";
  for (const CompareRow& r : c.rows) {
    os << "| " << md_cell(r.metric) << " | " << value_text(optional_json(r.base)) << " | "
       << value_text(optional_json(r.next)) << " | " << fixed(optional_json(r.change_pct), 1) << " | "
       << (r.regression ? "**regression**" : "") << " |\n";
  }
  os << "\n"
     << (c.any_regression ? "Regressions" : "No regression") << " at " << value_text(c.tolerance_pct)
     << " % tolerance.\n";
  return os.str();
}

}  // namespace gw::reports
