#include "harness/run/scenario.h"

#include "harness/cli/run_cost.h"
#include "reports/checks.h"
#include "reports/report.h"

#include <filesystem>
#include <functional>
#include <tuple>

#include "core/errors.h"
#include "core/event_loop.h"
#include "core/json_reader.h"
#include "core/paths.h"
#include "emulator/engine/netem.h"
#include "emulator/engine/profile.h"
#include "generators/workloads/data_parallel.h"
#include "generators/workloads/moe.h"
#include "generators/workloads/pipeline.h"

namespace gw {

namespace {

// Inputs whose work would not fit any machine are refused while reading, before anything is
// built: work items of a training run (DDP buckets, FSDP layers, pipeline micro-batches, over
// all iterations), DDP buckets per iteration and MoE's all-to-all matrices. A schedule is built to validate
// the collective's settings only up to this many steps; bigger ones are left to the cost check (run_cost.h),
// which estimates them without building.
constexpr std::uint64_t kMaxWorkItems = 2'000'000;
constexpr std::uint64_t kMaxBucketsPerIteration = 65'536;
constexpr double kMaxValidatedSteps = 1e6;
constexpr double kMaxMatrixEntries = 1.25e8;  // 1 GB of MoE all-to-all matrices

std::uint32_t total_hosts(const fabric::TopologySpec& topo) {
  std::uint32_t n = 0;
  for (const auto& r : topo.regions) {
    n += r.hosts;
  }
  return n;
}

namespace fs = std::filesystem;

// A WAN profile named in a scenario: a path relative to the scenario's folder, or the name of
// a shipped profile ("cross-continent" -> profiles/wan/cross-continent.json).
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

cc::CcParams read_cc_params(const JsonReader& r, const std::string& key) {
  cc::CcParams params;
  if (!r.has(key)) {
    return params;
  }
  const JsonReader obj = r.object(key);
  for (const auto& [name, value] : obj.raw().items()) {
    params[name] = obj.number(name, -1e18, 1e18);
  }
  return params;
}

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
      // netem's `limit` counts every packet inside netem, delay line included; a byte limit
      // given here replaces it with a bottleneck queue limit, which is what a WAN router has.
      if (const auto limit = r.bytes("limit", 1500, std::uint64_t{1} << 40)) {
        n.dir.limit_packets.reset();
        if (!n.dir.queue) {
          n.dir.queue = QueueSettings{};
        }
        n.dir.queue->limit_bytes = *limit;
      }
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
  }
  r.finish();
  return link;
}

fabric::TopologySpec read_topology(const JsonReader& t, const std::string& file) {
  fabric::TopologySpec topo;
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
      for (const auto& v : r.array("via")) {
        if (!v.is_string()) {
          r.fail("via", "must be a list of relay or region names");
        }
        route.via.push_back(v.get<std::string>());
      }
      r.finish();
      topo.routes.push_back(route);
    }
  }
  t.finish();
  return topo;
}

std::int64_t hosts_of(const fabric::TopologySpec& t, const std::string& name) {
  for (const auto& r : t.regions) {
    if (r.name == name) {
      return r.hosts;
    }
  }
  return 0;
}

bool has_region(const fabric::TopologySpec& t, const std::string& name) {
  for (const auto& r : t.regions) {
    if (r.name == name && r.hosts > 0) {
      return true;
    }
  }
  return false;
}

// `nccl`: false (no NCCL buffers: each step one message) or NCCL's settings, each with the
// environment variable it stands for (docs/scenarios.md "nccl").
coll::NcclConfig read_nccl(const JsonReader& w) {
  coll::NcclConfig n;
  if (!w.has("nccl")) {
    return n;
  }
  if (w.raw().at("nccl").is_boolean()) {
    n.enabled = w.boolean("nccl", true);
    return n;
  }
  const JsonReader j = w.object("nccl");
  const std::string protocol = j.choice("protocol", {"simple", "ll128", "ll"}, "simple");
  coll::parse_protocol(protocol, n.protocol);
  n.steps = static_cast<std::uint32_t>(j.optional_integer("steps", 1, 64).value_or(n.steps));
  n.buffsize = j.bytes("buffsize", 4096, std::uint64_t{1} << 34).value_or(0);
  if (n.buffer_wire_bytes() / n.steps < 512) {
    j.fail(j.has("steps") ? "steps" : "buffsize",
           "a slot of " + std::to_string(n.buffer_wire_bytes() / n.steps) +
               " bytes (buffsize / steps) is below NCCL's smallest useful slot of 512 bytes");
  }
  n.channels = static_cast<std::uint32_t>(j.optional_integer("channels", 1, 64).value_or(0));
  n.qps_per_connection =
      static_cast<std::uint32_t>(j.optional_integer("qps_per_connection", 1, 128).value_or(1));
  n.split_data_on_qps = j.boolean("split_data_on_qps", false);
  // The socket transport: NCCL_NSOCKS_PERTHREAD x NCCL_SOCKET_NTHREADS sockets per connection,
  // each message cut across them (NCCL's socket transport splits every request).
  if (j.has("nsocks_perthread") || j.has("socket_nthreads")) {
    if (j.has("qps_per_connection")) {
      j.fail("qps_per_connection",
             "is for the IB transport; nsocks_perthread / socket_nthreads set the socket transport");
    }
    const auto nsocks = j.optional_integer("nsocks_perthread", 1, 64).value_or(1);
    const auto nthreads = j.optional_integer("socket_nthreads", 1, 16).value_or(1);
    if (nsocks * nthreads > 64) {
      j.fail("nsocks_perthread", "nsocks_perthread x socket_nthreads is at most 64 (NCCL's limit)");
    }
    n.qps_per_connection = static_cast<std::uint32_t>(nsocks * nthreads);
    n.split_data_on_qps = true;
  }
  n.p2p_chunk_bytes = j.bytes("p2p_net_chunksize", 512, std::uint64_t{1} << 30).value_or(n.p2p_chunk_bytes);
  j.finish();
  return n;
}

void read_collective_workload(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec) {
  spec.iterations = static_cast<std::uint32_t>(w.optional_integer("iterations", 1, 1'000'000).value_or(1));
  spec.compute = w.duration("compute").value_or(Duration{0});
  const JsonReader c = w.object("collective");
  coll::CollectiveSpec& cs = spec.collective;
  const std::string op = c.string("op");
  if (!coll::parse_op(op, cs.op)) {
    c.fail("op", "unknown op \"" + op +
                     "\" (all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all, barrier)");
  }
  const std::string algorithm = c.optional_string("algorithm").value_or("ring");
  if (!coll::parse_algorithm(algorithm, cs.algorithm)) {
    c.fail("algorithm", "unknown algorithm \"" + algorithm +
                            "\" (ring, halving_doubling, recursive_doubling, double_binary_tree, "
                            "binomial_tree, pairwise, direct, hierarchical)");
  }
  cs.bytes = c.bytes("size", 0, std::uint64_t{1} << 40).value_or(0);
  if (cs.bytes == 0 && cs.op != coll::Op::kBarrier) {
    c.fail("size_bytes", "missing: the array size per rank in bytes");
  }
  spec.nccl = read_nccl(w);
  cs.channels = static_cast<std::uint32_t>(
      c.optional_integer("channels", 1, 64).value_or(spec.nccl.channels > 0 ? spec.nccl.channels : 1));
  cs.chunk_bytes = c.bytes("chunk", 1, std::uint64_t{1} << 40).value_or(0);
  if (cs.chunk_bytes > 0 && cs.algorithm != coll::Algorithm::kRing) {
    c.fail("chunk_bytes", "only the ring is chunked (algorithm \"" + algorithm + "\")");
  }
  cs.root = static_cast<std::uint32_t>(c.optional_integer("root", 0, 1 << 20).value_or(0));
  c.finish();
  coll::Placement placement;
  for (std::uint32_t r = 0; r < topo.regions.size(); ++r) {
    for (std::uint32_t h = 0; h < topo.regions[r].hosts; ++h) {
      placement.region.push_back(r);
    }
  }
  try {
    if (estimate_steps(cs, total_hosts(topo)) <= kMaxValidatedSteps) {
      (void)coll::build_schedule(cs, placement);
    }
  } catch (const coll::CollectiveError& e) {
    w.fail("collective", e.reason);
  }
}

// ddp / fsdp: a model, its compute per iteration, and how gradients are synchronised
// (docs/scenarios.md; generators/workloads).
void read_training_workload(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec) {
  spec.iterations = static_cast<std::uint32_t>(w.optional_integer("iterations", 1, 100'000).value_or(1));
  const JsonReader m = w.object("model");
  wl::ModelSpec model;
  model.parameters = static_cast<std::uint64_t>(m.number("parameters", 1, 1e13));
  model.bytes_per_param = static_cast<std::uint32_t>(m.optional_integer("bytes_per_param", 1, 8).value_or(2));
  model.layers = static_cast<std::uint32_t>(m.optional_integer("layers", 1, 10'000).value_or(1));
  model.hidden = static_cast<std::uint64_t>(m.optional_integer("hidden", 0, 1 << 20).value_or(0));
  model.tokens_per_iteration =
      static_cast<std::uint64_t>(m.optional_number("tokens_per_iteration", 0, 1e12).value_or(0));
  model.bytes_per_activation =
      static_cast<std::uint32_t>(m.optional_integer("bytes_per_activation", 1, 8).value_or(2));
  m.finish();
  if ((spec.kind == "moe" || spec.kind == "pipeline") &&
      (model.hidden == 0 || model.tokens_per_iteration == 0)) {
    m.fail(model.hidden == 0 ? "hidden" : "tokens_per_iteration",
           "missing: " + spec.kind +
               " sizes its transfers from tokens_per_iteration x hidden x bytes_per_activation");
  }
  const JsonReader c = w.object("compute");
  wl::ComputeSpec compute;
  compute.forward = c.duration("forward").value_or(Duration{0});
  compute.backward = c.duration("backward").value_or(Duration{0});
  compute.peak_flops_per_s = c.optional_number("peak_tflops", 0, 1e6).value_or(0) * 1e12;
  compute.mfu = c.optional_number("mfu", 0.001, 1).value_or(compute.mfu);
  c.finish();
  coll::Algorithm algorithm = coll::Algorithm::kRing;
  const std::string name = w.optional_string("algorithm").value_or(spec.kind == "moe" ? "pairwise" : "ring");
  if (!coll::parse_algorithm(name, algorithm)) {
    w.fail("algorithm", "unknown algorithm \"" + name + "\"");
  }
  spec.nccl = read_nccl(w);
  const auto channels = static_cast<std::uint32_t>(
      w.optional_integer("channels", 1, 64).value_or(spec.nccl.channels > 0 ? spec.nccl.channels : 1));
  std::function<wl::Workload(std::uint32_t)> build;
  try {
    if (spec.kind == "ddp") {
      wl::DdpConfig cfg;
      cfg.model = model;
      cfg.compute = compute;
      cfg.bucket_bytes = w.bytes("bucket", 1, std::uint64_t{1} << 40).value_or(cfg.bucket_bytes);
      cfg.first_bucket_bytes =
          w.bytes("first_bucket", 0, std::uint64_t{1} << 40).value_or(cfg.first_bucket_bytes);
      cfg.algorithm = algorithm;
      cfg.channels = channels;
      const std::uint64_t gradient = model.parameters * model.bytes_per_param;
      const std::uint64_t buckets = (gradient + cfg.bucket_bytes - 1) / cfg.bucket_bytes;
      if (buckets > kMaxBucketsPerIteration) {
        w.fail(w.has("bucket") ? "bucket" : "bucket_bytes",
               std::to_string(cfg.bucket_bytes) + " B cuts " + std::to_string(gradient) +
                   " B of gradients into " + std::to_string(buckets) + " buckets per iteration, more than " +
                   std::to_string(kMaxBucketsPerIteration) + " (PyTorch's default bucket_cap_mb is 25 MiB)");
      }
      build = [cfg, &topo](std::uint32_t iterations) mutable {
        cfg.iterations = iterations;
        return wl::ddp_workload(cfg, total_hosts(topo));
      };
    } else if (spec.kind == "moe") {
      wl::MoeConfig cfg;
      cfg.model = model;
      cfg.compute = compute;
      cfg.top_k = static_cast<std::uint32_t>(w.optional_integer("top_k", 1, 64).value_or(cfg.top_k));
      cfg.skew = w.optional_number("skew", 0, 10).value_or(cfg.skew);
      cfg.expert_share = w.optional_number("expert_share", 0, 1).value_or(cfg.expert_share);
      cfg.seed = static_cast<std::uint64_t>(w.optional_integer("routing_seed", 0, 1LL << 53).value_or(1));
      cfg.algorithm = algorithm;
      cfg.channels = channels;
      if (algorithm != coll::Algorithm::kPairwise && algorithm != coll::Algorithm::kDirect) {
        w.fail("algorithm", "moe sends all-to-all: use \"pairwise\" or \"direct\", got \"" + name + "\"");
      }
      // Every dispatch and combine holds its ranks x ranks byte matrix (MoE routing is uneven).
      const double p = total_hosts(topo);
      const double entries = p * p * model.layers * (1 + 4.0 * spec.iterations);
      if (entries > kMaxMatrixEntries) {
        w.fail_here("moe on " + std::to_string(total_hosts(topo)) +
                    " ranks keeps ranks^2 x layers x (4 x iterations + 1) = " +
                    std::to_string(static_cast<std::uint64_t>(entries)) +
                    " all-to-all matrix entries (8 B each), more than " +
                    std::to_string(static_cast<std::uint64_t>(kMaxMatrixEntries)));
      }
      build = [cfg, &topo](std::uint32_t iterations) mutable {
        cfg.iterations = iterations;
        return wl::moe_workload(cfg, total_hosts(topo));
      };
    } else if (spec.kind == "pipeline") {
      wl::PipelineConfig cfg;
      cfg.model = model;
      cfg.compute = compute;
      cfg.micro_batches = static_cast<std::uint32_t>(
          w.optional_integer("micro_batches", 1, 4096).value_or(cfg.micro_batches));
      const std::string schedule = w.choice("schedule", {"1f1b", "gpipe"}, "1f1b");
      cfg.schedule = schedule == "gpipe" ? wl::PipelineSchedule::kGpipe : wl::PipelineSchedule::kOneFOneB;
      if (w.has("algorithm") || w.has("channels")) {
        w.fail(w.has("algorithm") ? "algorithm" : "channels",
               "a pipeline sends point to point between stages: no collective settings");
      }
      if (total_hosts(topo) < 2) {
        w.fail("kind", "a pipeline needs at least two stages: the topology has one host");
      }
      if (std::uint64_t{cfg.micro_batches} * total_hosts(topo) * 4 > kMaxWorkItems) {
        w.fail("micro_batches", std::to_string(cfg.micro_batches) + " micro-batches on " +
                                    std::to_string(total_hosts(topo)) + " stages make more than " +
                                    std::to_string(kMaxWorkItems) + " work items per iteration");
      }
      build = [cfg, &topo](std::uint32_t iterations) mutable {
        cfg.iterations = iterations;
        return wl::pipeline_workload(cfg, total_hosts(topo));
      };
    } else {
      wl::FsdpConfig cfg;
      cfg.model = model;
      cfg.compute = compute;
      cfg.algorithm = algorithm;
      cfg.channels = channels;
      build = [cfg, &topo](std::uint32_t iterations) mutable {
        cfg.iterations = iterations;
        return wl::fsdp_workload(cfg, total_hosts(topo));
      };
    }
    // One iteration first: its size times the iterations is the run's, refused before it is built.
    wl::Workload one = build(1);
    if (static_cast<double>(one.items.size()) * spec.iterations > static_cast<double>(kMaxWorkItems)) {
      w.fail(w.has("iterations") ? "iterations" : "kind",
             std::to_string(spec.iterations) + " iterations of " + std::to_string(one.items.size()) +
                 " work items each are more than " + std::to_string(kMaxWorkItems) + " work items");
    }
    spec.training = spec.iterations == 1 ? std::move(one) : build(spec.iterations);
  } catch (const wl::WorkloadError& e) {
    w.fail_here(e.reason);
  }
  coll::Placement placement;
  for (std::uint32_t r = 0; r < topo.regions.size(); ++r) {
    for (std::uint32_t h = 0; h < topo.regions[r].hosts; ++h) {
      placement.region.push_back(r);
    }
  }
  for (const wl::WorkItem& item : spec.training.items) {
    if (item.kind == wl::WorkKind::kCollective) {
      try {
        if (estimate_steps(item.collective, total_hosts(topo)) <= kMaxValidatedSteps) {
          (void)coll::build_schedule(item.collective, placement);
        }
      } catch (const coll::CollectiveError& e) {
        w.fail("algorithm", e.reason);
      }
      break;  // every bucket uses the same algorithm on the same ranks
    }
  }
}

// One entry of workload.flows or of background: endpoints, count, controller, start, size.
// Leaves `f` open (the caller may read more keys, then finishes it).
FlowSpec read_flow(const JsonReader& f, const fabric::TopologySpec& topo) {
  FlowSpec flow;
  flow.from = f.string("from");
  flow.to = f.string("to");
  for (const auto& [key, name] : {std::pair{"from", &flow.from}, {"to", &flow.to}}) {
    if (!has_region(topo, *name)) {
      f.fail(key, "no region named \"" + *name + "\" with hosts");
    }
  }
  for (const auto& [key, host, region] :
       {std::tuple{"from_host", &flow.from_host, flow.from}, {"to_host", &flow.to_host, flow.to}}) {
    if (const auto h = f.optional_integer(key, 0, 65535)) {
      const auto n = hosts_of(topo, region);
      if (*h >= n) {
        f.fail(key, "region \"" + region + "\" has " + std::to_string(n) + " hosts (0 to " +
                        std::to_string(n - 1) + "), got " + std::to_string(*h));
      }
      *host = static_cast<std::uint32_t>(*h);
    }
  }
  if (flow.from == flow.to && flow.from_host && flow.to_host && *flow.from_host == *flow.to_host) {
    f.fail("to_host", "a flow from a host to itself");
  }
  if (flow.from == flow.to && hosts_of(topo, flow.from) < 2) {
    f.fail("to",
           "region \"" + flow.to + "\" has one host: a flow inside it would go from the host to itself");
  }
  flow.count = static_cast<std::uint32_t>(f.optional_integer("count", 1, 100000).value_or(1));
  flow.cc = f.optional_string("cc").value_or("");
  flow.cc_params = read_cc_params(f, "cc_params");
  flow.start = f.duration("start").value_or(Duration{0});
  flow.bytes = f.bytes("size", 1, std::uint64_t{1} << 50).value_or(0);
  return flow;
}

WorkloadSpec read_workload(const JsonReader& w, const fabric::TopologySpec& topo) {
  WorkloadSpec spec;
  spec.kind = w.choice("kind", {"flows", "collective", "ddp", "fsdp", "moe", "pipeline"}, "");
  if (spec.kind.empty()) {
    w.fail("kind", "missing (one of: flows, collective, ddp, fsdp, moe, pipeline)");
  }
  const auto duration = w.duration("duration", Duration{1'000}, Duration{86'400'000'000'000});
  if (spec.kind == "collective") {
    spec.duration = duration.value_or(Duration{3'600'000'000'000});
    read_collective_workload(w, topo, spec);
    w.finish();
    return spec;
  }
  if (spec.kind == "ddp" || spec.kind == "fsdp" || spec.kind == "moe" || spec.kind == "pipeline") {
    spec.duration = duration.value_or(Duration{3'600'000'000'000});
    read_training_workload(w, topo, spec);
    w.finish();
    return spec;
  }
  if (!duration) {
    w.fail("duration", "missing: how long to run (e.g. \"60s\")");
  }
  spec.duration = *duration;
  for (const JsonReader& f : w.objects("flows")) {
    FlowSpec flow = read_flow(f, topo);
    f.finish();
    spec.flows.push_back(flow);
  }
  if (spec.flows.empty()) {
    w.fail("flows", "needs at least one flow");
  }
  w.finish();
  return spec;
}

TransportSpec read_transport(const JsonReader& t) {
  TransportSpec s;
  transport::TransportConfig& c = s.config;
  s.cc = t.optional_string("cc").value_or(s.cc);
  s.cc_params = read_cc_params(t, "cc_params");
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
  const auto workload = r.object("workload");
  const auto flows = s.workload.kind == "flows" ? workload.objects("flows") : std::vector<JsonReader>{};
  for (std::size_t i = 0; i < s.workload.flows.size(); ++i) {
    FlowSpec& f = s.workload.flows[i];
    if (!f.cc.empty() || !f.cc_params.empty()) {
      const std::string name = f.cc.empty() ? s.transport.cc : f.cc;
      check_cc(flows[i], "cc", name, "cc_params", f.cc_params);
    }
  }
  if (r.has("background")) {
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
  if (const auto c = r.optional_object("cost")) {
    s.cost.gpus = c->optional_number("gpus", 0, 1e9).value_or(0);
    s.cost.usd_per_gpu_hour = c->optional_number("usd_per_gpu_hour", 0, 1e6).value_or(0);
    s.cost.gpu_watts = c->optional_number("gpu_watts", 0, 1e5).value_or(0);
    s.cost.run_hours = c->optional_number("run_hours", 0, 1e6).value_or(0);
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

Scenario load_scenario(const std::string& file) {
  return parse_scenario(read_json_file(file), file);
}

}  // namespace gw
