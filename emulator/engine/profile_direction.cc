// The direction object of a profile (docs/profiles.md "Direction"): one parser per stage.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/errors.h"
#include "core/json_reader.h"
#include "emulator/engine/distribution.h"
#include "emulator/engine/profile.h"

namespace gw {
namespace {

namespace fs = std::filesystem;

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
  s.jitter =
      r.duration("jitter", Duration{0}, Duration{std::int64_t{3600} * 1'000'000'000}).value_or(Duration{0});
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
  if (static_cast<int>(rate.has_value()) + static_cast<int>(trace.has_value()) +
          static_cast<int>(mm.has_value()) !=
      1) {
    r.fail_here("give exactly one of rate_bps (or rate_kbps/_mbps/_gbps), trace_file, mahimahi_file");
  }
  if (rate) {
    if (rate->bps == 0) {
      r.fail("rate_bps", "must be > 0 (leave out \"rate\" for an unlimited link)");
    }
    s.rate = *rate;
  }
  s.packet_overhead_bytes =
      static_cast<std::int32_t>(r.optional_integer("packet_overhead_bytes", -1500, 1500).value_or(0));
  s.cell_bytes = static_cast<std::uint32_t>(r.optional_integer("cell_bytes", 0, 65535).value_or(0));
  s.cell_overhead_bytes =
      static_cast<std::int32_t>(r.optional_integer("cell_overhead_bytes", -255, 255).value_or(0));
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
  const std::string kind =
      r.choice("kind", {"droptail", "red", "codel", "pie", "dualpi2", "threshold"}, "droptail");
  if (kind == "droptail") {
    s.kind = AqmKind::kDropTail;
  } else if (kind == "red") {
    s.kind = AqmKind::kRed;
    auto& red = s.red;
    red.min_bytes = *r.bytes("min", 0);
    red.max_bytes = r.bytes("max", 1).value_or(red.min_bytes * 3);
    if (red.max_bytes <= red.min_bytes) {
      r.fail("max_bytes", "must be greater than min_bytes");
    }
    red.max_p = r.optional_number("max_p", 0, 1).value_or(red.max_p);
    red.weight = r.optional_number("weight", 1e-9, 1).value_or(red.weight);
    red.gentle = r.boolean("gentle", true);
    red.ecn = r.boolean("ecn", false);
    red.mean_packet_bytes =
        static_cast<std::uint32_t>(r.optional_integer("mean_packet_bytes", 64, 65535).value_or(1500));
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
    s.telemetry.node_id =
        static_cast<std::uint32_t>(t->optional_integer("node_id", 0, UINT32_MAX).value_or(0));
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
      b.packet_bytes =
          static_cast<std::uint32_t>(br.optional_integer("packet_bytes", 64, 65535).value_or(1500));
      b.start = br.duration("start").value_or(Duration{0});
      b.period = br.duration("period").value_or(Duration{0});
      b.sender_rate = br.rate("sender_rate").value_or(BitRate{});
      const bool lands = std::any_of(s.ports.begin(), s.ports.end(), [&](const IncastPortSettings& p) {
        return prefix_contains(p.match, b.to.address);
      });
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

}  // namespace gw
