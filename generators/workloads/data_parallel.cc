// DDP and FSDP iteration models (data_parallel.h).
#include "generators/workloads/data_parallel.h"

#include <algorithm>
#include <string>

#include "generators/collectives/collective.h"

namespace gw::wl {
namespace {

// Splits `total` into parts in proportion to `weights` (summing to `weight_sum`), rounding the
// running sum so the parts add up to `total` exactly.
std::vector<Duration> proportional(Duration total, const std::vector<std::uint64_t>& weights) {
  std::uint64_t weight_sum = 0;
  for (std::uint64_t w : weights) {
    weight_sum += w;
  }
  std::vector<Duration> parts;
  std::uint64_t seen = 0;
  Duration before{0};
  for (std::uint64_t w : weights) {
    seen += w;
    const auto upto = Duration{
        static_cast<std::int64_t>(static_cast<long double>(total.count()) * static_cast<long double>(seen) /
                                      static_cast<long double>(weight_sum) +
                                  0.5L)};
    parts.push_back(upto - before);
    before = upto;
  }
  return parts;
}

void check_common(const ModelSpec& model, std::uint32_t ranks, std::uint32_t iterations) {
  if (ranks == 0 || iterations == 0) {
    throw WorkloadError{"a workload needs at least one rank and one iteration"};
  }
  if (model.parameters == 0 || model.bytes_per_param == 0 || model.layers == 0) {
    throw WorkloadError{"the model needs parameters, bytes_per_param and layers > 0"};
  }
}

coll::CollectiveSpec collective(coll::Op op, coll::Algorithm a, std::uint64_t bytes, std::uint32_t channels) {
  coll::CollectiveSpec spec;
  spec.op = op;
  spec.algorithm = a;
  spec.bytes = bytes;
  spec.channels = channels;
  return spec;
}

}  // namespace

std::vector<std::uint64_t> ddp_buckets(std::uint64_t gradient_bytes, std::uint64_t bucket_bytes,
                                       std::uint64_t first_bucket_bytes) {
  if (bucket_bytes == 0) {
    throw WorkloadError{"ddp: bucket_bytes must be > 0"};
  }
  std::vector<std::uint64_t> out;
  std::uint64_t left = gradient_bytes;
  if (first_bucket_bytes > 0 && left > 0) {
    out.push_back(std::min(left, first_bucket_bytes));
    left -= out.back();
  }
  while (left > 0) {
    out.push_back(std::min(left, bucket_bytes));
    left -= out.back();
  }
  return out;
}

std::vector<Duration> ddp_ready_times(const std::vector<std::uint64_t>& buckets, Duration backward) {
  std::vector<Duration> ready;
  Duration t{0};
  for (Duration d : proportional(backward, buckets)) {
    t += d;
    ready.push_back(t);
  }
  return ready;
}

Workload ddp_workload(const DdpConfig& config, std::uint32_t ranks) {
  check_common(config.model, ranks, config.iterations);
  const PhaseTimes t = phase_times(config.model, config.compute);
  const auto buckets = ddp_buckets(config.model.parameters * config.model.bytes_per_param,
                                   config.bucket_bytes, config.first_bucket_bytes);
  const auto shares = proportional(t.backward, buckets);
  WorkloadBuilder b("ddp", ranks);
  for (std::uint32_t k = 0; k < config.iterations; ++k) {
    b.begin_iteration();
    std::uint32_t compute = b.compute("fwd", t.forward, {});
    std::vector<std::uint32_t> comm_before;
    for (std::size_t i = 0; i < buckets.size(); ++i) {
      compute = b.compute("bwd[" + std::to_string(i) + "]", shares[i], {compute});
      std::vector<std::uint32_t> after{compute};
      after.insert(after.end(), comm_before.begin(), comm_before.end());
      comm_before = {b.collective(
          "all_reduce[" + std::to_string(i) + "]",
          collective(coll::Op::kAllReduce, config.algorithm, buckets[i], config.channels), after)};
    }
  }
  return b.take();
}

std::uint64_t diloco_outer_bytes(const DilocoConfig& config) {
  const std::uint64_t bits = config.outer_bits != 0 ? config.outer_bits : 8ull * config.model.bytes_per_param;
  return (config.model.parameters * bits + 7) / 8;
}

Workload diloco_workload(const DilocoConfig& config, std::uint32_t ranks) {
  check_common(config.model, ranks, config.iterations);
  if (config.inner_steps == 0) {
    throw WorkloadError{"inner_steps must be at least 1"};
  }
  const PhaseTimes t = phase_times(config.model, config.compute);
  const auto buckets = ddp_buckets(diloco_outer_bytes(config), config.bucket_bytes, 0);
  WorkloadBuilder b("diloco", ranks);
  for (std::uint32_t k = 0; k < config.iterations; ++k) {
    b.begin_iteration();
    std::uint32_t last = b.compute("bwd", t.backward, {b.compute("fwd", t.forward, {})});
    if ((k + 1) % config.inner_steps != 0) {
      continue;
    }
    for (std::size_t i = 0; i < buckets.size(); ++i) {
      last = b.collective("outer[" + std::to_string(i) + "]",
                          collective(coll::Op::kAllReduce, config.algorithm, buckets[i], config.channels),
                          {last});
    }
  }
  return b.take();
}

std::vector<std::uint64_t> fsdp_layer_bytes(const ModelSpec& model) {
  const std::uint64_t total = model.parameters * model.bytes_per_param;
  std::vector<std::uint64_t> out(model.layers, total / model.layers);
  for (std::uint64_t i = 0; i < total % model.layers; ++i) {
    ++out[i];
  }
  return out;
}

Workload fsdp_workload(const FsdpConfig& config, std::uint32_t ranks) {
  check_common(config.model, ranks, config.iterations);
  const PhaseTimes t = phase_times(config.model, config.compute);
  const auto bytes = fsdp_layer_bytes(config.model);
  const auto fwd = proportional(t.forward, bytes);
  const auto bwd = proportional(t.backward, bytes);
  const std::uint32_t layers = config.model.layers;
  auto spec = [&](coll::Op op, std::uint32_t l) {
    return collective(op, config.algorithm, bytes[l], config.channels);
  };
  WorkloadBuilder b("fsdp", ranks);
  for (std::uint32_t k = 0; k < config.iterations; ++k) {
    b.begin_iteration();
    std::vector<std::uint32_t> ag(layers);
    std::vector<std::uint32_t> compute(layers);
    for (std::uint32_t l = 0; l < layers; ++l) {
      std::vector<std::uint32_t> after;
      if (l >= 1) {
        after.push_back(ag[l - 1]);
      }
      if (l >= 2) {
        after.push_back(compute[l - 2]);
      }
      ag[l] = b.collective("ag_fwd[" + std::to_string(l) + "]", spec(coll::Op::kAllGather, l), after);
      std::vector<std::uint32_t> ready{ag[l]};
      if (l >= 1) {
        ready.push_back(compute[l - 1]);
      }
      compute[l] = b.compute("fwd[" + std::to_string(l) + "]", fwd[l], ready);
    }
    const std::uint32_t last_fwd = compute[layers - 1];
    std::uint32_t previous_ag = last_fwd;
    for (std::uint32_t l = layers; l-- > 0;) {
      std::vector<std::uint32_t> after{previous_ag};
      if (l + 2 < layers) {
        after.push_back(compute[l + 2]);
      }
      ag[l] = b.collective("ag_bwd[" + std::to_string(l) + "]", spec(coll::Op::kAllGather, l), after);
      previous_ag = ag[l];
      std::vector<std::uint32_t> ready{ag[l], l + 1 < layers ? compute[l + 1] : last_fwd};
      compute[l] = b.compute("bwd[" + std::to_string(l) + "]", bwd[l], ready);
      b.collective("rs[" + std::to_string(l) + "]", spec(coll::Op::kReduceScatter, l), {compute[l]});
    }
  }
  return b.take();
}

}  // namespace gw::wl
