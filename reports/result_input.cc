#include "reports/result_input.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/errors.h"
#include "core/json_reader.h"

namespace gw::reports {
namespace {

constexpr std::int64_t kMaxInt = std::numeric_limits<std::int64_t>::max();

std::uint64_t count(const JsonReader& r, std::string_view key) {
  return static_cast<std::uint64_t>(r.integer(key, 0, kMaxInt));
}

std::uint64_t optional_count(const JsonReader& r, std::string_view key) {
  return r.has(key) ? count(r, key) : 0;
}

Duration nanoseconds(const JsonReader& r, std::string_view key) {
  return Duration{std::llround(r.number(key, -9.2e18, 9.2e18))};
}

// {count, mean, min, p50, p90, p99, p999, max}: nanoseconds or bytes, integers or not.
Percentiles percentiles_of(const JsonReader& r) {
  const auto value = [&](std::string_view key) { return std::llround(r.number(key, -9.2e18, 9.2e18)); };
  Percentiles p;
  p.count = optional_count(r, "count");
  p.mean = r.optional_number("mean", -kNoUpperBound, kNoUpperBound).value_or(0);
  p.min = r.has("min") ? value("min") : 0;
  p.p50 = value("p50");
  p.p90 = value("p90");
  p.p99 = value("p99");
  p.p999 = r.has("p999") ? value("p999") : p.p99;
  p.max = value("max");
  if (p.p50 > p.p90 || p.p90 > p.p99 || p.p99 > p.p999 || p.p999 > p.max) {
    r.fail_here("percentiles must not decrease (p50 <= p90 <= p99 <= p999 <= max)");
  }
  return p;
}

Percentiles optional_percentiles(const JsonReader& r, std::string_view key) {
  if (!r.has(key) || r.raw().at(key).is_null()) {
    return {};
  }
  return percentiles_of(r.object(key));
}

CollectiveRecord collective_of(const JsonReader& r) {
  CollectiveRecord c;
  c.name = r.optional_string("name").value_or("");
  c.op = r.string("op");
  c.algorithm = r.optional_string("algorithm").value_or("");
  c.bytes = count(r, "bytes");
  c.ranks = r.integer("ranks", 1, kMaxInt);
  c.iteration = r.optional_integer("iteration", -1, kMaxInt).value_or(-1);
  const Duration start = nanoseconds(r, "start_ns");
  const Duration end = nanoseconds(r, "end_ns");
  if (end < start) {
    r.fail("end_ns", "must not precede start_ns (" + std::to_string(end.count()) + " < " +
                         std::to_string(start.count()) + ")");
  }
  c.cct = end - start;
  if (r.has("predicted_ns") && !r.raw().at("predicted_ns").is_null()) {
    c.predicted = Duration{std::llround(r.number("predicted_ns", 0, 9.2e18))};
  }
  for (const auto& [key, out] : {std::pair{"predicted_network_ns", &c.predicted_network},
                                 std::pair{"predicted_window_ns", &c.predicted_window}}) {
    if (r.has(key) && !r.raw().at(key).is_null()) {
      *out = Duration{std::llround(r.number(key, 0, 9.2e18))};
    }
  }
  c.busbw_factor = r.number("busbw_factor", 0, 1e6);
  if (r.has("attribution") && !r.raw().at("attribution").is_null()) {
    const JsonReader a = r.object("attribution");
    const JsonReader parts = a.object("parts_ns");
    AttributionRecord rec;
    Duration sum{0};
    for (std::size_t i = 0; i < kTimePartNames.size(); ++i) {
      rec.parts[i] = nanoseconds(parts, kTimePartNames[i]);
      if (rec.parts[i] < Duration{0}) {
        parts.fail(kTimePartNames[i], "must not be negative");
      }
      sum += rec.parts[i];
    }
    if (sum != c.cct) {
      a.fail("parts_ns", "must add up to end_ns - start_ns (" + std::to_string(sum.count()) +
                             " != " + std::to_string(c.cct.count()) + ")");
    }
    rec.transport_measured = a.boolean("transport_measured", false);
    rec.retransmits = optional_count(a, "retransmits");
    rec.timeouts = optional_count(a, "timeouts");
    rec.cc_cuts = optional_count(a, "cc_cuts");
    rec.cnps = optional_count(a, "cnps");
    c.attribution = rec;
  }
  return c;
}

IterationRecord iteration_of(const JsonReader& r) {
  IterationRecord it;
  it.index = r.integer("index", 0, kMaxInt);
  const Duration start = nanoseconds(r, "start_ns");
  const Duration end = nanoseconds(r, "end_ns");
  if (end <= start) {
    r.fail("end_ns", "must follow start_ns (an iteration takes time)");
  }
  it.length = end - start;
  it.compute = nanoseconds(r, "compute_ns");
  it.exposed_comm = nanoseconds(r, "exposed_comm_ns");
  if (it.compute < Duration{0} || it.compute > it.length) {
    r.fail("compute_ns", "must be in [0, end_ns - start_ns]");
  }
  if (it.exposed_comm < Duration{0} || it.exposed_comm > it.length) {
    r.fail("exposed_comm_ns", "must be in [0, end_ns - start_ns]");
  }
  return it;
}

FlowRecord flow_of(const JsonReader& r) {
  FlowRecord f;
  f.id = r.integer("id", 0, kMaxInt);
  f.from = r.optional_string("from").value_or("");
  f.to = r.optional_string("to").value_or("");
  f.cc = r.optional_string("cc").value_or("");
  f.size_bytes = optional_count(r, "size_bytes");
  f.goodput_bps = r.number("goodput_bps", 0, kNoUpperBound);
  f.packets_sent = optional_count(r, "packets_sent");
  f.retransmits = optional_count(r, "retransmits");
  f.timeouts = optional_count(r, "timeouts");
  f.marks_ce = optional_count(r, "marks_ce");
  f.rtt_ns = optional_percentiles(r, "rtt_ns");
  if (r.has("completion_ns") && !r.raw().at("completion_ns").is_null()) {
    f.completion = nanoseconds(r, "completion_ns");
  }
  f.traffic_class = r.optional_string("class").value_or("");
  return f;
}

BackgroundRecord background_of(const JsonReader& r) {
  BackgroundRecord b;
  b.traffic_class = r.string("class");
  b.flows = optional_count(r, "flows");
  b.bytes_delivered = optional_count(r, "bytes_delivered");
  b.goodput_bps = r.number("goodput_bps", 0, kNoUpperBound);
  b.retransmits = optional_count(r, "retransmits");
  return b;
}

std::map<std::string, std::uint64_t> counts_by_cause(const JsonReader& r, std::string_view key) {
  std::map<std::string, std::uint64_t> out;
  if (const auto o = r.optional_object(key)) {
    for (const auto& [cause, v] : o->raw().items()) {
      out[cause] = count(*o, cause);
    }
  }
  return out;
}

PathRecord path_of(const JsonReader& r) {
  PathRecord p;
  p.name = r.string("name");
  p.wan = r.boolean("wan", false);
  p.packets_in = optional_count(r, "packets_in");
  p.delivered = optional_count(r, "delivered");
  p.dropped = counts_by_cause(r, "dropped");
  p.marked_ce = optional_count(r, "marked_ce");
  p.duplicated = optional_count(r, "duplicated");
  p.corrupted = optional_count(r, "corrupted");
  p.reordered = optional_count(r, "reordered");
  p.queue_bytes = optional_percentiles(r, "queue_bytes");
  p.queue_delay_ns = optional_percentiles(r, "queue_delay_ns");
  return p;
}

std::vector<double> numbers(const JsonReader& r, std::string_view key) {
  std::vector<double> out;
  for (const nlohmann::json& v : r.array(key)) {
    if (!v.is_number()) {
      r.fail(key, "must be a list of numbers");
    }
    out.push_back(v.get<double>());
  }
  return out;
}

SteeringRecord steering_of(const JsonReader& r) {
  SteeringRecord s;
  s.policy = r.string("policy");
  s.interval = nanoseconds(r, "interval_ns");
  s.moves = optional_count(r, "moves");
  for (const JsonReader& p : r.objects("paths")) {
    SteeredPathRecord sp;
    sp.from = p.string("from");
    sp.to = p.string("to");
    sp.index = count(p, "index");
    for (const nlohmann::json& v : p.array("via")) {
      if (!v.is_string()) {
        p.fail("via", "must be a list of relay names");
      }
      sp.via.push_back(v.get<std::string>());
    }
    sp.capacity_bps = optional_count(p, "capacity_bps");
    sp.bytes = count(p, "bytes");
    sp.weight = numbers(p, "weight");
    sp.utilization = numbers(p, "utilization");
    for (double q : numbers(p, "queue_pairs")) {
      sp.queue_pairs.push_back(static_cast<std::uint64_t>(q));
    }
    s.paths.push_back(std::move(sp));
  }
  for (const JsonReader& d : r.objects("decisions")) {
    s.decision_t_ns.push_back(ns_of(nanoseconds(d, "t_ns")));
  }
  if (r.has("events")) {
    for (const JsonReader& e : r.objects("events")) {
      SteeringEventRecord ev;
      ev.t_ns = ns_of(nanoseconds(e, "t_ns"));
      ev.from = e.string("from");
      ev.to = e.string("to");
      ev.index = count(e, "index");
      ev.kind = e.choice("kind", {"up", "down", "capacity", "requested"}, "");
      ev.reaction_ns = e.integer("reaction_ns", -1, std::int64_t{1} << 62);
      s.events.push_back(std::move(ev));
    }
  }
  return s;
}

template <class T, class F>
std::vector<T> records(const JsonReader& r, std::string_view key, F read) {
  std::vector<T> out;
  if (r.has(key) && !r.raw().at(key).is_null()) {
    for (const JsonReader& item : r.objects(key)) {
      out.push_back(read(item));
    }
  }
  return out;
}

// As records(), leaving out (and counting) the items whose end_ns is -1: not finished when
// the run ended.
template <class T, class F>
std::vector<T> finished_records(const JsonReader& r, std::string_view key, F read,
                                std::uint64_t& unfinished) {
  std::vector<T> out;
  if (r.has(key) && !r.raw().at(key).is_null()) {
    for (const JsonReader& item : r.objects(key)) {
      const nlohmann::json& end = item.raw().contains("end_ns") ? item.raw().at("end_ns") : nlohmann::json();
      if (end.is_number_integer() && end.get<std::int64_t>() == -1) {
        ++unfinished;
        continue;
      }
      out.push_back(read(item));
    }
  }
  return out;
}

AccountingRecord accounting_of(const JsonReader& result) {
  AccountingRecord a;
  const auto r = result.optional_object("accounting");
  if (!r) {
    return a;
  }
  a.present = true;
  a.packets_sent = optional_count(*r, "packets_sent");
  a.packets_received = optional_count(*r, "packets_received");
  for (const auto& [cause, n] : counts_by_cause(*r, "dropped")) {
    a.dropped += n;
  }
  a.balanced = r->boolean("balanced", false);
  return a;
}

void read_scenario(const JsonReader& result, ResultInput& in) {
  if (!result.has("scenario_json") || result.raw().at("scenario_json").is_null()) {
    return;
  }
  const JsonReader s = result.object("scenario_json");
  if (const auto c = s.optional_object("cost")) {
    CostSettings cost;
    // Each optional, as the scenario reads them (docs/scenarios.md "cost"): 0 when absent.
    cost.gpus = c->optional_number("gpus", 0, 1e12).value_or(0);
    cost.usd_per_gpu_hour = c->optional_number("usd_per_gpu_hour", 0, 1e12).value_or(0);
    cost.gpu_watts = c->optional_number("gpu_watts", 0, 1e9).value_or(0);
    cost.run_hours = c->optional_number("run_hours", 0, 1e9).value_or(0);
    if (s.raw().contains("topology") && s.raw().at("topology").is_object() &&
        s.raw().at("topology").contains("regions") && s.raw().at("topology").at("regions").is_array()) {
      for (const nlohmann::json& r : s.raw().at("topology").at("regions")) {
        if (r.is_object() && r.contains("hosts") && r.at("hosts").is_number()) {
          cost.simulated_ranks += r.at("hosts").get<double>();
        }
      }
    }
    if (cost.gpus == 0) {
      cost.gpus = cost.simulated_ranks;
    }
    in.cost = cost;
  }
  if (s.raw().contains("transport") && s.raw().at("transport").is_object()) {
    const nlohmann::json& t = s.raw().at("transport");
    if (t.contains("cc") && t.at("cc").is_string()) {
      in.cc = t.at("cc").get<std::string>();
    }
    if (t.contains("cc_params") && t.at("cc_params").is_object()) {
      in.cc_params = t.at("cc_params");
    }
    if (t.contains("recovery") && t.at("recovery").is_string()) {
      in.recovery = t.at("recovery").get<std::string>();
    }
  }
  if (const auto t = s.optional_object("thresholds")) {
    for (const auto& [name, limit] : t->raw().items()) {
      in.thresholds.push_back({name, limit, t->path_of(name)});
    }
  }
}

// Leaves out the first `warmup_iterations` iterations (and their ops) of the run and of its
// baseline, unless that would leave no iteration.
void drop_warmup(ResultInput& in) {
  const std::uint64_t w = in.warmup_iterations;
  if (w == 0 || in.iterations.empty()) {
    return;
  }
  const bool enough = std::any_of(in.iterations.begin(), in.iterations.end(), [&](const IterationRecord& i) {
    return static_cast<std::uint64_t>(i.index) >= w;
  });
  if (!enough) {
    in.warmup_kept = true;
    return;
  }
  auto early_op = [&](const CollectiveRecord& c) {
    return c.iteration >= 0 && static_cast<std::uint64_t>(c.iteration) < w;
  };
  auto early_iteration = [&](const IterationRecord& i) { return static_cast<std::uint64_t>(i.index) < w; };
  const std::size_t before = in.iterations.size();
  std::erase_if(in.iterations, early_iteration);
  in.warmup_excluded_iterations = before - in.iterations.size();
  std::erase_if(in.collectives, early_op);
  const bool baseline_enough =
      std::any_of(in.baseline_iterations.begin(), in.baseline_iterations.end(),
                  [&](const IterationRecord& i) { return static_cast<std::uint64_t>(i.index) >= w; });
  if (baseline_enough) {
    std::erase_if(in.baseline_iterations, early_iteration);
    std::erase_if(in.baseline_collectives, early_op);
  }
}

}  // namespace

ResultInput read_result(const nlohmann::json& result, const std::string& file) {
  const JsonReader r(result, file);
  const std::string version = r.string("gradwall");
  if (version != "result/v1") {
    r.fail("gradwall", "expected \"result/v1\", got \"" + version + "\" (is this a result.json?)");
  }
  ResultInput in;
  in.file = file;
  in.scenario = r.optional_string("scenario").value_or("");
  in.scenario_file = r.optional_string("scenario_file").value_or("");
  in.seed = r.optional_seed("seed").value_or(0);
  in.mode = r.optional_string("mode").value_or("sim");
  in.duration = r.has("duration_ns") ? nanoseconds(r, "duration_ns") : Duration{0};
  in.flows = records<FlowRecord>(r, "flows", flow_of);
  in.background = records<BackgroundRecord>(r, "background", background_of);
  in.paths = records<PathRecord>(r, "paths", path_of);
  if (r.has("steering") && !r.raw().at("steering").is_null()) {
    in.steering = steering_of(r.object("steering"));
  }
  in.collectives =
      finished_records<CollectiveRecord>(r, "collectives", collective_of, in.unfinished_collectives);
  in.iterations = finished_records<IterationRecord>(r, "iterations", iteration_of, in.unfinished_iterations);
  if (r.has("packets") && !r.raw().at("packets").is_null()) {
    const JsonReader p = r.object("packets");
    if (p.has("one_way_delay_ns") && !p.raw().at("one_way_delay_ns").is_null()) {
      in.one_way_delay_ns = percentiles_of(p.object("one_way_delay_ns"));
    }
    if (p.has("packets_sent")) {
      in.transport = ResultInput::TransportTotals{
          optional_count(p, "packets_sent"), optional_count(p, "retransmits"), optional_count(p, "timeouts")};
    }
  }
  if (r.has("baseline") && !r.raw().at("baseline").is_null()) {
    const JsonReader b = r.object("baseline");
    // The unimpaired run can stall too (a controller that never opens its window): what it
    // did not finish is left out, and with no finished iteration there is no baseline.
    std::uint64_t unfinished = 0;
    in.baseline_collectives = finished_records<CollectiveRecord>(b, "collectives", collective_of, unfinished);
    in.baseline_iterations = finished_records<IterationRecord>(b, "iterations", iteration_of, unfinished);
    in.has_baseline = !in.baseline_iterations.empty();
  }
  in.accounting = accounting_of(r);
  read_scenario(r, in);
  in.warmup_iterations = optional_count(r, "warmup_iterations");
  drop_warmup(in);
  return in;
}

}  // namespace gw::reports
