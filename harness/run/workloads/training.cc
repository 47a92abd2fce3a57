// Training jobs: "ddp", "fsdp", "moe", "pipeline", "hybrid" (docs/scenarios.md; the builders are in
// generators/workloads). What they share is read once (the model, its compute, the
// iterations, NCCL's settings); each kind reads its own keys beside the call to its builder.
#include <algorithm>
#include <functional>

#include "generators/workloads/data_parallel.h"
#include "generators/workloads/hybrid.h"
#include "generators/workloads/moe.h"
#include "generators/workloads/pipeline.h"
#include "harness/run/workloads/kinds.h"
#include "harness/run/workloads/reading.h"

namespace gw::kinds {
namespace {

// What every training kind reads: the model, the compute per iteration and NCCL's settings.
struct Job {
  JsonReader model_keys;  // `model`, for errors about it
  wl::ModelSpec model;
  wl::ComputeSpec compute;
  std::uint32_t ranks = 0;
};

// A kind's builder: the job's work items over `iterations` iterations.
using Builder = std::function<wl::Workload(std::uint32_t iterations)>;

wl::ModelSpec read_model(const JsonReader& m) {
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
  return model;
}

wl::ComputeSpec read_compute(const JsonReader& c) {
  wl::ComputeSpec compute;
  compute.forward = c.duration("forward").value_or(Duration{0});
  compute.backward = c.duration("backward").value_or(Duration{0});
  compute.peak_flops_per_s = c.optional_number("peak_tflops", 0, 1e6).value_or(0) * 1e12;
  compute.mfu = c.optional_number("mfu", 0.001, 1).value_or(compute.mfu);
  c.finish();
  return compute;
}

Job read_job(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec) {
  spec.iterations = static_cast<std::uint32_t>(w.optional_integer("iterations", 1, 100'000).value_or(1));
  Job job{w.object("model"), {}, {}, total_hosts(topo)};
  job.model = read_model(job.model_keys);
  job.compute = read_compute(w.object("compute"));
  spec.nccl = read_nccl(w);
  return job;
}

coll::Algorithm read_algorithm(const JsonReader& w, const std::string& fallback) {
  coll::Algorithm algorithm = coll::Algorithm::kRing;
  const std::string name = w.optional_string("algorithm").value_or(fallback);
  if (!coll::parse_algorithm(name, algorithm)) {
    w.fail("algorithm", "unknown algorithm \"" + name + "\"");
  }
  return algorithm;
}

std::uint32_t read_channels(const JsonReader& w, const WorkloadSpec& spec) {
  return static_cast<std::uint32_t>(
      w.optional_integer("channels", 1, 64).value_or(spec.nccl.channels > 0 ? spec.nccl.channels : 1));
}

// MoE and pipelines size their transfers from the activations.
void require_activations(const Job& job, const std::string& kind) {
  if (job.model.hidden == 0 || job.model.tokens_per_iteration == 0) {
    job.model_keys.fail(job.model.hidden == 0 ? "hidden" : "tokens_per_iteration",
                        "missing: " + kind +
                            " sizes its transfers from tokens_per_iteration x hidden x bytes_per_activation");
  }
}

// Builds the job: one iteration first, whose size times the iterations is the run's, refused
// before it is built; then checks the schedule of its collectives on the topology.
void build(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec,
           const Builder& builder) {
  try {
    wl::Workload one = builder(1);
    if (static_cast<double>(one.items.size()) * spec.iterations > static_cast<double>(kMaxWorkItems)) {
      w.fail(w.has("iterations") ? "iterations" : "kind",
             std::to_string(spec.iterations) + " iterations of " + std::to_string(one.items.size()) +
                 " work items each are more than " + std::to_string(kMaxWorkItems) + " work items");
    }
    spec.training = spec.iterations == 1 ? std::move(one) : builder(spec.iterations);
  } catch (const wl::WorkloadError& e) {
    w.fail_here(e.reason);
  }
  for (const wl::WorkItem& item : spec.training.items) {
    if (item.kind == wl::WorkKind::kCollective && item.group.empty()) {
      check_schedule(w, "algorithm", item.collective, topo);
      break;  // every bucket uses the same algorithm on the same ranks
    }
  }
}

// `bucket` (PyTorch's bucket_cap_mb, 25 MiB by default), refused when it cuts `bytes` into more
// buckets than an iteration may hold.
std::uint64_t read_bucket(const JsonReader& w, std::uint64_t bytes, std::uint64_t fallback) {
  const std::uint64_t bucket = w.bytes("bucket", 1, std::uint64_t{1} << 40).value_or(fallback);
  const std::uint64_t buckets = (bytes + bucket - 1) / bucket;
  if (buckets > kMaxBucketsPerIteration) {
    w.fail(w.has("bucket") ? "bucket" : "bucket_bytes",
           std::to_string(bucket) + " B cuts " + std::to_string(bytes) + " B of gradients into " +
               std::to_string(buckets) + " buckets per iteration, more than " +
               std::to_string(kMaxBucketsPerIteration) + " (PyTorch's default bucket_cap_mb is 25 MiB)");
  }
  return bucket;
}

}  // namespace

void read_ddp(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec) {
  const Job job = read_job(w, topo, spec);
  wl::DdpConfig cfg;
  cfg.model = job.model;
  cfg.compute = job.compute;
  cfg.algorithm = read_algorithm(w, "ring");
  cfg.channels = read_channels(w, spec);
  cfg.bucket_bytes = read_bucket(w, job.model.parameters * job.model.bytes_per_param, cfg.bucket_bytes);
  cfg.first_bucket_bytes =
      w.bytes("first_bucket", 0, std::uint64_t{1} << 40).value_or(cfg.first_bucket_bytes);
  build(w, topo, spec, [cfg, ranks = job.ranks](std::uint32_t iterations) mutable {
    cfg.iterations = iterations;
    return wl::ddp_workload(cfg, ranks);
  });
}

void read_diloco(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec) {
  const Job job = read_job(w, topo, spec);
  wl::DilocoConfig cfg;
  cfg.model = job.model;
  cfg.compute = job.compute;
  cfg.algorithm = read_algorithm(w, "ring");
  cfg.channels = read_channels(w, spec);
  cfg.inner_steps = static_cast<std::uint32_t>(w.optional_integer("inner_steps", 1, 100'000).value_or(1));
  const std::string compression = w.choice("compression", {"none", "int8", "int4"}, "none");
  cfg.outer_bits = compression == "int8" ? 8 : compression == "int4" ? 4 : 0;
  if (spec.iterations % cfg.inner_steps != 0) {
    w.fail("iterations", std::to_string(spec.iterations) + " is not a whole number of outer steps of " +
                             std::to_string(cfg.inner_steps) + " inner steps (inner_steps)");
  }
  spec.period = cfg.inner_steps;
  cfg.bucket_bytes = read_bucket(w, wl::diloco_outer_bytes(cfg), cfg.bucket_bytes);
  build(w, topo, spec, [cfg, ranks = job.ranks](std::uint32_t iterations) mutable {
    cfg.iterations = iterations;
    return wl::diloco_workload(cfg, ranks);
  });
}

void read_fsdp(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec) {
  const Job job = read_job(w, topo, spec);
  wl::FsdpConfig cfg;
  cfg.model = job.model;
  cfg.compute = job.compute;
  cfg.algorithm = read_algorithm(w, "ring");
  cfg.channels = read_channels(w, spec);
  build(w, topo, spec, [cfg, ranks = job.ranks](std::uint32_t iterations) mutable {
    cfg.iterations = iterations;
    return wl::fsdp_workload(cfg, ranks);
  });
}

void read_moe(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec) {
  const Job job = read_job(w, topo, spec);
  require_activations(job, "moe");
  wl::MoeConfig cfg;
  cfg.model = job.model;
  cfg.compute = job.compute;
  cfg.algorithm = read_algorithm(w, "pairwise");
  cfg.channels = read_channels(w, spec);
  cfg.top_k = static_cast<std::uint32_t>(w.optional_integer("top_k", 1, 64).value_or(cfg.top_k));
  cfg.skew = w.optional_number("skew", 0, 10).value_or(cfg.skew);
  cfg.expert_share = w.optional_number("expert_share", 0, 1).value_or(cfg.expert_share);
  cfg.seed = static_cast<std::uint64_t>(w.optional_integer("routing_seed", 0, 1LL << 53).value_or(1));
  if (cfg.algorithm != coll::Algorithm::kPairwise && cfg.algorithm != coll::Algorithm::kDirect) {
    w.fail("algorithm", "moe sends all-to-all: use \"pairwise\" or \"direct\", got \"" +
                            w.optional_string("algorithm").value_or("") + "\"");
  }
  // Every dispatch and combine holds its ranks x ranks byte matrix (MoE routing is uneven).
  const double p = job.ranks;
  const double entries = p * p * job.model.layers * (1 + 4.0 * spec.iterations);
  if (entries > kMaxMatrixEntries) {
    w.fail_here("moe on " + std::to_string(job.ranks) +
                " ranks keeps ranks^2 x layers x (4 x iterations + 1) = " +
                std::to_string(static_cast<std::uint64_t>(entries)) +
                " all-to-all matrix entries (8 B each), more than " +
                std::to_string(static_cast<std::uint64_t>(kMaxMatrixEntries)));
  }
  build(w, topo, spec, [cfg, ranks = job.ranks](std::uint32_t iterations) mutable {
    cfg.iterations = iterations;
    return wl::moe_workload(cfg, ranks);
  });
}

void read_pipeline(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec) {
  const Job job = read_job(w, topo, spec);
  require_activations(job, "pipeline");
  if (w.has("algorithm") || w.has("channels")) {
    w.fail(w.has("algorithm") ? "algorithm" : "channels",
           "a pipeline sends point to point between stages: no collective settings");
  }
  wl::PipelineConfig cfg;
  cfg.model = job.model;
  cfg.compute = job.compute;
  cfg.micro_batches =
      static_cast<std::uint32_t>(w.optional_integer("micro_batches", 1, 4096).value_or(cfg.micro_batches));
  const std::string schedule = w.choice("schedule", {"1f1b", "gpipe"}, "1f1b");
  cfg.schedule = schedule == "gpipe" ? wl::PipelineSchedule::kGpipe : wl::PipelineSchedule::kOneFOneB;
  if (job.ranks < 2) {
    w.fail("kind", "a pipeline needs at least two stages: the topology has one host");
  }
  if (std::uint64_t{cfg.micro_batches} * job.ranks * 4 > kMaxWorkItems) {
    w.fail("micro_batches", std::to_string(cfg.micro_batches) + " micro-batches on " +
                                std::to_string(job.ranks) + " stages make more than " +
                                std::to_string(kMaxWorkItems) + " work items per iteration");
  }
  build(w, topo, spec, [cfg, ranks = job.ranks](std::uint32_t iterations) mutable {
    cfg.iterations = iterations;
    return wl::pipeline_workload(cfg, ranks);
  });
}

void read_hybrid(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec) {
  const Job job = read_job(w, topo, spec);
  wl::HybridConfig cfg;
  cfg.model = job.model;
  cfg.compute = job.compute;
  const JsonReader par = w.object("parallel");
  const auto dim = [&par](const char* key) {
    return static_cast<std::uint32_t>(par.optional_integer(key, 1, 1 << 20).value_or(1));
  };
  cfg.tp = dim("tp");
  cfg.pp = dim("pp");
  cfg.dp = dim("dp");
  cfg.ep = dim("ep");
  if (par.has("order")) {
    std::vector<std::string> names;
    for (const nlohmann::json& n : par.array("order")) {
      if (!n.is_string()) {
        par.fail("order", "names tp, pp and dp as strings, innermost first");
      }
      names.push_back(n.get<std::string>());
    }
    if (names.size() != 3) {
      par.fail("order", "names tp, pp and dp, innermost first (three entries, got " +
                            std::to_string(names.size()) + ")");
    }
    for (std::size_t i = 0; i < 3; ++i) {
      if (names[i] == "tp") {
        cfg.order[i] = wl::ParallelDim::kTp;
      } else if (names[i] == "pp") {
        cfg.order[i] = wl::ParallelDim::kPp;
      } else if (names[i] == "dp") {
        cfg.order[i] = wl::ParallelDim::kDp;
      } else {
        par.fail("order", "\"" + names[i] + "\" is not tp, pp or dp");
      }
    }
    std::vector<wl::ParallelDim> dims(cfg.order.begin(), cfg.order.end());
    std::sort(dims.begin(), dims.end());
    if (std::adjacent_find(dims.begin(), dims.end()) != dims.end()) {
      par.fail("order", "must name each of tp, pp and dp once");
    }
  }
  const std::uint64_t product = std::uint64_t{cfg.tp} * cfg.pp * cfg.dp;
  if (product != job.ranks) {
    par.fail_here("tp x pp x dp = " + std::to_string(cfg.tp) + " x " + std::to_string(cfg.pp) + " x " +
                  std::to_string(cfg.dp) + " = " + std::to_string(product) + ", but the topology has " +
                  std::to_string(job.ranks) + " hosts (one rank each)");
  }
  if (cfg.dp % cfg.ep != 0) {
    par.fail("ep", std::to_string(cfg.ep) + " does not divide dp = " + std::to_string(cfg.dp) +
                       " (expert parallelism is carved out of data parallelism)");
  }
  par.finish();
  if (cfg.tp > 1 || cfg.pp > 1 || cfg.ep > 1) {
    require_activations(job, "hybrid");
  }
  if (cfg.pp > job.model.layers) {
    job.model_keys.fail("layers", std::to_string(job.model.layers) + " layers cannot fill " +
                                      std::to_string(cfg.pp) + " pipeline stages (parallel.pp)");
  }
  cfg.algorithm = read_algorithm(w, "ring");
  cfg.channels = read_channels(w, spec);
  cfg.micro_batches =
      static_cast<std::uint32_t>(w.optional_integer("micro_batches", 1, 4096).value_or(cfg.micro_batches));
  const std::string schedule = w.choice("schedule", {"1f1b", "gpipe"}, "1f1b");
  cfg.schedule = schedule == "gpipe" ? wl::PipelineSchedule::kGpipe : wl::PipelineSchedule::kOneFOneB;
  cfg.bucket_bytes = read_bucket(w, job.model.parameters * job.model.bytes_per_param, cfg.bucket_bytes);
  cfg.top_k = static_cast<std::uint32_t>(w.optional_integer("top_k", 1, 64).value_or(cfg.top_k));
  cfg.skew = w.optional_number("skew", 0, 10).value_or(cfg.skew);
  cfg.expert_share = w.optional_number("expert_share", 0, 1).value_or(cfg.expert_share);
  cfg.routing_seed = static_cast<std::uint64_t>(w.optional_integer("routing_seed", 0, 1LL << 53).value_or(1));
  if (cfg.ep == 1) {
    for (const char* key : {"top_k", "skew", "expert_share", "routing_seed"}) {
      if (w.has(key)) {
        w.fail(key, "an expert setting without experts: set parallel.ep > 1");
      }
    }
  }
  if (const auto st = w.optional_object("stragglers")) {
    cfg.stragglers.jitter = st->optional_number("jitter", 0, 10).value_or(0);
    cfg.stragglers.slow_fraction = st->optional_number("slow_fraction", 0, 1).value_or(0);
    cfg.stragglers.slow_factor = st->optional_number("slow_factor", 1, 100).value_or(1);
    cfg.stragglers.seed = st->optional_seed("seed").value_or(1);
    st->finish();
  }
  // Work items per micro-batch and stage: about 4 per layer per replica and tensor rank.
  const double layer_items =
      cfg.tp == 1 && cfg.ep == 1 ? 1.0 : 8.0 * job.model.layers / cfg.pp * (cfg.ep + cfg.tp);
  const double per_iteration = static_cast<double>(cfg.dp) / cfg.ep * cfg.pp * cfg.micro_batches * 2 *
                               (layer_items + static_cast<double>(cfg.tp) * cfg.ep);
  if (per_iteration > static_cast<double>(kMaxWorkItems)) {
    w.fail("micro_batches", "about " + std::to_string(static_cast<std::uint64_t>(per_iteration)) +
                                " work items per iteration, more than " + std::to_string(kMaxWorkItems));
  }
  build(w, topo, spec, [cfg, ranks = job.ranks](std::uint32_t iterations) mutable {
    cfg.iterations = iterations;
    return wl::hybrid_workload(cfg, ranks);
  });
}

std::vector<IterationPlan> training_plans(const WorkloadSpec& spec) {
  const wl::Workload& w = spec.training;
  std::vector<IterationPlan> plans(w.iterations);
  std::vector<std::uint32_t> local(w.items.size());
  for (std::size_t g = 0; g < w.items.size(); ++g) {
    const wl::WorkItem& in = w.items[g];
    IterationPlan& plan = plans.at(in.iteration);
    local[g] = static_cast<std::uint32_t>(plan.items.size());
    WorkItem out;
    out.name = in.label;
    if (in.kind == wl::WorkKind::kCompute) {
      out.compute = in.duration;
      out.rank = in.rank == wl::kAllRanks ? WorkItem::kAllRanks : in.rank;
      out.group = in.group;
    } else if (in.kind == wl::WorkKind::kCollective) {
      out.is_collective = true;
      out.collective = in.collective;
      out.group = in.group;
      out.comm = in.comm;
    } else {
      out.is_p2p = true;
      out.src = in.src;
      out.dst = in.dst;
      out.bytes = in.bytes;
    }
    // The driver runs iterations one after another: dependencies on the previous one are implied.
    for (const std::uint32_t a : in.after) {
      if (w.items[a].iteration == in.iteration) {
        out.after.push_back(local[a]);
      }
    }
    plan.items.push_back(std::move(out));
  }
  for (std::size_t k = 0; k < w.slowdown.size() && k < plans.size(); ++k) {
    plans[k].slowdown = w.slowdown[k];
  }
  return plans;
}

}  // namespace gw::kinds
