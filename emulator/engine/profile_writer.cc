// The inverse of the loader in profile.cc: every key written here is one parse_* reads there,
// and a value is left out exactly when the loader's default gives it back.
#include "emulator/engine/profile_writer.h"

#include <arpa/inet.h>

#include <array>
#include <cmath>
#include <cstring>
#include <string>

#include "emulator/engine/profile.h"

namespace gw {
namespace {

using nlohmann::json;

// "<base>_s|_ms|_us|_ns": the largest unit that holds the duration exactly.
void put_duration(json& j, const std::string& base, Duration d) {
  static constexpr std::array<std::pair<std::int64_t, const char*>, 3> kUnits{{
      {1'000'000'000, "_s"},
      {1'000'000, "_ms"},
      {1'000, "_us"},
  }};
  const std::int64_t ns = d.count();
  for (const auto& [unit, suffix] : kUnits) {
    if (ns % unit == 0) {
      j[base + suffix] = ns / unit;
      return;
    }
  }
  j[base + "_ns"] = ns;
}

void put_duration_if(json& j, const std::string& base, Duration d, Duration fallback) {
  if (d != fallback) {
    put_duration(j, base, d);
  }
}

// "<base>_gbps|_mbps|_kbps|_bps": the largest unit that holds the rate exactly.
void put_rate(json& j, const std::string& base, BitRate r) {
  static constexpr std::array<std::pair<std::uint64_t, const char*>, 3> kUnits{{
      {1'000'000'000, "_gbps"},
      {1'000'000, "_mbps"},
      {1'000, "_kbps"},
  }};
  for (const auto& [unit, suffix] : kUnits) {
    if (r.bps != 0 && r.bps % unit == 0) {
      j[base + suffix] = r.bps / unit;
      return;
    }
  }
  j[base + "_bps"] = r.bps;
}

template <typename T>
void put_if(json& j, const char* key, const T& value, const T& fallback) {
  if (value != fallback) {
    j[key] = value;
  }
}

// One item or an array of them, as the loader's prefix/port/opcode keys accept.
template <typename T>
void put_one_or_many(json& j, const char* key, const std::vector<T>& values) {
  if (values.size() == 1) {
    j[key] = values.front();
  } else if (!values.empty()) {
    j[key] = values;
  }
}

std::string prefix_text(const Prefix& p) {
  if (!p.text.empty()) {
    return p.text;
  }
  static constexpr std::array<std::uint8_t, 12> kMapped{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  std::array<char, INET6_ADDRSTRLEN> buf{};
  if (std::memcmp(p.address.bytes.data(), kMapped.data(), kMapped.size()) == 0 && p.length >= 96) {
    inet_ntop(AF_INET, &p.address.bytes[12], buf.data(), buf.size());
    return std::string(buf.data()) + "/" + std::to_string(p.length - 96);
  }
  inet_ntop(AF_INET6, p.address.bytes.data(), buf.data(), buf.size());
  return std::string(buf.data()) + "/" + std::to_string(p.length);
}

// ---- stage settings ---------------------------------------------------------------------

json loss_json(const LossSettings& s) {
  json j = json::object();
  switch (s.model) {
    case LossModel::kRandom:
      j["p"] = s.p;
      put_if(j, "correlation", s.correlation, 0.0);
      break;
    case LossModel::kState:
      j["model"] = "state";
      j["p13"] = s.p13;
      put_if(j, "p31", s.p31, 1 - s.p13);
      put_if(j, "p32", s.p32, 0.0);
      put_if(j, "p23", s.p23, 1.0);
      put_if(j, "p14", s.p14, 0.0);
      break;
    case LossModel::kGemodel:
      j["model"] = "gemodel";
      j["p"] = s.ge_p;
      put_if(j, "r", s.ge_r, 1 - s.ge_p);
      put_if(j, "loss_in_bad", s.ge_1_h, 1.0);
      put_if(j, "loss_in_good", s.ge_1_k, 0.0);
      break;
  }
  put_if(j, "ecn", s.ecn, false);
  return j;
}

json chance_json(const ChanceSettings& s) {
  json j = {{"p", s.p}};
  put_if(j, "correlation", s.correlation, 0.0);
  return j;
}

json delay_json(const DelaySettings& s) {
  json j = json::object();
  const Duration from_km{static_cast<std::int64_t>(std::llround(s.distance_km * kFibreNsPerKm))};
  if (s.distance_km != 0 && s.delay == from_km) {
    j["distance_km"] = s.distance_km;
  } else {
    put_duration(j, "delay", s.delay);
  }
  put_duration_if(j, "jitter", s.jitter, Duration{0});
  put_if(j, "correlation", s.correlation, 0.0);
  if (s.distribution.name != "uniform" || !s.distribution.values.empty()) {
    j["distribution"] = s.distribution.name;
  }
  if (s.reorder_policy == ReorderPolicy::kPreserve) {
    j["reorder_policy"] = "preserve";
  }
  return j;
}

json reorder_json(const DelaySettings& s) {
  json j = {{"p", s.reorder_p}};
  put_if(j, "correlation", s.reorder_correlation, 0.0);
  put_if(j, "gap", s.reorder_gap, std::uint32_t{0});
  return j;
}

json rate_json(const RateSettings& s) {
  json j = json::object();
  if (!s.trace_file.empty()) {
    j["trace_file"] = s.trace_file;
    put_duration_if(j, "trace_period", s.trace_period, Duration{0});
  } else if (!s.mahimahi_file.empty()) {
    j["mahimahi_file"] = s.mahimahi_file;
  } else {
    put_rate(j, "rate", s.rate);
  }
  put_if(j, "packet_overhead_bytes", s.packet_overhead_bytes, 0);
  put_if(j, "cell_bytes", s.cell_bytes, 0U);
  put_if(j, "cell_overhead_bytes", s.cell_overhead_bytes, 0);
  return j;
}

json aqm_json(const AqmSettings& a) {
  static constexpr std::array<const char*, 6> kKinds{"droptail", "red",     "codel",
                                                     "pie",      "dualpi2", "threshold"};
  json j = {{"kind", kKinds[static_cast<std::size_t>(a.kind)]}};
  switch (a.kind) {
    case AqmKind::kDropTail:
      break;
    case AqmKind::kRed: {
      const RedSettings d;
      j["min_bytes"] = a.red.min_bytes;
      j["max_bytes"] = a.red.max_bytes;
      put_if(j, "max_p", a.red.max_p, d.max_p);
      put_if(j, "weight", a.red.weight, d.weight);
      put_if(j, "gentle", a.red.gentle, d.gentle);
      put_if(j, "ecn", a.red.ecn, d.ecn);
      put_if(j, "mean_packet_bytes", a.red.mean_packet_bytes, d.mean_packet_bytes);
      break;
    }
    case AqmKind::kCodel: {
      const CodelSettings d;
      put_duration_if(j, "target", a.codel.target, d.target);
      put_duration_if(j, "interval", a.codel.interval, d.interval);
      put_if(j, "ecn", a.codel.ecn, d.ecn);
      break;
    }
    case AqmKind::kPie: {
      const PieSettings d;
      put_duration_if(j, "target", a.pie.target, d.target);
      put_duration_if(j, "t_update", a.pie.t_update, d.t_update);
      put_if(j, "alpha", a.pie.alpha, d.alpha);
      put_if(j, "beta", a.pie.beta, d.beta);
      put_duration_if(j, "max_burst", a.pie.max_burst, d.max_burst);
      put_if(j, "ecn", a.pie.ecn, d.ecn);
      put_if(j, "mark_ecn_threshold", a.pie.mark_ecn_threshold, d.mark_ecn_threshold);
      break;
    }
    case AqmKind::kDualPi2: {
      const DualPi2Settings d;
      put_duration_if(j, "target", a.dualpi2.target, d.target);
      put_duration_if(j, "t_update", a.dualpi2.t_update, d.t_update);
      put_if(j, "alpha", a.dualpi2.alpha, d.alpha);
      put_if(j, "beta", a.dualpi2.beta, d.beta);
      put_if(j, "coupling_k", a.dualpi2.coupling_k, d.coupling_k);
      put_duration_if(j, "l_step", a.dualpi2.l_step, d.l_step);
      put_if(j, "c_ecn", a.dualpi2.c_ecn, d.c_ecn);
      break;
    }
    case AqmKind::kThreshold:
      j["kmin_bytes"] = a.threshold.kmin_bytes;
      j["kmax_bytes"] = a.threshold.kmax_bytes;
      put_if(j, "pmax", a.threshold.pmax, 1.0);
      break;
  }
  return j;
}

json queue_json(const QueueSettings& q) {
  json j = json::object();
  if (q.limit_packets) {
    j["limit_packets"] = *q.limit_packets;
  }
  if (q.limit_bytes) {
    j["limit_bytes"] = *q.limit_bytes;
  }
  if (q.limit_time) {
    put_duration(j, "limit_time", *q.limit_time);
  }
  if (q.aqm.kind != AqmKind::kDropTail) {
    j["aqm"] = aqm_json(q.aqm);
  }
  if (q.telemetry.enabled) {
    j["int"] = json::object();
    put_if(j["int"], "node_id", q.telemetry.node_id, 0U);
  }
  return j;
}

json microburst_json(const MicroburstSettings& m) {
  json j = json::object();
  put_duration(j, "period", m.period);
  put_duration_if(j, "start", m.start, Duration{0});
  j["burst_bytes"] = m.burst_bytes;
  put_if(j, "packet_bytes", m.packet_bytes, 1500U);
  put_duration_if(j, "jitter", m.jitter, Duration{0});
  if (!m.burst_rate.unlimited()) {
    put_rate(j, "burst_rate", m.burst_rate);
  }
  return j;
}

json incast_json(const IncastSettings& s) {
  json j = {{"buffer_bytes", s.buffer_bytes}};
  put_if(j, "alpha", s.alpha, 1.0);
  j["ports"] = json::array();
  for (const auto& p : s.ports) {
    json pj = {{"match", prefix_text(p.match)}};
    put_rate(pj, "rate", p.rate);
    j["ports"].push_back(pj);
  }
  if (!s.bursts.empty()) {
    j["bursts"] = json::array();
    for (const auto& b : s.bursts) {
      json bj = {{"to", prefix_text(b.to)}, {"senders", b.senders}, {"bytes_each", b.bytes_each}};
      put_if(bj, "packet_bytes", b.packet_bytes, 1500U);
      put_duration_if(bj, "start", b.start, Duration{0});
      put_duration_if(bj, "period", b.period, Duration{0});
      if (!b.sender_rate.unlimited()) {
        put_rate(bj, "sender_rate", b.sender_rate);
      }
      j["bursts"].push_back(bj);
    }
  }
  return j;
}

json slot_json(const SlotSettings& s) {
  json j = json::object();
  if (s.use_distribution) {
    j["distribution"] = s.distribution.name;
    put_duration(j, "delay", s.dist_delay);
    put_duration_if(j, "jitter", s.dist_jitter, Duration{0});
  } else {
    put_duration(j, "min_delay", s.min_delay);
    put_duration_if(j, "max_delay", s.max_delay, s.min_delay);
  }
  put_if(j, "max_packets", s.max_packets, std::int64_t{0});
  if (s.max_bytes > 0) {
    j["max_bytes"] = s.max_bytes;
  }
  return j;
}

// ---- classes and phases ---------------------------------------------------------------------

// A port as its number, a range as "FIRST-LAST".
std::vector<json> port_texts(const std::vector<PortRange>& rs) {
  std::vector<json> out;
  for (const PortRange& r : rs) {
    out.push_back(r.first == r.last ? json(r.first)
                                    : json(std::to_string(r.first) + "-" + std::to_string(r.last)));
  }
  return out;
}

json match_json(const ClassMatch& m) {
  json j = json::object();
  std::vector<std::string> src;
  std::vector<std::string> dst;
  for (const auto& p : m.src) {
    src.push_back(prefix_text(p));
  }
  for (const auto& p : m.dst) {
    dst.push_back(prefix_text(p));
  }
  put_one_or_many(j, "src", src);
  put_one_or_many(j, "dst", dst);
  if (m.protocol) {
    switch (*m.protocol) {
      case 6:
        j["protocol"] = "tcp";
        break;
      case 17:
        j["protocol"] = "udp";
        break;
      case 1:
        j["protocol"] = "icmp";
        break;
      case 58:
        j["protocol"] = "icmpv6";
        break;
      default:
        j["protocol"] = *m.protocol;
        break;
    }
  }
  put_one_or_many(j, "src_port", port_texts(m.src_ports));
  put_one_or_many(j, "dst_port", port_texts(m.dst_ports));
  if (m.dscp) {
    j["dscp"] = *m.dscp;
  }
  if (m.ecn) {
    static constexpr std::array<const char*, 4> kNames{"not-ect", "ect1", "ect0", "ce"};
    j["ecn"] = kNames[static_cast<std::size_t>(*m.ecn) & 3U];
  }
  if (m.roce) {
    j["roce"] = *m.roce;
  }
  put_one_or_many(j, "roce_opcode", m.roce_opcodes);
  if (m.roce_dest_qp) {
    j["roce_dest_qp"] = *m.roce_dest_qp;
  }
  return j;
}

// Both directions; b_to_a is left out when equal to a_to_b (the loader copies it).
void put_directions(json& j, const DirectionSpec& a, const DirectionSpec& b) {
  j["a_to_b"] = direction_to_json(a);
  json bj = direction_to_json(b);
  if (bj != j["a_to_b"]) {
    j["b_to_a"] = std::move(bj);
  }
}

// The RFC 7386 merge patch that turns `from` into `to` (neither holds nulls).
json merge_diff(const json& from, const json& to) {
  if (!from.is_object() || !to.is_object()) {
    return to;
  }
  json patch = json::object();
  for (const auto& [key, value] : from.items()) {
    if (!to.contains(key)) {
      patch[key] = nullptr;
    }
  }
  for (const auto& [key, value] : to.items()) {
    if (!from.contains(key)) {
      patch[key] = value;
    } else if (from.at(key) != value) {
      patch[key] = merge_diff(from.at(key), value);
    }
  }
  return patch;
}

// Phases as the loader applies them: each a merge patch on the directions before it; with one
// direction at the top level, a phase's lone a_to_b patch applies to both directions.
json phases_json(const Profile& p, const json& doc) {
  const bool one_direction = !doc.contains("b_to_a");
  json cur_a = doc.at("a_to_b");
  json cur_b = one_direction ? cur_a : doc.at("b_to_a");
  std::vector<json> class_a;
  std::vector<json> class_b;
  for (const auto& c : p.classes) {
    class_a.push_back(direction_to_json(c.a_to_b));
    class_b.push_back(direction_to_json(c.b_to_a));
  }
  json out = json::array();
  for (const auto& ph : p.phases) {
    json pj = json::object();
    put_duration(pj, "at", ph.at);
    pj["name"] = ph.name;
    json next_a = direction_to_json(ph.a_to_b);
    json next_b = direction_to_json(ph.b_to_a);
    json patch_a = merge_diff(cur_a, next_a);
    json patch_b = merge_diff(cur_b, next_b);
    if (one_direction) {
      if (patch_a == patch_b) {
        if (!patch_a.empty()) {
          pj["a_to_b"] = std::move(patch_a);
        }
      } else {  // both, even an empty one, or the loader would copy the other
        pj["a_to_b"] = std::move(patch_a);
        pj["b_to_a"] = std::move(patch_b);
      }
    } else {
      if (!patch_a.empty()) {
        pj["a_to_b"] = std::move(patch_a);
      }
      if (!patch_b.empty()) {
        pj["b_to_a"] = std::move(patch_b);
      }
    }
    cur_a = std::move(next_a);
    cur_b = std::move(next_b);
    // Classes: a patch per class that changed, on its directions before this phase.
    json classes = json::object();
    for (std::size_t i = 0; i < ph.classes.size() && i < p.classes.size(); ++i) {
      json next_ca = direction_to_json(ph.classes[i].a_to_b);
      json next_cb = direction_to_json(ph.classes[i].b_to_a);
      json pa = merge_diff(class_a[i], next_ca);
      json pb = merge_diff(class_b[i], next_cb);
      if (!pa.empty() || !pb.empty()) {
        // Both given explicitly, so the loader never copies one onto the other.
        classes[p.classes[i].name] = json{{"a_to_b", std::move(pa)}, {"b_to_a", std::move(pb)}};
      }
      class_a[i] = std::move(next_ca);
      class_b[i] = std::move(next_cb);
    }
    if (!classes.empty()) {
      pj["classes"] = std::move(classes);
    }
    out.push_back(std::move(pj));
  }
  return out;
}

}  // namespace

json direction_to_json(const DirectionSpec& d) {
  json j = json::object();
  if (d.limit_packets) {
    j["limit_packets"] = *d.limit_packets;
  }
  if (d.loss) {
    j["loss"] = loss_json(*d.loss);
  }
  if (d.duplicate) {
    j["duplicate"] = chance_json(*d.duplicate);
  }
  if (d.corrupt) {
    j["corrupt"] = chance_json(*d.corrupt);
  }
  if (d.delay) {
    j["delay"] = delay_json(*d.delay);
    if (d.delay->reorder_p != 0 || d.delay->reorder_correlation != 0 || d.delay->reorder_gap != 0) {
      j["reorder"] = reorder_json(*d.delay);
    }
  }
  if (d.rate && (d.rate->rate.bps != 0 || !d.rate->trace_file.empty() || !d.rate->mahimahi_file.empty())) {
    j["rate"] = rate_json(*d.rate);
  }
  if (d.queue) {
    j["queue"] = queue_json(*d.queue);
    if (!d.queue->microbursts.empty()) {
      j["microbursts"] = json::array();
      for (const auto& m : d.queue->microbursts) {
        j["microbursts"].push_back(microburst_json(m));
      }
    }
  }
  if (d.incast) {
    j["incast"] = incast_json(*d.incast);
  }
  if (d.slot) {
    j["slot"] = slot_json(*d.slot);
  }
  return j;
}

json profile_to_json(const Profile& p) {
  json j = {{"gradwall", kProfileVersion}, {"name", p.name}};
  if (!p.description.empty()) {
    j["description"] = p.description;
  }
  j["seed"] = p.seed;
  if (p.seed_b_to_a) {
    j["seed_b_to_a"] = *p.seed_b_to_a;
  }
  if (p.streams.per_flow) {
    json streams = {{"per", "flow"}, {"max_flows", p.streams.max_flows}};
    put_duration(streams, "idle", p.streams.idle);
    j["streams"] = std::move(streams);
  }
  put_directions(j, p.a_to_b, p.b_to_a);
  if (!p.classes.empty()) {
    j["classes"] = json::array();
    for (const auto& c : p.classes) {
      json cj = {{"name", c.name}, {"match", match_json(c.match)}};
      put_directions(cj, c.a_to_b, c.b_to_a);
      j["classes"].push_back(std::move(cj));
    }
  }
  if (!p.phases.empty()) {
    j["phases"] = phases_json(p, j);
  }
  return j;
}

}  // namespace gw
