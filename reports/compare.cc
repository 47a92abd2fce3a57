#include "reports/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "core/json_reader.h"
#include "reports/text.h"

namespace gw::reports {
namespace {

using nlohmann::json;

constexpr double kHuge = 1e300;

// A metric's value: a number in [lo, hi], or null / absent (the report cannot give it).
std::optional<double> value_of(const JsonReader& r, std::string_view key, double lo, double hi) {
  if (!r.has(key) || r.raw().at(key).is_null()) {
    return std::nullopt;
  }
  return r.number(key, lo, hi);
}

void add(std::vector<Metric>& out, std::string name, std::optional<double> v, bool higher_is_better) {
  if (v) {
    out.push_back({std::move(name), *v, higher_is_better});
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
    // A metric BASE has and NEW lacks (an op or a flow gone, a different kind of run) is a
    // failure: a gate must not pass a run for what it did not measure.
    r.missing = base != nullptr;
    r.regression = r.missing;
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

std::vector<Metric> comparable_metrics(const json& report, const std::string& file) {
  const JsonReader r(report, file);
  const bool any = (r.has("collectives") && !report.at("collectives").is_null()) ||
                   (r.has("gpu") && !report.at("gpu").is_null()) ||
                   (r.has("flows") && !report.at("flows").is_null());
  if (!any) {
    r.fail_here("no collectives, gpu or flows section: nothing to compare (not a gradwall report?)");
  }
  std::vector<Metric> out;
  if (const auto c = r.optional_object("collectives")) {
    for (const JsonReader& op : c->objects("ops")) {
      const std::string key = "[" + op.string("key") + "]";
      const JsonReader cct = op.object("cct_ns");
      add(out, "cct_p50_ns" + key, value_of(cct, "p50", 0, kHuge), false);
      add(out, "cct_p99_ns" + key, value_of(cct, "p99", 0, kHuge), false);
      add(out, "busbw_GBps" + key, value_of(op, "busbw_GBps", 0, kHuge), true);
    }
  }
  if (r.has("gpu") && !report.at("gpu").is_null()) {
    const JsonReader gpu = r.object("gpu");
    add(out, "gpu_idle_fraction", value_of(gpu.object("totals"), "gpu_idle_fraction", 0, 1), false);
    add(out, "slowdown_vs_ideal", value_of(gpu, "slowdown_vs_ideal", 0, kHuge), false);
  }
  if (const auto flows = r.optional_object("flows")) {
    for (const JsonReader& f : flows->objects("flows")) {
      add(out,
          "goodput_bps[flow " + std::to_string(f.integer("id", 0, std::numeric_limits<std::int64_t>::max())) +
              " " + f.string("from") + "->" + f.string("to") + "]",
          value_of(f, "goodput_bps", 0, kHuge), true);
    }
  }
  return out;
}

Comparison compare(const json& base_report, const json& new_report, double tolerance_pct,
                   const std::string& base_file, const std::string& new_file) {
  const std::vector<Metric> base = comparable_metrics(base_report, base_file);
  const std::vector<Metric> next = comparable_metrics(new_report, new_file);
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
                    {"regression", r.regression},
                    {"missing", r.missing}});
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
       << (r.missing      ? "**missing in new**"
           : r.regression ? "**regression**"
                          : "")
       << " |\n";
  }
  os << "\n"
     << (c.any_regression ? "Regressions" : "No regression") << " at " << value_text(c.tolerance_pct)
     << " % tolerance.\n";
  return os.str();
}

}  // namespace gw::reports
