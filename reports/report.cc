// Sections of report.json; the formulas are in docs/reports.md.
#include "reports/report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <tuple>

#include "reports/checks.h"
#include "reports/result_input.h"

namespace gw::reports {
namespace {

using nlohmann::json;

constexpr double kNsPerHour = 3.6e12;

json percentiles_json(const Percentiles& p) {
  return {{"count", p.count}, {"mean", p.mean}, {"min", p.min},   {"p50", p.p50},
          {"p90", p.p90},     {"p99", p.p99},   {"p999", p.p999}, {"max", p.max}};
}

json null_or(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

std::optional<double> ratio(double num, double den) {
  if (den == 0) {
    return std::nullopt;
  }
  return num / den;
}

// op, algorithm, bytes, ranks: one "op kind". Ranks belong to the kind because the busbw factor
// and the prediction depend on them.
using OpKey = std::tuple<std::string, std::string, std::uint64_t, std::int64_t>;

std::string key_text(const OpKey& k) {
  return std::get<0>(k) + "/" + std::get<1>(k) + "/" + std::to_string(std::get<2>(k)) + "/" +
         std::to_string(std::get<3>(k));
}

std::map<OpKey, std::vector<const CollectiveRecord*>> group(const std::vector<CollectiveRecord>& cs) {
  std::map<OpKey, std::vector<const CollectiveRecord*>> groups;
  for (const CollectiveRecord& c : cs) {
    groups[{c.op, c.algorithm, c.bytes, c.ranks}].push_back(&c);
  }
  return groups;
}

Percentiles cct_percentiles(const std::vector<const CollectiveRecord*>& cs) {
  std::vector<std::int64_t> v;
  v.reserve(cs.size());
  for (const CollectiveRecord* c : cs) {
    v.push_back(ns_of(c->cct));
  }
  return percentiles(v);
}

// The median of the predictions in a group (they agree unless channels differ).
std::optional<std::int64_t> predicted(
    const std::vector<const CollectiveRecord*>& cs,
    std::optional<Duration> CollectiveRecord::*field = &CollectiveRecord::predicted) {
  std::vector<std::int64_t> v;
  for (const CollectiveRecord* c : cs) {
    if (c->*field) {
      v.push_back(ns_of(*(c->*field)));
    }
  }
  if (v.empty()) {
    return std::nullopt;
  }
  std::sort(v.begin(), v.end());
  return nearest_rank(v, 0.5);
}

// Where the group's time went: each part's mean over the ops that carry an attribution (so the
// parts add up to their mean CCT), the share of each, and the largest; null when none does.
json attribution_json(const std::vector<const CollectiveRecord*>& cs) {
  std::array<double, kTimePartNames.size()> sum{};
  double cct = 0;
  std::size_t n = 0;
  bool measured = true;
  std::uint64_t retransmits = 0;
  std::uint64_t timeouts = 0;
  std::uint64_t cuts = 0;
  std::uint64_t cnps = 0;
  for (const CollectiveRecord* c : cs) {
    if (!c->attribution) {
      continue;
    }
    const AttributionRecord& a = *c->attribution;
    for (std::size_t i = 0; i < sum.size(); ++i) {
      sum[i] += static_cast<double>(a.parts[i].count());
    }
    cct += static_cast<double>(c->cct.count());
    measured = measured && a.transport_measured;
    retransmits += a.retransmits;
    timeouts += a.timeouts;
    cuts += a.cc_cuts;
    cnps += a.cnps;
    ++n;
  }
  if (n == 0) {
    return nullptr;
  }
  json parts = json::object();
  json shares = json::object();
  std::size_t largest = 0;
  std::size_t largest_excess = 2;  // beyond what an ideal transport spends (propagation, serialization)
  for (std::size_t i = 0; i < sum.size(); ++i) {
    const double mean = sum[i] / static_cast<double>(n);
    parts[std::string(kTimePartNames[i])] = std::llround(mean);
    shares[std::string(kTimePartNames[i])] = cct > 0 ? sum[i] / cct : 0.0;
    largest = sum[i] > sum[largest] ? i : largest;
    largest_excess = i >= 2 && sum[i] > sum[largest_excess] ? i : largest_excess;
  }
  return {{"ops", n},
          {"mean_cct_ns", std::llround(cct / static_cast<double>(n))},
          {"parts_ns", std::move(parts)},
          {"shares", std::move(shares)},
          {"largest", kTimePartNames[largest]},
          {"largest_excess", sum[largest_excess] > 0 ? json(kTimePartNames[largest_excess]) : json(nullptr)},
          {"transport_measured", measured},
          {"retransmits", retransmits},
          {"timeouts", timeouts},
          {"cc_cuts", cuts},
          {"cnps", cnps}};
}

json collectives_section(const ResultInput& in) {
  const auto baseline = group(in.baseline_collectives);
  json ops = json::array();
  for (const auto& [key, cs] : group(in.collectives)) {
    const Percentiles cct = cct_percentiles(cs);
    const double factor = cs.front()->busbw_factor;
    // nccl-tests: algbw = S / t with GB = 1e9 B; bytes per ns is exactly GB/s. t = median CCT.
    const auto algbw = ratio(static_cast<double>(std::get<2>(key)), static_cast<double>(cct.p50));
    const auto pred = predicted(cs);
    const auto pred_network = predicted(cs, &CollectiveRecord::predicted_network);
    const auto pred_window = predicted(cs, &CollectiveRecord::predicted_window);
    // Which bound the prediction is: NCCL's window when it is the slower of the two.
    json bound = nullptr;
    if (pred_network) {
      bound = pred_window && *pred_window > *pred_network ? "nccl_window" : "network";
    }
    json op = {
        {"key", key_text(key)},
        {"op", std::get<0>(key)},
        {"algorithm", std::get<1>(key)},
        {"bytes", std::get<2>(key)},
        {"ranks", std::get<3>(key)},
        {"count", cs.size()},
        {"cct_ns", percentiles_json(cct)},
        {"algbw_GBps", null_or(algbw)},
        {"busbw_factor", factor},
        {"busbw_GBps", algbw ? json(*algbw * factor) : json(nullptr)},
        {"predicted_ns", pred ? json(*pred) : json(nullptr)},
        {"predicted_network_ns", pred_network ? json(*pred_network) : json(nullptr)},
        {"predicted_window_ns", pred_window ? json(*pred_window) : json(nullptr)},
        {"bound", bound},
        {"measured_over_predicted",
         pred ? null_or(ratio(static_cast<double>(cct.p50), static_cast<double>(*pred))) : json(nullptr)},
        {"attribution", attribution_json(cs)}};
    const auto b = baseline.find(key);
    if (b != baseline.end()) {
      const Percentiles base = cct_percentiles(b->second);
      op["baseline_cct_p50_ns"] = base.p50;
      op["baseline_cct_p99_ns"] = base.p99;
      const auto base_algbw = ratio(static_cast<double>(std::get<2>(key)), static_cast<double>(base.p50));
      op["baseline_busbw_GBps"] = base_algbw ? json(*base_algbw * factor) : json(nullptr);
      op["cct_p50_vs_baseline"] = null_or(ratio(static_cast<double>(cct.p50), static_cast<double>(base.p50)));
      op["baseline_attribution"] = attribution_json(b->second);
    } else {
      op["baseline_cct_p50_ns"] = nullptr;
      op["baseline_cct_p99_ns"] = nullptr;
      op["baseline_busbw_GBps"] = nullptr;
      op["cct_p50_vs_baseline"] = nullptr;
      op["baseline_attribution"] = nullptr;
    }
    ops.push_back(std::move(op));
  }
  return {{"count", in.collectives.size()}, {"time_statistic", "median"}, {"ops", std::move(ops)}};
}

struct IterationTotals {
  std::size_t n = 0;
  double length_ns = 0;
  double compute_ns = 0;
  double exposed_ns = 0;
  double mean_length_ns() const { return length_ns / static_cast<double>(n); }
  double mean_exposed_ns() const { return exposed_ns / static_cast<double>(n); }
  double idle_fraction() const { return exposed_ns / length_ns; }
};

IterationTotals totals_of(const std::vector<IterationRecord>& its) {
  IterationTotals t;
  for (const IterationRecord& it : its) {
    ++t.n;
    t.length_ns += static_cast<double>(ns_of(it.length));
    t.compute_ns += static_cast<double>(ns_of(it.compute));
    t.exposed_ns += static_cast<double>(ns_of(it.exposed_comm));
  }
  return t;
}

json cost_of(double gpu_hours, const CostSettings& c) {
  return {{"idle_gpu_hours", gpu_hours},
          {"usd", gpu_hours * c.usd_per_gpu_hour},
          {"energy_kwh", gpu_hours * c.gpu_watts / 1000}};
}

json cost_section(const IterationTotals& t, const std::optional<IterationTotals>& base,
                  const CostSettings& c) {
  json per_iteration = cost_of(c.gpus * t.mean_exposed_ns() / kNsPerHour, c);
  json run = cost_of(c.gpus * c.run_hours * t.idle_fraction(), c);
  run["iterations"] = c.run_hours * kNsPerHour / t.mean_length_ns();
  json out = {{"gpus", c.gpus},
              {"usd_per_gpu_hour", c.usd_per_gpu_hour},
              {"gpu_watts", c.gpu_watts},
              {"run_hours", c.run_hours},
              {"per_iteration", std::move(per_iteration)},
              {"run", std::move(run)},
              {"slowdown", nullptr},
              {"simulated_ranks", c.simulated_ranks},
              // What the GPUs priced are: the ranks simulated, or more GPUs at the simulated job's idle
              // fraction (a linear scale-up, which assumes the bigger job waits on the WAN as long).
              {"basis", c.gpus == c.simulated_ranks ? "simulated" : "scaled"}};
  if (base) {
    // The time the impairment adds over the unimpaired run of the same scenario.
    const double extra_ns = t.mean_length_ns() - base->mean_length_ns();
    out["slowdown"] = {{"per_iteration", cost_of(c.gpus * extra_ns / kNsPerHour, c)},
                       {"run", cost_of(c.gpus * c.run_hours * extra_ns / t.mean_length_ns(), c)}};
  }
  return out;
}

json gpu_section(const ResultInput& in) {
  if (in.iterations.empty()) {
    return nullptr;
  }
  json iterations = json::array();
  for (const IterationRecord& it : in.iterations) {
    iterations.push_back({{"index", it.index},
                          {"length_ns", ns_of(it.length)},
                          {"compute_ns", ns_of(it.compute)},
                          {"exposed_comm_ns", ns_of(it.exposed_comm)},
                          {"gpu_idle_fraction", static_cast<double>(ns_of(it.exposed_comm)) /
                                                    static_cast<double>(ns_of(it.length))}});
  }
  const IterationTotals t = totals_of(in.iterations);
  json out = {{"iterations", std::move(iterations)},
              {"totals",
               {{"iterations", t.n},
                {"length_ns", t.length_ns},
                {"compute_ns", t.compute_ns},
                {"exposed_comm_ns", t.exposed_ns},
                {"mean_iteration_ns", t.mean_length_ns()},
                {"gpu_idle_fraction", t.idle_fraction()}}},
              {"baseline", nullptr},
              {"slowdown_vs_ideal", nullptr},
              {"slowdown_reason", nullptr},
              {"cost", nullptr},
              {"cost_reason", nullptr}};
  std::optional<IterationTotals> base;
  if (!in.has_baseline) {
    out["slowdown_reason"] =
        "no baseline in the result (the scenario was not also run on an unimpaired network)";
  } else if (in.baseline_iterations.empty()) {
    out["slowdown_reason"] = "the baseline has no iterations";
  } else {
    base = totals_of(in.baseline_iterations);
    out["baseline"] = {{"iterations", base->n},
                       {"mean_iteration_ns", base->mean_length_ns()},
                       {"gpu_idle_fraction", base->idle_fraction()}};
    out["slowdown_vs_ideal"] = t.mean_length_ns() / base->mean_length_ns();
  }
  if (in.cost) {
    out["cost"] = cost_section(t, base, *in.cost);
  } else {
    out["cost_reason"] = "the scenario has no \"cost\" (gpus, usd_per_gpu_hour, gpu_watts, run_hours)";
  }
  return out;
}

json packets_section(const ResultInput& in) {
  std::uint64_t sent = 0;
  std::uint64_t retransmits = 0;
  std::uint64_t timeouts = 0;
  if (in.transport) {  // every queue pair, the collectives' connections included
    sent = in.transport->packets_sent;
    retransmits = in.transport->retransmits;
    timeouts = in.transport->timeouts;
  } else {
    for (const FlowRecord& f : in.flows) {
      sent += f.packets_sent;
      retransmits += f.retransmits;
      timeouts += f.timeouts;
    }
  }
  std::map<std::string, std::uint64_t> drops;
  std::uint64_t dropped = 0;
  std::uint64_t marks = 0;
  std::uint64_t duplicated = 0;
  std::uint64_t corrupted = 0;
  std::uint64_t reordered = 0;
  for (const PathRecord& p : in.paths) {
    for (const auto& [cause, n] : p.dropped) {
      drops[cause] += n;
      dropped += n;
    }
    marks += p.marked_ce;
    duplicated += p.duplicated;
    corrupted += p.corrupted;
    reordered += p.reordered;
  }
  return {
      {"one_way_delay_ns", in.one_way_delay_ns ? percentiles_json(*in.one_way_delay_ns) : json(nullptr)},
      {"packets_sent", sent},
      {"retransmits", retransmits},
      {"retransmit_fraction", null_or(ratio(static_cast<double>(retransmits), static_cast<double>(sent)))},
      {"timeouts", timeouts},
      {"dropped", dropped},
      {"dropped_by_cause", drops},
      {"marked_ce", marks},
      {"duplicated", duplicated},
      {"corrupted", corrupted},
      {"reordered", reordered}};
}

json paths_section(const ResultInput& in) {
  json paths = json::array();
  for (const PathRecord& p : in.paths) {
    std::uint64_t dropped = 0;
    for (const auto& [cause, n] : p.dropped) {
      dropped += n;
    }
    paths.push_back(
        {{"name", p.name},
         {"wan", p.wan},
         {"packets_in", p.packets_in},
         {"delivered", p.delivered},
         {"dropped", dropped},
         {"drop_fraction", null_or(ratio(static_cast<double>(dropped), static_cast<double>(p.packets_in)))},
         {"marked_ce", p.marked_ce},
         {"queue_bytes", percentiles_json(p.queue_bytes)},
         {"queue_delay_ns", percentiles_json(p.queue_delay_ns)}});
  }
  return paths;
}

// Multipath steering (docs/steering.md): per path its share of the bytes, mean utilization,
// the controller's last weight and queue pairs; when the queue pairs last moved.
json steering_section(const ResultInput& in) {
  const SteeringRecord& s = *in.steering;
  std::map<std::pair<std::string, std::string>, std::uint64_t> pair_bytes;
  for (const SteeredPathRecord& p : s.paths) {
    pair_bytes[{p.from, p.to}] += p.bytes;
  }
  json paths = json::array();
  for (const SteeredPathRecord& p : s.paths) {
    double utilization = 0;
    for (double u : p.utilization) {
      utilization += u;
    }
    paths.push_back(
        {{"from", p.from},
         {"to", p.to},
         {"index", p.index},
         {"via", p.via},
         {"capacity_bps", p.capacity_bps},
         {"bytes", p.bytes},
         {"byte_share",
          null_or(ratio(static_cast<double>(p.bytes), static_cast<double>(pair_bytes[{p.from, p.to}])))},
         {"mean_utilization", null_or(ratio(utilization, static_cast<double>(p.utilization.size())))},
         {"final_weight", p.weight.empty() ? json(nullptr) : json(p.weight.back())},
         {"final_queue_pairs", p.queue_pairs.empty() ? json(nullptr) : json(p.queue_pairs.back())}});
  }
  json events = json::array();
  for (const SteeringEventRecord& e : s.events) {
    events.push_back({{"t_ns", e.t_ns},
                      {"from", e.from},
                      {"to", e.to},
                      {"index", e.index},
                      {"kind", e.kind},
                      {"reaction_ns", e.reaction_ns < 0 ? json(nullptr) : json(e.reaction_ns)}});
  }
  return {{"policy", s.policy},
          {"interval_ns", ns_of(s.interval)},
          {"events", std::move(events)},
          {"moves", s.moves},
          {"decisions", s.decision_t_ns.size()},
          {"last_move_ns", s.decision_t_ns.empty() ? json(nullptr) : json(s.decision_t_ns.back())},
          {"paths", std::move(paths)}};
}

// Jain, Chiu and Hawe (1984): (sum x)^2 / (n sum x^2), over the bulk flows as result.json does
// (a collective's queue pairs are not bulk flows: they carry what the schedule gives them).
std::optional<double> jain(const std::vector<FlowRecord>& flows) {
  double sum = 0;
  double squares = 0;
  std::size_t n = 0;
  for (const FlowRecord& f : flows) {
    if (f.size_bytes == 0 && f.traffic_class != "collective") {
      sum += f.goodput_bps;
      squares += f.goodput_bps * f.goodput_bps;
      ++n;
    }
  }
  if (n == 0) {
    return std::nullopt;
  }
  return squares == 0 ? 1.0 : sum * sum / (static_cast<double>(n) * squares);
}

json flows_section(const ResultInput& in) {
  json flows = json::array();
  double total = 0;
  for (const FlowRecord& f : in.flows) {
    total += f.goodput_bps;
    flows.push_back({{"id", f.id},
                     {"from", f.from},
                     {"to", f.to},
                     {"cc", f.cc},
                     {"size_bytes", f.size_bytes},
                     {"goodput_bps", f.goodput_bps},
                     {"rtt_ns", percentiles_json(f.rtt_ns)},
                     {"packets_sent", f.packets_sent},
                     {"retransmits", f.retransmits},
                     {"retransmit_fraction", null_or(ratio(static_cast<double>(f.retransmits),
                                                           static_cast<double>(f.packets_sent)))},
                     {"timeouts", f.timeouts},
                     {"marks_ce", f.marks_ce},
                     {"completion_ns", f.completion ? json(ns_of(*f.completion)) : json(nullptr)},
                     {"class", f.traffic_class.empty() ? json(nullptr) : json(f.traffic_class)}});
  }
  // Background traffic by class (storage, tenants, microbursts beside the workload).
  json background = json::array();
  for (const BackgroundRecord& b : in.background) {
    background.push_back({{"class", b.traffic_class},
                          {"flows", b.flows},
                          {"bytes_delivered", b.bytes_delivered},
                          {"goodput_bps", b.goodput_bps},
                          {"retransmits", b.retransmits}});
  }
  return {{"flows", std::move(flows)},
          {"goodput_total_bps", total},
          {"jain_fairness", null_or(jain(in.flows))},
          {"background", std::move(background)}};
}

// Things a user should know before trusting the figures (docs/reports.md "Warnings"): each
// {kind, message}.
json warnings_section(const ResultInput& in) {
  json out = json::array();
  auto warn = [&](const char* kind, const std::string& message) {
    out.push_back({{"kind", kind}, {"message", message}});
  };
  if (in.warmup_kept) {
    warn("warmup",
         "the run has no more iterations than results.warmup_iterations (" +
             std::to_string(in.warmup_iterations) +
             "): the warm-up (connections opening, slow start) is in every statistic; run more iterations");
  }
  // Still trending: first against last (after the warm-up) differs by more than 10 %.
  auto trend = [&](const std::string& what, double first, double last) {
    if (first > 0 && std::abs(last - first) / first > 0.10) {
      std::ostringstream os;
      os << std::fixed << std::setprecision(1) << what << " still trending at the end of the run: first "
         << first / 1e6 << " ms, last " << last / 1e6 << " ms (" << (last > first ? "+" : "")
         << (last - first) / first * 100
         << " %); the percentiles mix a transient with the steady state: run more iterations";
      warn("trending", os.str());
    }
  };
  if (in.iterations.size() >= 2) {
    trend("the iteration time", static_cast<double>(in.iterations.front().length.count()),
          static_cast<double>(in.iterations.back().length.count()));
  }
  // Per op kind: its mean CCT in the first iteration against the last (ops of one kind within an
  // iteration differ by where they sit in it, which is no trend).
  for (const auto& [key, cs] : group(in.collectives)) {
    std::map<std::int64_t, std::pair<double, int>> per_iteration;
    for (const CollectiveRecord* c : cs) {
      auto& [sum, n] = per_iteration[c->iteration];
      sum += static_cast<double>(c->cct.count());
      ++n;
    }
    if (per_iteration.size() >= 2) {
      const auto& [first_sum, first_n] = per_iteration.begin()->second;
      const auto& [last_sum, last_n] = per_iteration.rbegin()->second;
      trend("the mean " + key_text(key) + " CCT per iteration", first_sum / first_n, last_sum / last_n);
    }
  }
  // Controllers whose defaults are tuned for microsecond fabrics, on a path with a WAN's RTT.
  double rtt_ns = 0;
  for (const FlowRecord& f : in.flows) {
    rtt_ns = std::max(rtt_ns, static_cast<double>(f.rtt_ns.p50));
  }
  if (rtt_ns == 0 && in.one_way_delay_ns) {
    rtt_ns = 2 * static_cast<double>(in.one_way_delay_ns->p50);
  }
  const bool tuned = (in.cc == "swift" && in.cc_params.contains("base_target_us")) ||
                     (in.cc == "timely" && in.cc_params.contains("t_high_us"));
  if ((in.cc == "swift" || in.cc == "timely") && !tuned && rtt_ns >= 1e6) {
    std::ostringstream os;
    os.precision(3);
    os << in.cc << "'s defaults target a datacenter fabric ("
       << (in.cc == "swift" ? "a 25 us base delay" : "t_low 50 us, t_high 500 us")
       << "), but this path's RTT p50 is " << rtt_ns / 1e6
       << " ms: every RTT reads as congestion and the window stays near its floor. Set "
       << (in.cc == "swift" ? "cc_params.base_target_us" : "cc_params.t_low_us / t_high_us")
       << " near the path's RTT, or use a WAN controller (bbr, cubic, acc2)";
    warn("controller", os.str());
  }
  std::uint64_t reordered = 0;
  for (const PathRecord& p : in.paths) {
    reordered += p.reordered;
  }
  if (in.recovery == "go_back_n" && reordered > 0) {
    warn("recovery",
         "go_back_n (RoCE's recovery) resends everything after a packet that arrives out of order, and "
         "the network reordered " +
             std::to_string(reordered) +
             " packets: each looks like a loss. Real RoCE NICs collapse the same way; selective_repeat "
             "tolerates reordering (RACK, RFC 8985)");
  }
  return out;
}

}  // namespace

nlohmann::json steering_row(const nlohmann::json& result) {
  const json none = json::object();
  const json& steering =
      result.contains("steering") && result["steering"].is_object() ? result["steering"] : none;
  const std::uint64_t warmup = result.value("warmup_iterations", std::uint64_t{0});
  std::vector<double> lengths;
  for (const json& it : result.value("iterations", json::array())) {
    if (it.value("index", std::uint64_t{0}) >= warmup) {
      lengths.push_back(
          static_cast<double>(it.value("end_ns", std::int64_t{0}) - it.value("start_ns", std::int64_t{0})));
    }
  }
  std::vector<double> ccts;
  for (const json& c : result.value("collectives", json::array())) {
    if (c.value("iteration", std::uint64_t{0}) >= warmup) {
      ccts.push_back(
          static_cast<double>(c.value("end_ns", std::int64_t{0}) - c.value("start_ns", std::int64_t{0})));
    }
  }
  std::sort(ccts.begin(), ccts.end());
  // Nearest rank (as the report's percentiles): the smallest value with at least p of them at or below.
  const auto rank = [&](double p) -> json {
    if (ccts.empty()) {
      return nullptr;
    }
    const auto k = static_cast<std::size_t>(std::ceil(p * static_cast<double>(ccts.size())));
    return ccts[std::clamp<std::size_t>(k, 1, ccts.size()) - 1];
  };
  std::uint64_t wan_bytes = 0;
  for (const json& p : steering.value("paths", json::array())) {
    wan_bytes += p.value("bytes", std::uint64_t{0});
  }
  const double seconds = static_cast<double>(result.value("duration_ns", std::int64_t{0})) * 1e-9;
  const json packets = result.value("packets", json::object());
  double mean = 0;
  for (double l : lengths) {
    mean += l / static_cast<double>(lengths.size());
  }
  return {
      {"policy", steering.value("policy", "static")},
      {"mode", result.value("mode", "sim")},
      {"completed", result.value("completed", false)},
      {"iterations", lengths.size()},
      {"mean_iteration_ns", lengths.empty() ? json(nullptr) : json(mean)},
      {"cct_p50_ns", rank(0.5)},
      {"cct_p99_ns", rank(0.99)},
      {"wan_bytes", wan_bytes},
      {"wan_goodput_bps", seconds > 0 ? json(static_cast<double>(wan_bytes) * 8 / seconds) : json(nullptr)},
      {"moves", steering.value("moves", std::uint64_t{0})},
      {"retransmits", packets.value("retransmits", std::uint64_t{0})},
      {"spurious_retransmits", packets.value("spurious_retransmits", std::uint64_t{0})},
      {"timeouts", packets.value("timeouts", std::uint64_t{0})}};
}

nlohmann::json build_report(const nlohmann::json& result, const std::string& file) {
  const ResultInput in = read_result(result, file);
  const AccountingRecord& a = in.accounting;
  json report = {{"gradwall", kReportVersion},
                 {"run",
                  {{"scenario", in.scenario},
                   {"scenario_file", in.scenario_file},
                   {"result_file", in.file},
                   {"seed", in.seed},
                   {"mode", in.mode},
                   {"duration_ns", ns_of(in.duration)}}},
                 {"collectives", collectives_section(in)},
                 {"gpu", gpu_section(in)},
                 {"packets", packets_section(in)},
                 {"paths", paths_section(in)},
                 {"flows", flows_section(in)},
                 {"accounting", a.present ? json{{"balanced", a.balanced},
                                                 {"packets_sent", a.packets_sent},
                                                 {"packets_received", a.packets_received},
                                                 {"dropped", a.dropped}}
                                          : json(nullptr)}};
  report["run"]["warmup_iterations_excluded"] = in.warmup_excluded_iterations;
  if (in.steering) {
    report["steering"] = steering_section(in);  // only then, so other reports stay as they were
    if (result.contains("steering_comparison")) {
      report["steering"]["comparison"] = result["steering_comparison"];
    }
  }
  report["warnings"] = warnings_section(in);
  report["checks"] = evaluate_checks(in, report);
  if (in.unfinished_collectives + in.unfinished_iterations > 0) {
    report["checks"].push_back(
        {{"name", "workload_completed"},
         {"passed", false},
         {"measured", in.unfinished_collectives + in.unfinished_iterations},
         {"limit", 0},
         {"reason", std::to_string(in.unfinished_collectives) + " collective op(s) and " +
                        std::to_string(in.unfinished_iterations) +
                        " iteration(s) had not finished when the run ended; raise workload.duration or look "
                        "for a stall (the statistics leave them out)"}});
  }
  bool passed = true;
  for (const json& c : report["checks"]) {
    passed = passed && c["passed"].get<bool>();
  }
  report["verdict"] = passed ? "pass" : "fail";
  return report;
}

const std::set<std::string, std::less<>>& known_threshold_names() {
  return check_names();
}

}  // namespace gw::reports
