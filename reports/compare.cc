#include "reports/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <sstream>

#include "core/json_reader.h"
#include "reports/text.h"

namespace gw::reports {
namespace {

using nlohmann::json;

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

// How much worse `next` is than `base` in percent of base (for the direction that is better),
// and the signed change; from a base of 0 the percent is absent and any worsening counts.
void judge(double base, double next, bool higher_is_better, double tolerance_pct,
           std::optional<double>& change, bool& regression) {
  const double worse = higher_is_better ? base - next : next - base;
  if (base != 0) {
    change = (next - base) / base * 100;
    regression = worse / std::abs(base) * 100 > tolerance_pct;
  } else {
    change = next == 0 ? std::optional<double>(0) : std::nullopt;
    regression = worse > 0;
  }
}

// The part of a metric name in brackets ("all_reduce/ring/4194304/4"), or "".
std::string subject(const std::string& name) {
  const std::size_t open = name.find('[');
  return open == std::string::npos ? "" : name.substr(open + 1, name.size() - open - 2);
}

std::string percent_text(const std::optional<double>& pct) {
  if (!pct) {
    return "";
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f %%", *pct);
  return buf;
}

// "3.4x less" / "2.0x more" for a useful quantity going from `base` to `next`.
std::string times_text(double base, double next) {
  if (base <= 0 || next <= 0 || base == next) {
    return base == next ? "unchanged" : (next > base ? "up from none" : "down to none");
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fx %s", next > base ? next / base : base / next,
                next > base ? "more" : "less");
  return buf;
}

std::string says_of(const CompareRow& r) {
  const std::string& m = r.metric;
  const std::string of = subject(m).empty() ? "" : " of " + subject(m);
  std::string label;
  std::function<std::string(double)> unit;
  if (m.rfind("cct_p50_ns", 0) == 0 || m.rfind("cct_p99_ns", 0) == 0) {
    label = std::string("CCT ") + (m[5] == '5' ? "p50" : "p99") + of;
    unit = [](double v) { return duration_text(v); };
  } else if (m.rfind("busbw_GBps", 0) == 0) {
    label = "bus bandwidth" + of;
    unit = [](double v) { return value_text(v) + " GB/s"; };
  } else if (m == "gpu_idle_fraction") {
    label = "GPU idle";
    unit = [](double v) { return fixed(v, 3); };
  } else if (m == "slowdown_vs_ideal") {
    label = "slowdown against an unimpaired network";
    unit = [](double v) { return fixed(v, 2) + "x"; };
  } else if (m.rfind("goodput_bps", 0) == 0) {
    label = "goodput" + of;
    unit = [](double v) { return rate_text(v); };
  } else {
    label = m;
    unit = [](double v) { return value_text(v); };
  }
  if (!r.base) {
    return label + ": new, " + unit(*r.next);
  }
  if (!r.next) {
    return label + ": " + unit(*r.base) + ", missing in NEW";
  }
  std::string out = label + ": " + unit(*r.base) + " -> " + unit(*r.next);
  if (m == "gpu_idle_fraction") {
    const double b = 1 - *r.base;
    const double n = 1 - *r.next;
    return out + ": useful GPU time " + fixed(b * 100, 1) + " % -> " + fixed(n * 100, 1) + " % of the run, " +
           times_text(b, n);
  }
  const std::string pct = percent_text(r.change_pct);
  const bool better = r.higher_is_better ? *r.next > *r.base : *r.next < *r.base;
  const char* way = *r.next == *r.base       ? ""
                    : m.rfind("cct", 0) == 0 ? (better ? ", faster" : ", slower")
                                             : (better ? ", better" : ", worse");
  return out + (pct.empty() ? "" : " (" + pct + way + ")");
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
    r.says = says_of(r);
    return r;
  }
  bool raw_regression = false;
  judge(base->value, next->value, r.higher_is_better, tolerance_pct, r.change_pct, raw_regression);
  if (name == "gpu_idle_fraction") {
    // Useful GPU time as a ratio: idle 0.939 -> 0.982 reads +4.6 %, yet leaves 3.4x less
    // useful time.
    r.judged_on = "useful GPU time (1 - idle)";
    judge(1 - base->value, 1 - next->value, true, tolerance_pct, r.judged_change_pct, r.regression);
  } else {
    r.judged_change_pct = r.change_pct;
    r.regression = raw_regression;
  }
  r.says = says_of(r);
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
      add(out, "cct_p50_ns" + key, value_of(cct, "p50", 0, kNoUpperBound), false);
      add(out, "cct_p99_ns" + key, value_of(cct, "p99", 0, kNoUpperBound), false);
      add(out, "busbw_GBps" + key, value_of(op, "busbw_GBps", 0, kNoUpperBound), true);
    }
  }
  if (r.has("gpu") && !report.at("gpu").is_null()) {
    const JsonReader gpu = r.object("gpu");
    add(out, "gpu_idle_fraction", value_of(gpu.object("totals"), "gpu_idle_fraction", 0, 1), false);
    add(out, "slowdown_vs_ideal", value_of(gpu, "slowdown_vs_ideal", 0, kNoUpperBound), false);
  }
  if (const auto flows = r.optional_object("flows")) {
    for (const JsonReader& f : flows->objects("flows")) {
      add(out,
          "goodput_bps[flow " + std::to_string(f.integer("id", 0, std::numeric_limits<std::int64_t>::max())) +
              " " + f.string("from") + "->" + f.string("to") + "]",
          value_of(f, "goodput_bps", 0, kNoUpperBound), true);
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
                    {"missing", r.missing},
                    {"judged_on", r.judged_on.empty() ? json(nullptr) : json(r.judged_on)},
                    {"judged_change_pct", optional_json(r.judged_change_pct)},
                    {"says", r.says}});
  }
  return {
      {"tolerance_pct", c.tolerance_pct}, {"rows", std::move(rows)}, {"any_regression", c.any_regression}};
}

std::string compare_table_md(const Comparison& c) {
  std::ostringstream os;
  os << "| metric | base | new | change % | | what moved |\n|---|---|---|---|---|---|\n";
  for (const CompareRow& r : c.rows) {
    os << "| " << md_cell(r.metric) << " | " << value_text(optional_json(r.base)) << " | "
       << value_text(optional_json(r.next)) << " | " << fixed(optional_json(r.change_pct), 1) << " | "
       << (r.missing      ? "**missing in new**"
           : r.regression ? "**regression**"
                          : "")
       << " | " << md_cell(r.says) << " |\n";
  }
  os << "\n"
     << (c.any_regression ? "Regressions" : "No regression") << " at " << value_text(c.tolerance_pct)
     << " % tolerance.\n";
  return os.str();
}

}  // namespace gw::reports
