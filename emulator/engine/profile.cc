#include "emulator/engine/profile.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <cstring>
#include <set>
#include <limits>
#include <sstream>

#include "core/errors.h"
#include "core/json_reader.h"
#include "emulator/engine/distribution.h"

namespace gw {
namespace {

namespace fs = std::filesystem;

// Light travels through fibre at about 200,000 km/s (REFERENCES.md §5): 5 us per km.
constexpr double kFibreNsPerKm = 5000.0;

std::string resolve(const std::string& path, const std::string& profile_file) {
  if (path.empty() || fs::path(path).is_absolute()) {
    return path;
  }
  const fs::path dir = fs::path(profile_file).parent_path();
  return dir.empty() ? path : (dir / path).string();
}

Duration positive_duration(const JsonReader& r, std::string_view base, Duration fallback) {
  return r.duration(base).value_or(fallback);
}

DistributionTable distribution(const JsonReader& r, const std::string& key) {
  const auto name = r.optional_string(key);
  if (!name || *name == "uniform") {
    return DistributionTable{"uniform", {}};
  }
  const bool is_path = name->find('/') != std::string::npos || name->ends_with(".dist");
  try {
    return load_distribution(is_path ? resolve(*name, r.file()) : *name);
  } catch (const InputError& e) {
    if (e.file() == *name || !is_path) {
      r.fail(key, e.reason());
    }
    throw;
  }
}

// ---- stage settings --------------------------------------------------------------------

LossSettings parse_loss(const JsonReader& r) {
  LossSettings s;
  const std::string model = r.choice("model", {"random", "state", "gemodel"}, "random");
  s.ecn = r.boolean("ecn", false);
  if (model == "random") {
    s.model = LossModel::kRandom;
    s.p = r.number("p", 0, 1);
    s.correlation = r.optional_probability("correlation").value_or(0);
  } else if (model == "state") {
    // tc-netem(8): with only p13 given, p31 = 1 - p13, p32 = 0, p23 = 1, p14 = 0.
    s.model = LossModel::kState;
    s.p13 = r.number("p13", 0, 1);
    s.p31 = r.optional_probability("p31").value_or(1 - s.p13);
    s.p32 = r.optional_probability("p32").value_or(0);
    s.p23 = r.optional_probability("p23").value_or(1);
    s.p14 = r.optional_probability("p14").value_or(0);
    if (s.p13 + s.p14 > 1) {
      r.fail("p14", "p13 + p14 must not exceed 1");
    }
    if (s.p31 + s.p32 > 1) {
      r.fail("p32", "p31 + p32 must not exceed 1");
    }
  } else {
    // Gilbert-Elliott; defaults with only p as iproute2: r = 1 - p, 1-h = 1, 1-k = 0.
    s.model = LossModel::kGemodel;
    s.ge_p = r.number("p", 0, 1);
    s.ge_r = r.optional_probability("r").value_or(1 - s.ge_p);
    s.ge_1_h = r.optional_probability("loss_in_bad").value_or(1);
    s.ge_1_k = r.optional_probability("loss_in_good").value_or(0);
  }
  r.finish();
  return s;
}

ChanceSettings parse_chance(const JsonReader& r) {
  ChanceSettings s;
  s.p = r.number("p", 0, 1);
  s.correlation = r.optional_probability("correlation").value_or(0);
  r.finish();
  return s;
}

DelaySettings parse_delay(const JsonReader& r) {
  DelaySettings s;
  const auto km = r.optional_number("distance_km", 0, 100000);
  const auto d = r.duration("delay", Duration{0}, Duration{std::int64_t{3600} * 1'000'000'000});
  if (km && d) {
    r.fail("distance_km", "give either distance_km or delay, not both");
  }
  if (km) {
    s.distance_km = *km;
    s.delay = Duration{static_cast<std::int64_t>(std::llround(*km * kFibreNsPerKm))};
  } else {
    s.delay = d.value_or(Duration{0});
  }
  s.jitter = r.duration("jitter", Duration{0}, Duration{std::int64_t{3600} * 1'000'000'000}).value_or(Duration{0});
  s.correlation = r.optional_probability("correlation").value_or(0);
  s.distribution = distribution(r, "distribution");
  if (!s.distribution.values.empty() && s.jitter.count() == 0) {
    r.fail("distribution", "a distribution needs a jitter (netem: distribution without jitter)");
  }
  const std::string policy = r.choice("reorder_policy", {"netem", "preserve"}, "netem");
  s.reorder_policy = policy == "netem" ? ReorderPolicy::kNetem : ReorderPolicy::kPreserve;
  r.finish();
  return s;
}

void parse_reorder(const JsonReader& r, DelaySettings& s) {
  s.reorder_p = r.number("p", 0, 1);
  s.reorder_correlation = r.optional_probability("correlation").value_or(0);
  s.reorder_gap = static_cast<std::uint32_t>(r.optional_integer("gap", 0, 1 << 30).value_or(0));
  r.finish();
}

RateSettings parse_rate(const JsonReader& r) {
  RateSettings s;
  const auto rate = r.rate("rate");
  const auto trace = r.optional_string("trace_file");
  const auto mm = r.optional_string("mahimahi_file");
  if (static_cast<int>(rate.has_value()) + static_cast<int>(trace.has_value()) + static_cast<int>(mm.has_value()) != 1) {
    r.fail_here("give exactly one of rate_bps (or rate_kbps/_mbps/_gbps), trace_file, mahimahi_file");
  }
  if (rate) {
    if (rate->bps == 0) {
      r.fail("rate_bps", "must be > 0 (leave out \"rate\" for an unlimited link)");
    }
    s.rate = *rate;
  }
  s.packet_overhead_bytes = static_cast<std::int32_t>(r.optional_integer("packet_overhead_bytes", -1500, 1500).value_or(0));
  s.cell_bytes = static_cast<std::uint32_t>(r.optional_integer("cell_bytes", 0, 65535).value_or(0));
  s.cell_overhead_bytes = static_cast<std::int32_t>(r.optional_integer("cell_overhead_bytes", -255, 255).value_or(0));
  if (s.cell_overhead_bytes != 0 && s.cell_bytes == 0) {
    r.fail("cell_overhead_bytes", "needs cell_bytes");
  }
  try {
    if (trace) {
      s.trace_file = *trace;
      s.trace = load_rate_trace(resolve(*trace, r.file()));
      s.trace_period = r.duration("trace_period").value_or(Duration{0});
    }
    if (mm) {
      s.mahimahi_file = *mm;
      s.mahimahi = load_mahimahi_trace(resolve(*mm, r.file()));
      // Mahimahi repeats a trace once it ends: the period is the last opportunity's time.
      s.mahimahi_period = s.mahimahi.back();
    }
  } catch (const InputError& e) {
    r.fail(trace ? "trace_file" : "mahimahi_file", e.what());
  }
  if (s.trace_period.count() > 0 && s.trace_period <= s.trace.back().at) {
    r.fail("trace_period", "must be longer than the trace's last time");
  }
  r.finish();
  return s;
}

AqmSettings parse_aqm(const JsonReader& r) {
  AqmSettings s;
  const std::string kind = r.choice("kind", {"droptail", "red", "codel", "pie", "dualpi2", "threshold"}, "droptail");
  if (kind == "droptail") {
    s.kind = AqmKind::kDropTail;
  } else if (kind == "red") {
    s.kind = AqmKind::kRed;
    auto& red = s.red;
    red.min_bytes = *r.bytes("min", 0) ;
    red.max_bytes = r.bytes("max", 1).value_or(red.min_bytes * 3);
    if (red.max_bytes <= red.min_bytes) {
      r.fail("max_bytes", "must be greater than min_bytes");
    }
    red.max_p = r.optional_number("max_p", 0, 1).value_or(red.max_p);
    red.weight = r.optional_number("weight", 1e-9, 1).value_or(red.weight);
    red.gentle = r.boolean("gentle", true);
    red.ecn = r.boolean("ecn", false);
    red.mean_packet_bytes = static_cast<std::uint32_t>(r.optional_integer("mean_packet_bytes", 64, 65535).value_or(1500));
  } else if (kind == "codel") {
    s.kind = AqmKind::kCodel;
    s.codel.target = positive_duration(r, "target", s.codel.target);
    s.codel.interval = positive_duration(r, "interval", s.codel.interval);
    s.codel.ecn = r.boolean("ecn", false);
  } else if (kind == "pie") {
    s.kind = AqmKind::kPie;
    auto& pie = s.pie;
    pie.target = positive_duration(r, "target", pie.target);
    pie.t_update = positive_duration(r, "t_update", pie.t_update);
    pie.alpha = r.optional_number("alpha", 0, 100).value_or(pie.alpha);
    pie.beta = r.optional_number("beta", 0, 100).value_or(pie.beta);
    pie.max_burst = positive_duration(r, "max_burst", pie.max_burst);
    pie.ecn = r.boolean("ecn", false);
    pie.mark_ecn_threshold = r.optional_probability("mark_ecn_threshold").value_or(pie.mark_ecn_threshold);
  } else if (kind == "dualpi2") {
    s.kind = AqmKind::kDualPi2;
    auto& d = s.dualpi2;
    d.target = positive_duration(r, "target", d.target);
    d.t_update = positive_duration(r, "t_update", d.t_update);
    d.alpha = r.optional_number("alpha", 0, 1000).value_or(d.alpha);
    d.beta = r.optional_number("beta", 0, 1000).value_or(d.beta);
    d.coupling_k = r.optional_number("coupling_k", 0.1, 100).value_or(d.coupling_k);
    d.l_step = positive_duration(r, "l_step", d.l_step);
    d.c_ecn = r.boolean("c_ecn", d.c_ecn);
  } else {
    s.kind = AqmKind::kThreshold;
    auto& t = s.threshold;
    t.kmin_bytes = *r.bytes("kmin", 0);
    t.kmax_bytes = r.bytes("kmax", 0).value_or(0);
    if (!r.has("kmin_bytes")) {
      r.fail("kmin_bytes", "is required");
    }
    if (!r.has("kmax_bytes") || t.kmax_bytes < t.kmin_bytes) {
      r.fail("kmax_bytes", "is required and must be >= kmin_bytes");
    }
    t.pmax = r.optional_probability("pmax").value_or(1.0);
  }
  if (s.kind == AqmKind::kRed && !r.has("min_bytes")) {
    r.fail("min_bytes", "is required");
  }
  r.finish();
  return s;
}

QueueSettings parse_queue(const JsonReader& r) {
  QueueSettings s;
  if (const auto n = r.optional_integer("limit_packets", 1, std::int64_t{1} << 40)) {
    s.limit_packets = static_cast<std::uint64_t>(*n);
  }
  s.limit_bytes = r.bytes("limit", 1);
  s.limit_time = r.duration("limit_time", Duration{1});
  if (const auto aqm = r.optional_object("aqm")) {
    s.aqm = parse_aqm(*aqm);
  }
  if (const auto t = r.optional_object("int")) {
    s.telemetry.enabled = true;
    s.telemetry.node_id = static_cast<std::uint32_t>(t->optional_integer("node_id", 0, UINT32_MAX).value_or(0));
    t->finish();
  }
  r.finish();
  return s;
}

MicroburstSettings parse_microburst(const JsonReader& r) {
  MicroburstSettings s;
  s.period = *r.duration("period", Duration{1000});
  if (!r.has("period_ns") && !r.has("period_us") && !r.has("period_ms") && !r.has("period_s")) {
    r.fail("period_ms", "is required");
  }
  s.start = r.duration("start").value_or(Duration{0});
  s.burst_bytes = r.bytes("burst", 1).value_or(0);
  if (s.burst_bytes == 0) {
    r.fail("burst_bytes", "is required");
  }
  s.packet_bytes = static_cast<std::uint32_t>(r.optional_integer("packet_bytes", 64, 65535).value_or(1500));
  s.jitter = r.duration("jitter").value_or(Duration{0});
  if (s.jitter >= s.period) {
    r.fail("jitter", "must be shorter than the period");
  }
  s.burst_rate = r.rate("burst_rate").value_or(BitRate{});
  r.finish();
  return s;
}

IncastSettings parse_incast(const JsonReader& r) {
  IncastSettings s;
  const auto buffer = r.bytes("buffer", 1);
  if (!buffer) {
    r.fail("buffer_bytes", "is required (the switch's shared buffer)");
  }
  s.buffer_bytes = *buffer;
  s.alpha = r.optional_number("alpha", 1.0 / 64, 64).value_or(1.0);
  for (const auto& pr : r.objects("ports")) {
    IncastPortSettings port;
    port.match = parse_prefix(pr.string("match"), pr.file(), pr.path_of("match"));
    port.rate = pr.rate("rate").value_or(BitRate{});
    if (port.rate.unlimited()) {
      pr.fail("rate_gbps", "is required (the egress port's line rate)");
    }
    pr.finish();
    s.ports.push_back(port);
  }
  if (s.ports.empty()) {
    r.fail("ports", "must list at least one egress port");
  }
  if (r.has("bursts")) {
    for (const auto& br : r.objects("bursts")) {
      IncastBurstSettings b;
      b.to = parse_prefix(br.string("to"), br.file(), br.path_of("to"));
      b.senders = static_cast<std::uint32_t>(br.integer("senders", 1, 1 << 20));
      b.bytes_each = static_cast<std::uint64_t>(br.integer("bytes_each", 1, std::int64_t{1} << 40));
      b.packet_bytes = static_cast<std::uint32_t>(br.optional_integer("packet_bytes", 64, 65535).value_or(1500));
      b.start = br.duration("start").value_or(Duration{0});
      b.period = br.duration("period").value_or(Duration{0});
      b.sender_rate = br.rate("sender_rate").value_or(BitRate{});
      const bool lands = std::any_of(s.ports.begin(), s.ports.end(),
                                     [&](const IncastPortSettings& p) { return prefix_contains(p.match, b.to.address); });
      if (!lands) {
        br.fail("to", "matches none of the ports");
      }
      br.finish();
      s.bursts.push_back(b);
    }
  }
  r.finish();
  return s;
}

SlotSettings parse_slot(const JsonReader& r) {
  SlotSettings s;
  if (r.has("distribution")) {
    s.use_distribution = true;
    s.distribution = distribution(r, "distribution");
    s.dist_delay = r.duration("delay").value_or(Duration{0});
    s.dist_jitter = r.duration("jitter").value_or(Duration{0});
  } else {
    const auto mn = r.duration("min_delay");
    if (!mn) {
      r.fail("min_delay_us", "is required (or give distribution, delay and jitter)");
    }
    s.min_delay = *mn;
    s.max_delay = r.duration("max_delay").value_or(s.min_delay);
    if (s.max_delay < s.min_delay) {
      r.fail("max_delay", "must be >= min_delay");
    }
  }
  s.max_packets = r.optional_integer("max_packets", 1, std::int64_t{1} << 40).value_or(0);
  s.max_bytes = static_cast<std::int64_t>(r.bytes("max", 1).value_or(0));
  r.finish();
  return s;
}

}  // namespace

DirectionSpec parse_direction(const nlohmann::json& j, const std::string& file, const std::string& path) {
  const JsonReader r(j, file, path);
  DirectionSpec d;
  if (const auto n = r.optional_integer("limit_packets", 1, std::int64_t{1} << 40)) {
    d.limit_packets = static_cast<std::uint64_t>(*n);
  }
  if (const auto o = r.optional_object("loss")) {
    d.loss = parse_loss(*o);
  }
  if (const auto o = r.optional_object("duplicate")) {
    d.duplicate = parse_chance(*o);
  }
  if (const auto o = r.optional_object("corrupt")) {
    d.corrupt = parse_chance(*o);
  }
  if (const auto o = r.optional_object("delay")) {
    d.delay = parse_delay(*o);
  }
  if (const auto o = r.optional_object("reorder")) {
    // iproute2 q_netem.c: "reordering not possible without specifying some delay".
    if (!d.delay || d.delay->delay.count() == 0) {
      r.fail("reorder", "needs a delay (reordering is not possible without some delay)");
    }
    parse_reorder(*o, *d.delay);
  }
  if (const auto o = r.optional_object("rate")) {
    d.rate = parse_rate(*o);
  }
  if (const auto o = r.optional_object("queue")) {
    d.queue = parse_queue(*o);
  }
  if (r.has("microbursts")) {
    if (!d.queue) {
      d.queue = QueueSettings{};
    }
    for (const auto& m : r.objects("microbursts")) {
      d.queue->microbursts.push_back(parse_microburst(m));
    }
    if (!d.rate) {
      r.fail("microbursts", "need a rate (cross traffic only builds a queue at a bottleneck)");
    }
  }
  if (const auto o = r.optional_object("incast")) {
    d.incast = parse_incast(*o);
  }
  if (const auto o = r.optional_object("slot")) {
    d.slot = parse_slot(*o);
  }
  r.finish();
  return d;
}

namespace {

std::optional<std::uint8_t> parse_ecn_name(const JsonReader& r, const char* key) {
  const auto s = r.optional_string(key);
  if (!s) {
    return std::nullopt;
  }
  if (*s == "not-ect") return 0;
  if (*s == "ect1") return 1;
  if (*s == "ect0") return 2;
  if (*s == "ce") return 3;
  r.fail(key, "must be one of not-ect, ect0, ect1, ce, got \"" + *s + "\"");
}

std::vector<std::uint16_t> parse_ports(const JsonReader& r, const char* key) {
  std::vector<std::uint16_t> out;
  if (!r.has(key)) {
    return out;
  }
  const auto& v = r.raw().at(key);
  const auto one = [&](const nlohmann::json& x, const std::string& where) {
    if (!x.is_number_integer() || x.get<std::int64_t>() < 0 || x.get<std::int64_t>() > 65535) {
      throw InputError(r.file(), where, "must be a port number in [0, 65535], got " + describe(x));
    }
    out.push_back(static_cast<std::uint16_t>(x.get<std::int64_t>()));
  };
  if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      one(v[i], r.path_of(key) + "[" + std::to_string(i) + "]");
    }
  } else {
    one(v, r.path_of(key));
  }
  return out;
}

std::vector<Prefix> parse_prefixes(const JsonReader& r, const char* key) {
  std::vector<Prefix> out;
  if (!r.has(key)) {
    return out;
  }
  const auto& v = r.raw().at(key);
  if (v.is_string()) {
    out.push_back(parse_prefix(v.get<std::string>(), r.file(), r.path_of(key)));
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string where = r.path_of(key) + "[" + std::to_string(i) + "]";
      if (!v[i].is_string()) {
        throw InputError(r.file(), where, "must be an address or prefix string, got " + describe(v[i]));
      }
      out.push_back(parse_prefix(v[i].get<std::string>(), r.file(), where));
    }
  } else {
    r.fail(key, "must be an address/prefix string or an array of them, got " + describe(v));
  }
  return out;
}

ClassMatch parse_match(const JsonReader& r) {
  ClassMatch m;
  m.src = parse_prefixes(r, "src");
  m.dst = parse_prefixes(r, "dst");
  if (r.has("protocol")) {
    const auto& v = r.raw().at("protocol");
    if (v.is_string()) {
      const std::string p = r.choice("protocol", {"tcp", "udp", "icmp", "icmpv6"}, "");
      m.protocol = p == "tcp" ? 6 : p == "udp" ? 17 : p == "icmp" ? 1 : 58;
    } else {
      m.protocol = static_cast<std::uint8_t>(r.integer("protocol", 0, 255));
    }
  }
  m.src_ports = parse_ports(r, "src_port");
  m.dst_ports = parse_ports(r, "dst_port");
  if (const auto d = r.optional_integer("dscp", 0, 63)) {
    m.dscp = static_cast<std::uint8_t>(*d);
  }
  if (const auto e = parse_ecn_name(r, "ecn")) {
    m.ecn = static_cast<Ecn>(*e);
  }
  if (r.has("roce")) {
    m.roce = r.boolean("roce", false);
  }
  if (r.has("roce_opcode")) {
    const auto& v = r.raw().at("roce_opcode");
    const auto add = [&](const nlohmann::json& x, const std::string& where) {
      if (!x.is_number_integer() || x.get<std::int64_t>() < 0 || x.get<std::int64_t>() > 255) {
        throw InputError(r.file(), where, "must be an opcode in [0, 255], got " + describe(x));
      }
      m.roce_opcodes.push_back(static_cast<std::uint8_t>(x.get<std::int64_t>()));
    };
    if (v.is_array()) {
      for (std::size_t i = 0; i < v.size(); ++i) {
        add(v[i], r.path_of("roce_opcode") + "[" + std::to_string(i) + "]");
      }
    } else {
      add(v, r.path_of("roce_opcode"));
    }
  }
  if (const auto qp = r.optional_integer("roce_dest_qp", 0, (1 << 24) - 1)) {
    m.roce_dest_qp = static_cast<std::uint32_t>(*qp);
  }
  r.finish();
  return m;
}

// "one given = both": a missing direction copies the other.
std::pair<nlohmann::json, nlohmann::json> directions(const JsonReader& r) {
  const bool ab = r.has("a_to_b");
  const bool ba = r.has("b_to_a");
  nlohmann::json a = ab ? r.raw().at("a_to_b") : (ba ? r.raw().at("b_to_a") : nlohmann::json::object());
  nlohmann::json b = ba ? r.raw().at("b_to_a") : a;
  return {a, b};
}

}  // namespace

Profile parse_profile(const nlohmann::json& doc, const std::string& file) {
  const JsonReader r(doc, file);
  Profile p;
  p.file = file;
  if (!r.has("gradwall")) {
    r.fail("gradwall", std::string("is required (\"") + kProfileVersion + "\")");
  }
  const std::string version = r.string("gradwall");
  if (version != kProfileVersion) {
    r.fail("gradwall", std::string("must be \"") + kProfileVersion + "\", got \"" + version + "\"");
  }
  p.name = r.optional_string("name").value_or(fs::path(file).stem().string());
  p.description = r.optional_string("description").value_or("");
  r.allow("source");
  r.optional_string("source");
  p.seed = static_cast<std::uint64_t>(r.optional_integer("seed", 0, std::numeric_limits<std::int64_t>::max()).value_or(1));

  const auto [a_json, b_json] = directions(r);
  const std::string a_path = r.has("a_to_b") ? "$.a_to_b" : "$.b_to_a";
  const std::string b_path = r.has("b_to_a") ? "$.b_to_a" : a_path;
  p.a_to_b = parse_direction(a_json, file, a_path);
  p.b_to_a = parse_direction(b_json, file, b_path);

  // Each class's directions as JSON, so that phases can patch them.
  struct ClassJson {
    nlohmann::json a;
    nlohmann::json b;
    bool one_direction = true;
  };
  std::vector<ClassJson> class_json;
  if (r.has("classes")) {
    for (const auto& c : r.objects("classes")) {
      ClassSpec cs;
      cs.name = c.string("name");
      for (const auto& earlier : p.classes) {
        if (earlier.name == cs.name) {
          c.fail("name", "\"" + cs.name + "\" names two classes");
        }
      }
      cs.match = parse_match(c.object("match"));
      const auto [ca, cb] = directions(c);
      const std::string ca_path = c.path_of(c.has("a_to_b") ? "a_to_b" : "b_to_a");
      const std::string cb_path = c.has("b_to_a") ? c.path_of("b_to_a") : ca_path;
      cs.a_to_b = parse_direction(ca, file, ca_path);
      cs.b_to_a = parse_direction(cb, file, cb_path);
      class_json.push_back({ca, cb, !(c.has("a_to_b") && c.has("b_to_a"))});
      c.finish();
      p.classes.push_back(std::move(cs));
    }
  }

  // Applies a phase's patch object {a_to_b, b_to_a} to a pair of directions.
  const auto patch_pair = [](const JsonReader& ph, nlohmann::json& a, nlohmann::json& b, bool one_direction) {
    if (ph.has("a_to_b")) {
      ph.object("a_to_b");
      a.merge_patch(ph.raw().at("a_to_b"));
      if (one_direction && !ph.has("b_to_a")) {
        b.merge_patch(ph.raw().at("a_to_b"));
      }
    }
    if (ph.has("b_to_a")) {
      ph.object("b_to_a");
      b.merge_patch(ph.raw().at("b_to_a"));
      if (one_direction && !ph.has("a_to_b")) {
        a.merge_patch(ph.raw().at("b_to_a"));
      }
    }
  };

  if (r.has("phases")) {
    nlohmann::json cur_a = a_json;
    nlohmann::json cur_b = b_json;
    Duration last{-1};
    for (const auto& ph : r.objects("phases")) {
      PhaseSpec ps;
      const auto at = ph.duration("at");
      if (!at) {
        ph.fail("at_s", "is required (when the phase starts: at_s, at_ms, ...)");
      }
      if (*at <= last) {
        ph.fail("at_s", "phases must be in increasing time order");
      }
      last = *at;
      ps.at = *at;
      ps.name = ph.optional_string("name").value_or("phase " + std::to_string(p.phases.size() + 1));
      // Each phase is an RFC 7386 merge patch on the directions as they were before it; a
      // patch given only for a_to_b applies to b_to_a too when the profile gave one direction.
      patch_pair(ph, cur_a, cur_b, !(r.has("a_to_b") && r.has("b_to_a")));
      if (const auto classes = ph.optional_object("classes")) {
        std::set<std::string, std::less<>> names;
        for (const auto& c : p.classes) {
          names.insert(c.name);
        }
        for (const auto& [name, patch] : classes->raw().items()) {
          const auto it = std::find_if(p.classes.begin(), p.classes.end(),
                                       [&](const ClassSpec& c) { return c.name == name; });
          if (it == p.classes.end()) {
            std::string reason = "no class is named \"" + name + "\"";
            if (const auto near = closest(name, names)) {
              reason += " (did you mean \"" + *near + "\"?)";
            }
            classes->fail(name, reason);
          }
          const JsonReader cp = classes->object(name);
          ClassJson& cj = class_json[static_cast<std::size_t>(it - p.classes.begin())];
          patch_pair(cp, cj.a, cj.b, cj.one_direction);
          cp.finish();
        }
      }
      ph.finish();
      const std::string where = ph.path();
      ps.a_to_b = parse_direction(cur_a, file, where + ".a_to_b");
      ps.b_to_a = parse_direction(cur_b, file, where + ".b_to_a");
      for (std::size_t i = 0; i < class_json.size(); ++i) {
        const std::string cwhere = where + ".classes." + p.classes[i].name;
        ps.classes.push_back({parse_direction(class_json[i].a, file, cwhere + ".a_to_b"),
                              parse_direction(class_json[i].b, file, cwhere + ".b_to_a")});
      }
      p.phases.push_back(std::move(ps));
    }
  }
  r.finish();
  return p;
}

Profile load_profile(const std::string& file) { return parse_profile(read_json_file(file), file); }

Prefix parse_prefix(const std::string& text, const std::string& file, const std::string& path) {
  Prefix p;
  p.text = text;
  const auto slash = text.find('/');
  const std::string addr = text.substr(0, slash);
  int max_len = 0;
  in_addr v4{};
  in6_addr v6{};
  if (inet_pton(AF_INET, addr.c_str(), &v4) == 1) {
    p.address.bytes[10] = 0xff;
    p.address.bytes[11] = 0xff;
    std::memcpy(&p.address.bytes[12], &v4, 4);
    max_len = 32;
  } else if (inet_pton(AF_INET6, addr.c_str(), &v6) == 1) {
    std::memcpy(p.address.bytes.data(), &v6, 16);
    max_len = 128;
  } else {
    throw InputError(file, path, "\"" + text + "\" is not an IPv4 or IPv6 address or prefix");
  }
  int len = max_len;
  if (slash != std::string::npos) {
    const std::string l = text.substr(slash + 1);
    if (l.empty() || l.size() > 3 || !std::all_of(l.begin(), l.end(), ::isdigit) || std::stoi(l) > max_len) {
      throw InputError(file, path, "\"" + text + "\": prefix length must be 0.." + std::to_string(max_len));
    }
    len = std::stoi(l);
  }
  p.length = static_cast<std::uint8_t>(max_len == 32 ? 96 + len : len);
  return p;
}

bool prefix_contains(const Prefix& p, const IpAddress& a) {
  const int full = p.length / 8;
  for (int i = 0; i < full; ++i) {
    if (p.address.bytes[i] != a.bytes[i]) {
      return false;
    }
  }
  const int rem = p.length % 8;
  if (rem == 0) {
    return true;
  }
  const auto mask = static_cast<std::uint8_t>(0xff << (8 - rem));
  return (p.address.bytes[full] & mask) == (a.bytes[full] & mask);
}

namespace {

std::vector<std::string> data_lines(const std::string& file, std::vector<int>& numbers) {
  std::ifstream in(file);
  if (!in) {
    throw InputError(file, "", "cannot open file");
  }
  std::vector<std::string> lines;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const auto hash = line.find('#');
    if (hash != std::string::npos) {
      line.resize(hash);
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      continue;
    }
    lines.push_back(line);
    numbers.push_back(n);
  }
  if (lines.empty()) {
    throw InputError(file, "", "no data lines");
  }
  return lines;
}

}  // namespace

std::vector<RateTracePoint> load_rate_trace(const std::string& file) {
  std::vector<int> numbers;
  const auto lines = data_lines(file, numbers);
  std::vector<RateTracePoint> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string l = lines[i];
    std::replace(l.begin(), l.end(), ',', ' ');
    std::istringstream is(l);
    double t = 0;
    double bps = 0;
    std::string extra;
    const std::string where = "line " + std::to_string(numbers[i]);
    if (!(is >> t >> bps) || (is >> extra)) {
      throw InputError(file, where, "expected \"seconds,bits_per_second\"");
    }
    if (!(t >= 0) || !(bps > 0) || !std::isfinite(t) || !std::isfinite(bps)) {
      throw InputError(file, where, "time must be >= 0 and rate > 0");
    }
    const Duration at{static_cast<std::int64_t>(std::llround(t * 1e9))};
    if (!out.empty() && at <= out.back().at) {
      throw InputError(file, where, "times must increase");
    }
    out.push_back({at, BitRate{static_cast<std::uint64_t>(std::llround(bps))}});
  }
  return out;
}

std::vector<Duration> load_mahimahi_trace(const std::string& file) {
  std::vector<int> numbers;
  const auto lines = data_lines(file, numbers);
  std::vector<Duration> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::istringstream is(lines[i]);
    std::int64_t ms = -1;
    std::string extra;
    const std::string where = "line " + std::to_string(numbers[i]);
    if (!(is >> ms) || (is >> extra) || ms < 0) {
      throw InputError(file, where, "expected one non-negative millisecond timestamp");
    }
    const Duration at{ms * 1'000'000};
    if (!out.empty() && at < out.back()) {
      throw InputError(file, where, "timestamps must not decrease");
    }
    out.push_back(at);
  }
  if (out.back().count() == 0) {
    throw InputError(file, "", "the trace must end after time 0");
  }
  return out;
}

}  // namespace gw
