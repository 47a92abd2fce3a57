#include "harness/run/sim_result.h"

namespace gw {

namespace {

nlohmann::json percentiles_json(const Percentiles& p) {
  return {{"count", p.count}, {"mean", p.mean}, {"min", p.min},   {"p50", p.p50},
          {"p90", p.p90},     {"p99", p.p99},   {"p999", p.p999}, {"max", p.max}};
}

}  // namespace

bool Accounting::balanced() const {
  std::uint64_t dropped_total = 0;
  for (const auto& [k, v] : dropped) {
    dropped_total += v;
  }
  return packets_sent + duplicates_made == packets_received + dropped_total + in_flight_at_end;
}

// Jain, Chiu and Hawe (1984): (sum x)^2 / (n sum x^2); 1 when all are equal.
double jain_index(const std::vector<double>& x) {
  double sum = 0;
  double squares = 0;
  for (const double v : x) {
    sum += v;
    squares += v * v;
  }
  if (x.empty() || squares == 0) {
    return x.empty() ? 0 : 1;
  }
  return sum * sum / (static_cast<double>(x.size()) * squares);
}

std::uint64_t goodput_bps(std::uint64_t bytes, Duration active) {
  if (active.count() <= 0) {
    return 0;
  }
  return static_cast<std::uint64_t>(static_cast<long double>(bytes) * 8e9L /
                                    static_cast<long double>(active.count()));
}

void summarize_flows(SimResult& r) {
  std::vector<double> bulk;
  for (const FlowResult& f : r.flows) {
    if (f.traffic_class == "collective") {
      continue;
    }
    if (f.size_bytes == 0) {
      bulk.push_back(static_cast<double>(f.goodput_bps));
    }
    if (f.traffic_class.empty()) {
      continue;
    }
    auto it = std::find_if(r.background.begin(), r.background.end(),
                           [&](const BackgroundResult& b) { return b.traffic_class == f.traffic_class; });
    if (it == r.background.end()) {
      it = r.background.insert(r.background.end(), BackgroundResult{f.traffic_class});
    }
    ++it->flows;
    it->bytes_delivered += f.bytes_delivered;
    it->goodput_bps += f.goodput_bps;
    it->retransmits += f.retransmits;
  }
  r.jain_fairness = jain_index(bulk);
}

// The parts of result.json, one per type (nlohmann::json finds them by argument-dependent
// lookup, so a vector of them converts as a whole). Internal to this file.
static void to_json(nlohmann::json& j, const FlowResult& f) {
  j = {{"id", f.id},
       {"from", f.from},
       {"to", f.to},
       {"cc", f.cc},
       {"start_ns", ns_of(f.start)},
       {"size_bytes", f.size_bytes},
       {"goodput_bps", f.goodput_bps},
       {"bytes_delivered", f.bytes_delivered},
       {"packets_sent", f.packets_sent},
       {"retransmits", f.retransmits},
       {"timeouts", f.timeouts},
       {"loss_probes", f.loss_probes},
       {"spurious_retransmits", f.spurious_retransmits},
       {"loss_undos", f.loss_undos},
       {"marks_ce", f.marks_ce},
       {"cnps", f.cnps},
       {"rtt_ns", percentiles_json(f.rtt_ns)},
       {"mean_cwnd_bytes", f.mean_cwnd_bytes},
       {"mean_pacing_rate_bps", f.mean_pacing_rate_bps}};
  j["completion_ns"] = f.completion.count() >= 0 ? nlohmann::json(ns_of(f.completion)) : nullptr;
  if (!f.traffic_class.empty()) {
    j["class"] = f.traffic_class;
  }
}

static void to_json(nlohmann::json& j, const HopResult& h) {
  j = {{"name", h.name},
       {"wan", h.wan},
       {"rate_bps", h.rate_bps},
       {"packets_in", h.packets_in},
       {"delivered", h.delivered},
       {"dropped", h.dropped},
       {"marked_ce", h.marked_ce},
       {"duplicated", h.duplicated},
       {"corrupted", h.corrupted},
       {"reordered", h.reordered},
       {"queue_bytes", percentiles_json(h.queue_bytes)},
       {"queue_delay_ns", percentiles_json(h.queue_delay_ns)},
       {"sojourn_ns", percentiles_json(h.sojourn_ns)}};
}

static nlohmann::json series_json(const Series& s, const std::vector<HopResult>& hops) {
  nlohmann::json flows = nlohmann::json::array();
  for (std::size_t i = 0; i < s.flow_rate_bps.size(); ++i) {
    nlohmann::json entry = {
        {"flow", i}, {"rate_bps", s.flow_rate_bps[i]}, {"cwnd_bytes", s.flow_cwnd_bytes[i]}};
    if (i < s.flow_srtt_ns.size()) {
      entry["srtt_ns"] = s.flow_srtt_ns[i];
    }
    if (i < s.flow_retransmits.size()) {
      entry["retransmits"] = s.flow_retransmits[i];
    }
    flows.push_back(std::move(entry));
  }
  nlohmann::json hop_rows = nlohmann::json::array();
  for (std::size_t i = 0; i < s.hop_queue_bytes.size(); ++i) {
    hop_rows.push_back({{"hop", hops[i].name}, {"queue_bytes", s.hop_queue_bytes[i]}});
  }
  return {{"interval_ns", ns_of(s.interval)},
          {"t_ns", s.t_ns},
          {"flows", std::move(flows)},
          {"hops", std::move(hop_rows)}};
}

static void to_json(nlohmann::json& j, const TimeAttribution& a) {
  nlohmann::json parts = nlohmann::json::object();
  for (std::size_t i = 0; i < kTimeParts; ++i) {
    parts[std::string(time_part_name(static_cast<TimePart>(i)))] = ns_of(a.part[i]);
  }
  j = {{"parts_ns", std::move(parts)},     {"transport_measured", a.transport_measured},
       {"retransmits", a.wan.retransmits}, {"timeouts", a.wan.timeouts},
       {"cc_cuts", a.wan.chrono.cc_cuts},  {"cnps", a.wan.cnps},
       {"ce_bytes", a.wan.chrono.ce_bytes}};
}

static void to_json(nlohmann::json& j, const CollectiveOpResult& c) {
  j = {{"name", c.name},
       {"op", c.op},
       {"algorithm", c.algorithm},
       {"bytes", c.bytes},
       {"ranks", c.ranks},
       {"channels", c.channels},
       {"iteration", c.iteration},
       {"start_ns", c.start_ns},
       {"end_ns", c.end_ns},
       {"predicted_ns", c.predicted_ns},
       {"predicted_network_ns", c.predicted_network_ns},
       {"predicted_window_ns",
        c.predicted_window_ns >= 0 ? nlohmann::json(c.predicted_window_ns) : nlohmann::json()},
       {"busbw_factor", c.busbw_factor},
       {"attribution", c.attribution ? nlohmann::json(*c.attribution) : nlohmann::json()}};
}

static void to_json(nlohmann::json& j, const IterationResult& i) {
  j = {{"index", i.index},
       {"start_ns", i.start_ns},
       {"end_ns", i.end_ns},
       {"compute_ns", i.compute_ns},
       {"exposed_comm_ns", i.exposed_comm_ns}};
}

static void to_json(nlohmann::json& j, const TransferResult& t) {
  j = {{"name", t.name},           {"src", t.src},           {"dst", t.dst},      {"bytes", t.bytes},
       {"iteration", t.iteration}, {"start_ns", t.start_ns}, {"end_ns", t.end_ns}};
}

static void to_json(nlohmann::json& j, const BackgroundResult& b) {
  j = {{"class", b.traffic_class},
       {"flows", b.flows},
       {"bytes_delivered", b.bytes_delivered},
       {"goodput_bps", b.goodput_bps},
       {"retransmits", b.retransmits}};
}

static void to_json(nlohmann::json& j, const Accounting& a) {
  j = {{"packets_sent", a.packets_sent},
       {"packets_received", a.packets_received},
       {"duplicates_made", a.duplicates_made},
       {"dropped", a.dropped},
       {"corrupted_discarded", a.corrupted_discarded},
       {"in_flight_at_end", a.in_flight_at_end},
       {"balanced", a.balanced()}};
}

nlohmann::json to_json(const SimResult& r) {
  nlohmann::json out = {{"gradwall", "result/v1"},
                        {"mode", r.mode},
                        {"scenario", r.scenario},
                        {"scenario_file", r.scenario_file},
                        {"seed", r.seed},
                        {"warmup_iterations", r.warmup_iterations},
                        {"duration_ns", ns_of(r.duration)},
                        {"events", r.events},
                        {"completed", r.completed},
                        {"collectives", r.collectives},
                        {"iterations", r.iterations},
                        {"baseline", nullptr},
                        {"packets",
                         {{"one_way_delay_ns", percentiles_json(r.one_way_delay_ns)},
                          {"packets_sent", r.transport.packets_sent},
                          {"retransmits", r.transport.retransmits},
                          {"timeouts", r.transport.timeouts},
                          {"loss_probes", r.transport.loss_probes},
                          {"spurious_retransmits", r.transport.spurious_retransmits}}},
                        {"flows", r.flows},
                        {"jain_fairness", r.jain_fairness},
                        {"paths", r.hops},
                        {"series", series_json(r.series, r.hops)},
                        {"accounting", r.accounting},
                        {"scenario_json", r.scenario_json}};
  // Only for workloads that have them, so other results stay as they were.
  if (!r.transfers.empty()) {
    out["transfers"] = r.transfers;
  }
  if (!r.background.empty()) {
    out["background"] = r.background;
  }
  if (r.steering) {
    out["steering"] = *r.steering;
  }
  return out;
}

}  // namespace gw
