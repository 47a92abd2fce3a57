#include "harness/run/scenario.h"

#include "reports/checks.h"
#include "reports/report.h"

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "core/errors.h"
#include "core/event_loop.h"
#include "core/json_reader.h"
#include "core/paths.h"
#include "emulator/engine/netem.h"
#include "emulator/engine/phase_start.h"
#include "emulator/engine/profile.h"
#include "harness/run/workloads/reading.h"
#include "harness/run/workloads/workload_kind.h"

namespace gw {

namespace {

namespace fs = std::filesystem;

// Builds one controller to check the name and parameters now rather than mid-run.
void check_cc(const JsonReader& r, const std::string& name_key, const std::string& name,
              const std::string& params_key, const cc::CcParams& params) {
  try {
    (void)cc::make_congestion_control(name, cc::CcContext{}, params);
  } catch (const cc::CcConfigError& e) {
    const bool about_name = e.reason.starts_with("unknown congestion control");
    r.fail(about_name || !r.has(params_key) ? name_key : params_key, e.reason);
  }
}

fabric::RegionSpec read_region(const JsonReader& r, bool relay) {
  fabric::RegionSpec reg;
  reg.name = r.string("name");
  if (relay) {
    reg.hosts = 0;
    r.finish();
    return reg;
  }
  reg.hosts = static_cast<std::uint32_t>(r.integer("hosts", 1, 65535));  // addresses, network.cc
  const auto nic = r.rate("nic_rate");
  if (!nic || nic->unlimited()) {
    r.fail("nic_rate", "a region needs a NIC rate above 0 (e.g. \"100Gbit\")");
  }
  reg.nic_rate = *nic;
  reg.uplink_rate = r.rate("uplink_rate").value_or(BitRate{});
  if (r.has("uplink_rate") && reg.uplink_rate.unlimited()) {
    // "0bit" would read as no limit at all, the opposite of what it says: omit the key instead.
    r.fail("uplink_rate", "must be above 0 (omit uplink_rate for an uplink as fast as the NICs)");
  }
  reg.latency = r.duration("latency", Duration{0}, Duration{1'000'000'000}).value_or(reg.latency);
  reg.buffer_bytes = r.bytes("buffer", 1500, std::uint64_t{1} << 40).value_or(reg.buffer_bytes);
  reg.alpha = r.optional_number("alpha", 1.0 / 64, 64).value_or(reg.alpha);
  r.finish();
  return reg;
}

// netem's `limit` counts every packet inside netem, delay line included; the link's
// `limit_bytes` replaces it with a bottleneck queue limit, which is what a WAN router has.
void with_byte_limit(const JsonReader& r, DirectionSpec& d) {
  if (const auto limit = r.bytes("limit", 1500, std::uint64_t{1} << 40)) {
    d.limit_packets.reset();
    if (!d.queue) {
      d.queue = QueueSettings{};
    }
    d.queue->limit_bytes = *limit;
  }
}

// `phases` of a netem link: from `at` on, the link is as its `netem` arguments say (both
// directions; the link's `limit_bytes` still applies), e.g. a capacity cut or, with
// `loss 100%`, a failure.
void read_netem_phases(const JsonReader& r, const std::string& file, Profile& profile) {
  if (!r.has("phases")) {
    return;
  }
  Duration last{-1};
  for (const JsonReader& ph : r.objects("phases")) {
    PhaseSpec phase;
    last = phase.at = phase_start(ph, last);
    phase.name = ph.optional_string("name").value_or("");
    NetemResult n;
    try {
      n = netem_to_direction(split_args(ph.string("netem")));
    } catch (const InputError& e) {
      throw InputError(file, ph.path_of("netem"), e.path() + ": " + e.reason());
    }
    with_byte_limit(r, n.dir);
    phase.a_to_b = n.dir;
    phase.b_to_a = n.dir;
    ph.finish();
    profile.phases.push_back(std::move(phase));
  }
}

fabric::WanLinkSpec read_wan(const JsonReader& r, const std::string& file) {
  fabric::WanLinkSpec link;
  const auto& between = r.array("between");
  if (!between.is_array() || between.size() != 2 || !between[0].is_string() || !between[1].is_string()) {
    r.fail("between", "must be two region or relay names, e.g. [\"a\", \"b\"]");
  }
  link.a = between[0].get<std::string>();
  link.b = between[1].get<std::string>();
  const bool has_netem = r.has("netem");
  const bool has_profile = r.has("profile");
  if (has_netem == has_profile) {
    r.fail_here(
        "a WAN link needs exactly one of \"netem\" (tc-netem arguments) or \"profile\" "
        "(a profile file)");
  }
  if (has_profile) {
    if (r.has("limit_bytes")) {
      r.fail("limit_bytes", "set the queue limit in the profile (queue.limit_bytes)");
    }
    link.profile = load_profile(resolve_profile(r.string("profile"), file));
  } else {
    // "netem": "ARGS" impairs both directions alike; {"a_to_b": "ARGS", "b_to_a": "ARGS"}
    // impairs each as given (a direction left out is not impaired).
    auto read_netem = [&](const std::string& args, const std::string& key) {
      NetemResult n;
      try {
        n = netem_to_direction(split_args(args));
      } catch (const InputError& e) {
        throw InputError(file, r.path_of("netem") + key, e.path() + ": " + e.reason());
      }
      with_byte_limit(r, n.dir);
      return n.dir;
    };
    std::string args;
    if (r.raw().at("netem").is_object()) {
      const JsonReader both = r.object("netem");
      const std::string ab = both.optional_string("a_to_b").value_or("");
      const std::string ba = both.optional_string("b_to_a").value_or("");
      both.finish();
      link.profile.a_to_b = read_netem(ab, ".a_to_b");
      link.profile.b_to_a = read_netem(ba, ".b_to_a");
      args = ab + " / " + ba;
    } else {
      args = r.string("netem");
      link.profile.a_to_b = read_netem(args, "");
      link.profile.b_to_a = link.profile.a_to_b;
    }
    link.profile.name = "netem " + args;
    read_netem_phases(r, file, link.profile);
  }
  r.finish();
  return link;
}

std::vector<std::string> read_via(const JsonReader& r) {
  std::vector<std::string> via;
  for (const auto& v : r.array("via")) {
    if (!v.is_string()) {
      r.fail("via", "must be a list of relay or region names");
    }
    via.push_back(v.get<std::string>());
  }
  return via;
}

fabric::TopologySpec read_topology(const JsonReader& t, const std::string& file) {
  fabric::TopologySpec topo;
  topo.intra_region_analytic = t.choice("intra_region", {"packet", "analytic"}, "packet") == "analytic";
  for (const JsonReader& r : t.objects("regions")) {
    topo.regions.push_back(read_region(r, false));
  }
  if (topo.regions.empty()) {
    t.fail("regions", "needs at least one region");
  }
  if (t.has("relays")) {
    for (const JsonReader& r : t.objects("relays")) {
      topo.regions.push_back(read_region(r, true));
    }
  }
  for (std::size_t i = 0; i < topo.regions.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (topo.regions[i].name == topo.regions[j].name) {
        t.fail("regions", "the name \"" + topo.regions[i].name + "\" is used twice");
      }
    }
  }
  if (t.has("wan")) {
    for (const JsonReader& r : t.objects("wan")) {
      topo.wan.push_back(read_wan(r, file));
    }
  }
  if (t.has("routes")) {
    for (const JsonReader& r : t.objects("routes")) {
      fabric::RouteSpec route;
      route.from = r.string("from");
      route.to = r.string("to");
      if (r.has("paths") == r.has("via")) {
        r.fail(r.has("via") ? "paths" : "via", r.has("via")
                                                   ? "give either `via` (one path) or `paths`, not both"
                                                   : "missing (the relays to go through, or `paths`)");
      }
      if (r.has("via")) {
        route.via = read_via(r);
      } else {
        for (const JsonReader& p : r.objects("paths")) {
          route.paths.push_back(read_via(p));
          p.allow("standby");  // the controller's (read_standby)
          p.allow("provision");
          p.finish();
        }
        if (route.paths.empty()) {
          r.fail("paths", "needs at least one path (`{\"via\": []}` is the direct link)");
        }
      }
      r.finish();
      topo.routes.push_back(route);
    }
  }
  t.finish();
  return topo;
}

TransportSpec read_transport(const JsonReader& t) {
  TransportSpec s;
  transport::TransportConfig& c = s.config;
  s.cc = t.optional_string("cc").value_or(s.cc);
  s.cc_params = read_cc_params(t, "cc_params");
  default_learned_policy(t, s.cc, s.cc_params);
  c.mtu_bytes = static_cast<std::uint32_t>(t.optional_integer("mtu", 1024, 9000).value_or(c.mtu_bytes));
  const std::string recovery = t.choice("recovery", {"go_back_n", "selective_repeat"}, "selective_repeat");
  c.recovery =
      recovery == "go_back_n" ? transport::Recovery::kGoBackN : transport::Recovery::kSelectiveRepeat;
  c.ack_every_packets =
      static_cast<std::uint32_t>(t.optional_integer("ack_every", 1, 64).value_or(c.ack_every_packets));
  c.min_rto = t.duration("rto_min", Duration{1'000}).value_or(c.min_rto);
  c.initial_rto = t.duration("rto_initial", Duration{1'000}).value_or(c.initial_rto);
  c.max_rto = t.duration("rto_max", Duration{1'000}).value_or(c.max_rto);
  c.min_pto = t.duration("pto_min", Duration{1'000}).value_or(c.min_pto);
  c.cnp_interval = t.duration("cnp_interval").value_or(c.cnp_interval);
  s.max_pacing_rate = t.rate("max_pacing_rate").value_or(BitRate{});
  if (t.has("max_pacing_rate") && s.max_pacing_rate.unlimited()) {
    t.fail("max_pacing_rate", "must be above 0 (omit it for no cap)");
  }
  try {
    transport::validate(c);
  } catch (const transport::TransportConfigError& e) {
    t.fail_here(e.reason);
  }
  check_cc(t, "cc", s.cc, "cc_params", s.cc_params);
  t.finish();
  return s;
}

// Routing problems (a region pair with no route, a route through a missing link) are found
// by building the network once.
void check_routes(const fabric::TopologySpec& topo, const std::string& file) {
  struct Nowhere final : fabric::Receiver {
    void receive(Instant, Packet&&) override {}
    void dropped(Instant, Packet&&, DropCause, const std::string&) override {}
  } nowhere;
  EventLoop loop;
  try {
    const fabric::Network net(loop, topo, 1, nowhere);
  } catch (const InputError& e) {
    throw InputError(file, e.path(), e.reason());
  }
}

// `controller`: the path policy of the region pairs with several paths (docs/steering.md).
steering::Settings read_controller(const JsonReader& c, std::vector<std::string>& compare) {
  steering::Settings s;
  const std::vector<std::string_view> names = steering::policy_names();
  s.policy = c.choice("policy", names, "static");
  s.interval = c.duration("interval", Duration{100'000}).value_or(s.interval);
  s.headroom = c.optional_number("headroom", 0, 0.9).value_or(s.headroom);
  s.plb_rounds = static_cast<std::uint32_t>(c.optional_integer("plb_rounds", 1, 1000).value_or(s.plb_rounds));
  s.plb_ce_fraction = c.optional_number("plb_ce_fraction", 0.01, 1).value_or(s.plb_ce_fraction);
  s.seed_target = c.duration("seed_target").value_or(s.seed_target);
  s.seed_backoff = c.optional_number("seed_backoff", 0.01, 0.999).value_or(s.seed_backoff);
  s.seed_step = c.optional_number("seed_step", 0, 1).value_or(s.seed_step);
  s.spray = c.boolean("spray", false);
  if (c.has("compare")) {
    const nlohmann::json& list = c.raw().at("compare");
    if (!list.is_array()) {
      c.fail("compare", "must be a list of policies to compare with, e.g. [\"static\", \"ecmp\"]");
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string where = c.path_of("compare") + "[" + std::to_string(i) + "]";
      const std::string name = list[i].is_string() ? list[i].get<std::string>() : "";
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        throw InputError(c.file(), where,
                         "must be a policy (static, ecmp, plb, te, seed), got " + describe(list[i]));
      }
      if (name == s.policy || std::find(compare.begin(), compare.end(), name) != compare.end()) {
        throw InputError(c.file(), where, "\"" + name + "\" is the run's own policy or listed twice");
      }
      compare.push_back(name);
    }
  }
  if (s.spray && (s.policy == "ecmp" || s.policy == "plb")) {
    c.fail("spray",
           "sprays by the controller's weights: use static, te or seed (ecmp and plb hash per queue pair)");
  }
  c.finish();
  return s;
}

// Standby paths (`routes[].paths[].standby`, `provision`): capacity the controller may ask for,
// down until it does and `provision` after (docs/steering.md "Capacity on request").
void read_standby(const JsonReader& topo, steering::Settings& settings) {
  if (!topo.has("routes")) {
    return;
  }
  for (const JsonReader& route : topo.objects("routes")) {
    if (!route.has("paths")) {
      continue;
    }
    const std::vector<JsonReader> paths = route.objects("paths");
    for (std::size_t k = 0; k < paths.size(); ++k) {
      const JsonReader& p = paths[k];
      if (!p.boolean("standby", false)) {
        if (p.has("provision")) {
          p.fail("provision", "only a standby path is provisioned (add \"standby\": true)");
        }
        continue;
      }
      if (k == 0) {
        p.fail("standby", "the route's first path cannot be a standby path");
      }
      if (settings.policy != "te") {
        // The others never ask for capacity, and static would place queue pairs on it while down.
        p.fail("standby",
               "a standby path needs a controller that asks for capacity (controller.policy \"te\")");
      }
      steering::Standby st;
      st.from = route.string("from");
      st.to = route.string("to");
      st.path = static_cast<std::uint32_t>(k);
      st.provision = p.duration("provision").value_or(st.provision);
      settings.standby.push_back(st);
    }
  }
}

// `background`: traffic beside the workload, by class (docs/scenarios.md "background").
void read_background(const JsonReader& r, Scenario& s) {
  if (!r.has("background")) {
    return;
  }
  for (const JsonReader& b : r.objects("background")) {
    FlowSpec flow = read_flow(b, s.topology);
    flow.traffic_class = b.choice("class", {"storage", "tenant", "microburst"}, "");
    if (flow.traffic_class.empty()) {
      b.fail("class", "missing (one of: storage, tenant, microburst)");
    }
    if (flow.traffic_class == "microburst") {
      const auto period = b.duration("period", Duration{1'000});
      if (!period) {
        b.fail("period", "missing: a microburst sends size_bytes every period (e.g. \"10ms\")");
      }
      if (flow.bytes == 0) {
        b.fail("size_bytes", "missing: the bytes of each burst");
      }
      flow.period = *period;
    }
    b.finish();
    if (!flow.cc.empty() || !flow.cc_params.empty()) {
      check_cc(b, "cc", flow.cc.empty() ? s.transport.cc : flow.cc, "cc_params", flow.cc_params);
    }
    s.workload.background.push_back(std::move(flow));
  }
}

// `thresholds`: pass/fail limits by name, each in its range (reports/checks.h).
void read_thresholds(const JsonReader& r, Scenario& s) {
  if (const auto t = r.optional_object("thresholds")) {
    const auto& known = reports::known_threshold_names();
    for (const auto& [name, value] : t->raw().items()) {
      if (!known.contains(name)) {
        std::string names;
        for (const std::string& k : known) {
          names += (names.empty() ? "" : ", ") + k;
        }
        t->fail(name, "unknown threshold (known: " + names + ")");
      }
      if (value.is_boolean()) {
        t->allow(name);
        s.thresholds[name] = value.get<bool>() ? 1 : 0;
        continue;
      }
      const auto range = reports::limit_range(name).value_or(reports::LimitRange{-1e18, 1e18});
      s.thresholds[name] = t->number(name, range.lo, range.hi);
    }
  }
}

}  // namespace

std::string document_kind(const nlohmann::json& doc) {
  if (doc.is_object() && doc.contains("gradwall") && doc["gradwall"].is_string()) {
    return doc["gradwall"].get<std::string>();
  }
  return "";
}

Scenario parse_scenario(const nlohmann::json& doc, const std::string& file) {
  if (!doc.is_object()) {
    throw InputError(file, "$", "a scenario is a JSON object");
  }
  const JsonReader r(doc, file);
  Scenario s;
  s.file = file;
  s.source = doc;
  const std::string kind = r.string("gradwall");
  if (kind != "scenario/v1") {
    r.fail("gradwall", "expected \"scenario/v1\", got \"" + kind + "\"");
  }
  s.name = r.string("name");
  s.description = r.optional_string("description").value_or("");
  s.seed = r.optional_seed("seed").value_or(1);
  s.topology = read_topology(r.object("topology"), file);
  s.transport = r.has("transport") ? read_transport(r.object("transport")) : TransportSpec{};
  check_routes(s.topology, file);
  s.workload = read_workload(r.object("workload"), s.topology);
  s.warmup_iterations = s.workload.period;
  const auto workload = r.object("workload");
  const auto flows = s.workload.flows.empty() ? std::vector<JsonReader>{} : workload.objects("flows");
  for (std::size_t i = 0; i < s.workload.flows.size(); ++i) {
    FlowSpec& f = s.workload.flows[i];
    if (!f.cc.empty() || !f.cc_params.empty()) {
      const std::string name = f.cc.empty() ? s.transport.cc : f.cc;
      check_cc(flows[i], "cc", name, "cc_params", f.cc_params);
    }
  }
  read_background(r, s);
  read_thresholds(r, s);
  if (const auto c = r.optional_object("controller")) {
    s.controller = read_controller(*c, s.compare_policies);
  }
  read_standby(r.object("topology"), s.controller);
  const bool several_paths =
      std::any_of(s.topology.routes.begin(), s.topology.routes.end(),
                  [](const fabric::RouteSpec& route) { return route.paths.size() > 1; });
  if (!s.compare_policies.empty() && !several_paths) {
    throw InputError(file, "$.controller.compare", "no route has several paths: there is nothing to steer");
  }
  if (const auto c = r.optional_object("cost")) {
    s.cost.gpus = c->optional_number("gpus", 0, 1e9).value_or(0);
    s.cost.usd_per_gpu_hour = c->optional_number("usd_per_gpu_hour", 0, 1e6).value_or(0);
    s.cost.gpu_watts = c->optional_number("gpu_watts", 0, 1e5).value_or(0);
    s.cost.run_hours = c->optional_number("run_hours", 0, 1e6).value_or(0);
    s.cost.usd_per_gbps_month = c->optional_number("usd_per_gbps_month", 0, 1e9).value_or(0);
    c->finish();
  }
  if (const auto results = r.optional_object("results")) {
    s.interval = results->duration("interval", Duration{1'000'000}).value_or(s.interval);
    s.warmup_iterations = static_cast<std::uint32_t>(
        results->optional_integer("warmup_iterations", 0, 1'000'000).value_or(s.warmup_iterations));
    results->finish();
  }
  r.finish();
  return s;
}

std::string resolve_profile(const std::string& name, const std::string& scenario_file) {
  std::vector<fs::path> tries;
  const fs::path given(name);
  if (given.is_absolute()) {
    tries.push_back(given);
  } else {
    tries.push_back(fs::path(scenario_file).parent_path() / given);
    tries.push_back(given);
    for (const std::string& dir : data_search_dirs("wan")) {
      tries.push_back(fs::path(dir) / given);
      tries.push_back(fs::path(dir) / (name + ".json"));
    }
  }
  for (const fs::path& p : tries) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) {
      return p.string();
    }
  }
  return name;  // load_profile reports the file as missing
}

Scenario load_scenario(const std::string& file) {
  return parse_scenario(read_json_file(file), file);
}

}  // namespace gw
