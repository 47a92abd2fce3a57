#include "reports/checks.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <string_view>

#include "core/errors.h"
#include "core/json_reader.h"

namespace gw::reports {
namespace {

using nlohmann::json;

enum class Bound { kMax, kMin };

using Measure = std::function<Measurement(const ResultInput&, const json&)>;

struct CheckSpec {
  std::string_view name;
  Bound bound;
  Measure measure;
  // The same metric on the unimpaired baseline (null: none, or the metric has no baseline).
  Measure baseline = nullptr;
  // The limits that can mean something: a fraction in [0, 1], a slowdown of at least 1, no
  // negative time or rate. Anything else is a typo (150 for 1.5 %), refused up front.
  LimitRange range = {0, 1e18};
};

constexpr LimitRange kFraction{0, 1};

std::string number_text(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

Measurement missing(std::string reason) {
  return {std::nullopt, "", std::move(reason)};
}

// The worst value of `field` (scaled) over the collective op kinds: largest for a maximum,
// smallest for a minimum.
Measure over_ops(std::string_view what, std::function<std::optional<double>(const json&)> field,
                 Bound bound) {
  return [what, field = std::move(field), bound](const ResultInput&, const json& report) {
    Measurement m;
    for (const json& op : report["collectives"]["ops"]) {
      const auto v = field(op);
      if (v && (!m.value || (bound == Bound::kMax ? *v > *m.value : *v < *m.value))) {
        m.value = v;
        m.where = op["key"].get<std::string>();
      }
    }
    if (!m.value) {
      m.missing_reason =
          report["collectives"]["ops"].empty()
              ? "no collectives in the result (" + std::string(what) + " needs a collective workload)"
              : "no collective has a " + std::string(what);
    }
    return m;
  };
}

std::optional<double> number_at(const json& j, std::initializer_list<std::string_view> keys) {
  const json* at = &j;
  for (const auto k : keys) {
    if (!at->is_object() || !at->contains(k)) {
      return std::nullopt;
    }
    at = &(*at)[std::string(k)];
  }
  return at->is_number() ? std::optional<double>(at->get<double>()) : std::nullopt;
}

Measure over_flows(std::function<std::optional<double>(const json&)> field, Bound bound) {
  return [field = std::move(field), bound](const ResultInput&, const json& report) {
    Measurement m;
    for (const json& f : report["flows"]["flows"]) {
      const auto v = field(f);
      if (v && (!m.value || (bound == Bound::kMax ? *v > *m.value : *v < *m.value))) {
        m.value = v;
        m.where = "flow " + std::to_string(f["id"].get<std::int64_t>()) + " (" +
                  f["from"].get<std::string>() + " -> " + f["to"].get<std::string>() + ")";
      }
    }
    if (!m.value) {
      m.missing_reason = report["flows"]["flows"].empty() ? "no flows in the result" : "no flow has samples";
    }
    return m;
  };
}

const json* gpu_or_null(const json& report) {
  return report["gpu"].is_null() ? nullptr : &report["gpu"];
}

const char* const kNoIterations = "no training iterations in the result (a collective workload reports them)";

Measurement idle_fraction(const ResultInput&, const json& report) {
  const json* gpu = gpu_or_null(report);
  return gpu ? Measurement{(*gpu)["totals"]["gpu_idle_fraction"].get<double>(), "all iterations", ""}
             : missing(kNoIterations);
}

Measurement slowdown(const ResultInput&, const json& report) {
  const json* gpu = gpu_or_null(report);
  if (!gpu) {
    return missing(kNoIterations);
  }
  if ((*gpu)["slowdown_vs_ideal"].is_null()) {
    return missing((*gpu)["slowdown_reason"].get<std::string>());
  }
  return {(*gpu)["slowdown_vs_ideal"].get<double>(), "mean iteration vs baseline", ""};
}

Measurement baseline_idle_fraction(const ResultInput&, const json& report) {
  const json* gpu = gpu_or_null(report);
  const auto v = gpu ? number_at(*gpu, {"baseline", "gpu_idle_fraction"}) : std::nullopt;
  return v ? Measurement{v, "all iterations", ""} : missing("no baseline");
}

std::optional<double> ms_at(const json& op, std::string_view key) {
  const auto v = number_at(op, {key});
  return v ? std::optional<double>(*v / 1e6) : std::nullopt;
}

const std::vector<CheckSpec>& specs() {
  static const std::vector<CheckSpec> table = {
      {"cct_p99_ms_max", Bound::kMax,
       over_ops(
           "CCT",
           [](const json& op) {
             return number_at(op, {"cct_ns", "p99"}).value() / 1e6;
           },
           Bound::kMax),
       over_ops(
           "baseline CCT", [](const json& op) { return ms_at(op, "baseline_cct_p99_ns"); }, Bound::kMax)},
      {"cct_p50_ms_max", Bound::kMax,
       over_ops(
           "CCT",
           [](const json& op) {
             return number_at(op, {"cct_ns", "p50"}).value() / 1e6;
           },
           Bound::kMax),
       over_ops(
           "baseline CCT", [](const json& op) { return ms_at(op, "baseline_cct_p50_ns"); }, Bound::kMax)},
      {"busbw_GBps_min", Bound::kMin,
       over_ops(
           "bus bandwidth", [](const json& op) { return number_at(op, {"busbw_GBps"}); }, Bound::kMin),
       over_ops(
           "baseline bus bandwidth", [](const json& op) { return number_at(op, {"baseline_busbw_GBps"}); },
           Bound::kMin)},
      {"measured_over_predicted_max", Bound::kMax,
       over_ops(
           "prediction", [](const json& op) { return number_at(op, {"measured_over_predicted"}); },
           Bound::kMax)},
      {"gpu_idle_fraction_max", Bound::kMax, idle_fraction, baseline_idle_fraction, kFraction},
      // The impaired job against the same job unimpaired: below 1 no run can pass.
      {"slowdown_max", Bound::kMax, slowdown, nullptr, {1, 1e18}},
      {"goodput_gbps_min", Bound::kMin,
       over_flows([](const json& f) { return number_at(f, {"goodput_bps"}).value() / 1e9; }, Bound::kMin)},
      {"rtt_p99_ms_max", Bound::kMax,
       over_flows(
           [](const json& f) {
             return f["rtt_ns"]["count"].get<std::uint64_t>() == 0
                        ? std::nullopt
                        : std::optional<double>(f["rtt_ns"]["p99"].get<double>() / 1e6);
           },
           Bound::kMax)},
      {"retransmit_fraction_max", Bound::kMax,
       [](const ResultInput&, const json& report) {
         const auto v = number_at(report, {"packets", "retransmit_fraction"});
         return v ? Measurement{v, "all flows", ""} : missing("no packets sent by any flow");
       },
       nullptr, kFraction},
      {"one_way_delay_p99_ms_max", Bound::kMax,
       [](const ResultInput&, const json& report) {
         const auto v = number_at(report, {"packets", "one_way_delay_ns", "p99"});
         return v ? Measurement{*v / 1e6, "all packets", ""}
                  : missing("the result has no packets.one_way_delay_ns");
       }},
      {"jain_fairness_min", Bound::kMin,
       [](const ResultInput&, const json& report) {
         const auto v = number_at(report, {"flows", "jain_fairness"});
         return v ? Measurement{v, "bulk flows", ""} : missing("no bulk flows in the result");
       },
       nullptr, kFraction},
  };
  return table;
}

constexpr std::string_view kAccounting = "accounting_balanced";

json accounting_check(const ResultInput& in, const json& limit) {
  const bool required = limit.get<bool>();
  if (!in.accounting.present) {
    return {{"name", kAccounting},
            {"passed", !required},
            {"measured", nullptr},
            {"limit", required},
            {"reason", "the result has no accounting"}};
  }
  const bool ok = in.accounting.balanced || !required;
  std::string reason = in.accounting.balanced ? "packets sent + duplicated = received + dropped + in flight"
                                              : "packet accounting does not balance (see result accounting)";
  if (!required) {
    reason += "; not required (threshold false)";
  }
  return {{"name", kAccounting},
          {"passed", ok},
          {"measured", in.accounting.balanced},
          {"limit", required},
          {"reason", reason}};
}

json numeric_check(const CheckSpec& spec, const ResultInput& in, const json& report, double limit) {
  const Measurement m = spec.measure(in, report);
  if (!m.value) {
    return {{"name", spec.name},
            {"passed", false},
            {"measured", nullptr},
            {"limit", limit},
            {"reason", "cannot be measured: " + m.missing_reason}};
  }
  const double v = *m.value;
  auto holds = [&](double x) { return spec.bound == Bound::kMax ? x <= limit : x >= limit; };
  const bool passed = holds(v);
  const char* op = spec.bound == Bound::kMax ? (passed ? " <= " : " > ") : (passed ? " >= " : " < ");
  json check = {{"name", spec.name},
                {"passed", passed},
                {"measured", v},
                {"limit", limit},
                {"reason", m.where + ": " + number_text(v) + op + number_text(limit)}};
  // Beside it, the unimpaired network's value: a limit that fails there too is out of reach of
  // any fix to the network's impairments (the job needs more capacity, a shorter path or other
  // NCCL settings).
  if (spec.baseline) {
    const Measurement b = spec.baseline(in, report);
    if (b.value) {
      check["baseline_measured"] = *b.value;
      check["out_of_reach"] = !holds(*b.value);
      check["reason"] = check["reason"].get<std::string>() + "; unimpaired network " + number_text(*b.value) +
                        (holds(*b.value) ? "" : ": out of reach even without impairments");
    }
  }
  return check;
}

}  // namespace

std::optional<LimitRange> limit_range(std::string_view name) {
  const auto spec =
      std::find_if(specs().begin(), specs().end(), [&](const CheckSpec& c) { return c.name == name; });
  return spec == specs().end() ? std::nullopt : std::optional<LimitRange>(spec->range);
}

const std::set<std::string, std::less<>>& check_names() {
  static const std::set<std::string, std::less<>> names = [] {
    std::set<std::string, std::less<>> s{std::string(kAccounting)};
    for (const CheckSpec& c : specs()) {
      s.emplace(c.name);
    }
    return s;
  }();
  return names;
}

json evaluate_checks(const ResultInput& in, const json& report) {
  json checks = json::array();
  bool accounting_listed = false;
  for (const Threshold& t : in.thresholds) {
    if (t.name == kAccounting) {
      if (!t.limit.is_boolean()) {
        throw InputError(in.file, t.path, "must be true or false, got " + describe(t.limit));
      }
      accounting_listed = true;
      checks.push_back(accounting_check(in, t.limit));
      continue;
    }
    const auto spec =
        std::find_if(specs().begin(), specs().end(), [&](const CheckSpec& c) { return c.name == t.name; });
    if (spec == specs().end()) {
      std::string reason = "unknown threshold \"" + t.name + "\"";
      if (const auto near = closest(t.name, check_names())) {
        reason += " (did you mean \"" + *near + "\"?)";
      }
      std::string known;
      for (const auto& n : check_names()) {
        known += (known.empty() ? "" : ", ") + n;
      }
      throw InputError(in.file, t.path, reason + "; known: " + known);
    }
    if (!t.limit.is_number() || !std::isfinite(t.limit.get<double>())) {
      throw InputError(in.file, t.path, "must be a number, got " + describe(t.limit));
    }
    if (const double v = t.limit.get<double>(); v < spec->range.lo || v > spec->range.hi) {
      throw InputError(in.file, t.path,
                       "must be in [" + number_text(spec->range.lo) + ", " + number_text(spec->range.hi) +
                           "], got " + describe(t.limit));
    }
    checks.push_back(numeric_check(*spec, in, report, t.limit.get<double>()));
  }
  if (!accounting_listed) {
    checks.push_back(accounting_check(in, true));
  }
  return checks;
}

}  // namespace gw::reports
