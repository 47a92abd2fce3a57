// Hybrid-parallel workload (hybrid.h).
#include "generators/workloads/hybrid.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "core/rng.h"
#include "generators/workloads/moe.h"

namespace gw::wl {
namespace {

using Items = std::vector<std::uint32_t>;

std::uint32_t size_of(const HybridConfig& c, ParallelDim d) {
  return d == ParallelDim::kTp ? c.tp : d == ParallelDim::kPp ? c.pp : c.dp;
}

// `total` cut into `parts`, part i one larger for the first total % parts.
std::uint64_t share(std::uint64_t total, std::uint64_t parts, std::uint64_t i) {
  return total / parts + (i < total % parts ? 1 : 0);
}

void append(Items& to, const Items& from) {
  to.insert(to.end(), from.begin(), from.end());
}

std::string tag(std::uint32_t b, std::uint32_t s, std::uint32_t m) {
  return "[" + std::to_string(b) + "][" + std::to_string(s) + "][" + std::to_string(m) + "]";
}

void validate(const HybridConfig& c, std::uint32_t ranks) {
  if (c.tp == 0 || c.pp == 0 || c.dp == 0 || c.ep == 0 || c.micro_batches == 0 || c.iterations == 0) {
    throw WorkloadError{"hybrid: tp, pp, dp, ep, micro_batches and iterations must be > 0"};
  }
  if (std::uint64_t{c.tp} * c.pp * c.dp != ranks) {
    throw WorkloadError{"hybrid: tp x pp x dp = " + std::to_string(std::uint64_t{c.tp} * c.pp * c.dp) +
                        " ranks, but the topology has " + std::to_string(ranks) + " hosts"};
  }
  if (c.dp % c.ep != 0) {
    throw WorkloadError{"hybrid: ep (" + std::to_string(c.ep) + ") must divide dp (" + std::to_string(c.dp) +
                        "): expert parallelism is carved out of data parallelism"};
  }
  if (c.model.layers < c.pp) {
    throw WorkloadError{"hybrid: " + std::to_string(c.model.layers) + " layers cannot fill " +
                        std::to_string(c.pp) + " pipeline stages"};
  }
  const bool talks = c.tp > 1 || c.pp > 1 || c.ep > 1;
  if (talks && (c.model.hidden == 0 || c.model.tokens_per_iteration == 0)) {
    throw WorkloadError{
        "hybrid: tensor, pipeline and expert parallelism size their traffic from tokens_per_iteration x "
        "hidden "
        "x bytes_per_activation: both are needed"};
  }
  std::vector<ParallelDim> dims(c.order.begin(), c.order.end());
  std::sort(dims.begin(), dims.end());
  if (std::adjacent_find(dims.begin(), dims.end()) != dims.end()) {
    throw WorkloadError{"hybrid: order must name tp, pp and dp once each"};
  }
  if (c.channels == 0 || c.bucket_bytes == 0) {
    throw WorkloadError{"hybrid: channels and bucket must be > 0"};
  }
}

// Builds one iteration's items: the pipelines of every EP block, then the gradient sync.
class IterationBuilder {
 public:
  IterationBuilder(const HybridConfig& c, WorkloadBuilder& b) : c_(c), b_(b) {
    const PhaseTimes t = phase_times(c.model, c.compute);
    const std::uint64_t per_layer = std::uint64_t{c.tp} * c.model.layers * c.micro_batches;
    forward_layer_ = t.forward / static_cast<std::int64_t>(per_layer);
    backward_layer_ = t.backward / static_cast<std::int64_t>(per_layer);
    mlp_share_ = c.ep > 1 ? c.expert_share : 0.5;
    blocks_ = c.dp / c.ep;
    first_layer_.resize(c.pp + 1, 0);
    for (std::uint32_t s = 0; s < c.pp; ++s) {
      first_layer_[s + 1] = first_layer_[s] + static_cast<std::uint32_t>(share(c.model.layers, c.pp, s));
    }
    // Communicators: one per TP group (d, s), DP group (s, t), EP group (block, s, t) and
    // expert-DP group (s, t, d mod ep); 0 stays the world's (point-to-point transfers).
    tp_base_ = 1;
    dp_base_ = tp_base_ + c.dp * c.pp;
    ep_base_ = dp_base_ + c.pp * c.tp;
    edp_base_ = ep_base_ + blocks_ * c.pp * c.tp;
  }

  void build() {
    stage_end_.assign(c_.pp, {});
    for (std::uint32_t block = 0; block < blocks_; ++block) {
      pipeline(block);
    }
    gradient_sync();
  }

 private:
  std::uint32_t rank(std::uint32_t d, std::uint32_t s, std::uint32_t t) const {
    return hybrid_rank(c_, d, s, t);
  }
  std::uint32_t layers(std::uint32_t s) const { return first_layer_[s + 1] - first_layer_[s]; }
  std::uint64_t micro_tokens(std::uint32_t m) const {
    return share(c_.model.tokens_per_iteration, c_.micro_batches, m);
  }
  std::uint64_t activation_bytes(std::uint32_t m) const {
    return micro_tokens(m) * c_.model.hidden * c_.model.bytes_per_activation;
  }
  Items stage_ranks(std::uint32_t block, std::uint32_t s) const {
    Items r;
    for (std::uint32_t d = block * c_.ep; d < (block + 1) * c_.ep; ++d) {
      for (std::uint32_t t = 0; t < c_.tp; ++t) {
        r.push_back(rank(d, s, t));
      }
    }
    std::sort(r.begin(), r.end());
    return r;
  }
  coll::CollectiveSpec all_reduce(std::uint64_t bytes) const {
    coll::CollectiveSpec spec;
    spec.op = coll::Op::kAllReduce;
    spec.algorithm = c_.algorithm;
    spec.bytes = bytes;
    spec.channels = c_.channels;
    return spec;
  }

  // One TP all-reduce of a micro-batch's activations per replica of the block.
  Items tp_all_reduce(const std::string& label, std::uint32_t block, std::uint32_t s, std::uint32_t m,
                      const Items& after) {
    if (c_.tp == 1) {
      return after;
    }
    Items out;
    for (std::uint32_t d = block * c_.ep; d < (block + 1) * c_.ep; ++d) {
      Items group;
      for (std::uint32_t t = 0; t < c_.tp; ++t) {
        group.push_back(rank(d, s, t));
      }
      out.push_back(
          b_.collective_on(label, all_reduce(activation_bytes(m)), group, tp_base_ + d * c_.pp + s, after));
    }
    return out;
  }

  // One all-to-all per tensor rank over the block's EP group: tensor rank t of each replica
  // sends its 1/tp of the micro-batch's tokens (`transpose`: the way back).
  Items all_to_all(const std::string& label, std::uint32_t block, std::uint32_t s, std::uint32_t m,
                   std::uint32_t layer, bool transpose, const Items& after) {
    Items out;
    for (std::uint32_t t = 0; t < c_.tp; ++t) {
      Items group;
      for (std::uint32_t d = block * c_.ep; d < (block + 1) * c_.ep; ++d) {
        group.push_back(rank(d, s, t));
      }
      coll::CollectiveSpec spec;
      spec.op = coll::Op::kAllToAll;
      spec.algorithm = coll::Algorithm::kPairwise;
      spec.channels = 1;
      spec.send_matrix = moe_dispatch_matrix(c_.ep, share(micro_tokens(m), c_.tp, t), c_.top_k,
                                             c_.model.hidden * c_.model.bytes_per_activation, c_.skew,
                                             c_.routing_seed, layer);
      if (transpose) {
        for (std::uint32_t i = 0; i < c_.ep; ++i) {
          for (std::uint32_t j = i + 1; j < c_.ep; ++j) {
            std::swap(spec.send_matrix[i][j], spec.send_matrix[j][i]);
          }
        }
      }
      std::uint64_t total = 0;
      for (const auto& row : spec.send_matrix) {
        total = std::accumulate(row.begin(), row.end(), total);
      }
      spec.bytes = total / c_.ep;
      out.push_back(
          b_.collective_on(label, std::move(spec), group, ep_base_ + (block * c_.pp + s) * c_.tp + t, after));
    }
    return out;
  }

  // The MLP half of a layer, forward or backward.
  Items mlp(const std::string& n, std::uint32_t block, std::uint32_t s, std::uint32_t m, std::uint32_t layer,
            bool forward, Duration d, const Items& after) {
    const Items ranks = stage_ranks(block, s);
    if (c_.ep == 1) {
      return {b_.compute_on((forward ? "mlp" : "mlp_bwd") + n, d, ranks, after)};
    }
    Items cur = all_to_all((forward ? "dispatch" : "combine_bwd") + n, block, s, m, layer, !forward, after);
    cur = {b_.compute_on((forward ? "experts" : "experts_bwd") + n, d, ranks, cur)};
    return all_to_all((forward ? "combine" : "dispatch_bwd") + n, block, s, m, layer, forward, cur);
  }

  // Micro-batch m's forward or backward on stage s of the block, after `after`.
  Items stage_op(std::uint32_t block, std::uint32_t s, std::uint32_t m, bool forward, const Items& after) {
    const Duration layer = forward ? forward_layer_ : backward_layer_;
    const Items ranks = stage_ranks(block, s);
    const std::string n = tag(block, s, m);
    if (c_.tp == 1 && c_.ep == 1) {
      return {b_.compute_on((forward ? "F" : "B") + n, layer * layers(s), ranks, after)};
    }
    const auto attn = std::chrono::duration_cast<Duration>(layer * (1 - mlp_share_));
    const Duration mlp_time = layer - attn;
    Items cur = after;
    for (std::uint32_t i = 0; i < layers(s); ++i) {
      const std::uint32_t l = first_layer_[s] + (forward ? i : layers(s) - 1 - i);
      const std::string nl = n + " l" + std::to_string(l);
      if (forward) {
        cur = {b_.compute_on("attn" + nl, attn, ranks, cur)};
        cur = tp_all_reduce("tp_ar" + nl, block, s, m, cur);
        cur = mlp(nl, block, s, m, l, true, mlp_time, cur);
        cur = tp_all_reduce("tp_ar2" + nl, block, s, m, cur);
      } else {
        cur = mlp(nl, block, s, m, l, false, mlp_time, cur);
        cur = tp_all_reduce("tp_ar_bwd" + nl, block, s, m, cur);
        cur = {b_.compute_on("attn_bwd" + nl, attn, ranks, cur)};
        cur = tp_all_reduce("tp_ar2_bwd" + nl, block, s, m, cur);
      }
    }
    return cur;
  }

  // Activations (forward) or their gradients to the neighbouring stage: one transfer per
  // tensor rank of each replica.
  Items send(std::uint32_t block, std::uint32_t s, std::uint32_t m, bool forward, const Items& after) {
    Items out;
    const std::uint32_t to = forward ? s + 1 : s - 1;
    const std::string n = (forward ? "act" : "grad") + tag(block, s, m);
    for (std::uint32_t d = block * c_.ep; d < (block + 1) * c_.ep; ++d) {
      for (std::uint32_t t = 0; t < c_.tp; ++t) {
        out.push_back(b_.p2p(n, rank(d, s, t), rank(d, to, t), share(activation_bytes(m), c_.tp, t), after));
      }
    }
    return out;
  }

  // The block's pipeline, emitted stage by stage whenever an op's input exists (topological).
  void pipeline(std::uint32_t block) {
    const std::uint32_t pp = c_.pp;
    const std::uint32_t mb = c_.micro_batches;
    std::vector<std::vector<Items>> act(pp, std::vector<Items>(mb));
    auto grad = act;
    auto fwd = act;
    std::vector<bool> sent_act(std::size_t{pp} * mb, false);
    std::vector<bool> sent_grad(std::size_t{pp} * mb, false);
    std::vector<std::vector<PipelineOp>> order(pp);
    std::vector<std::size_t> next(pp, 0);
    std::vector<Items> tail(pp);
    std::size_t left = 0;
    for (std::uint32_t s = 0; s < pp; ++s) {
      order[s] = pipeline_stage_order(c_.schedule, pp, s, mb);
      left += order[s].size();
    }
    while (left > 0) {
      bool progress = false;
      for (std::uint32_t s = 0; s < pp; ++s) {
        while (next[s] < order[s].size()) {
          const PipelineOp op = order[s][next[s]];
          Items after = tail[s];
          if (op.forward && s > 0) {
            if (!sent_act[(s - 1) * mb + op.micro]) {
              break;
            }
            append(after, act[s - 1][op.micro]);
          } else if (!op.forward && s + 1 < pp) {
            if (!sent_grad[(s + 1) * mb + op.micro]) {
              break;
            }
            append(after, grad[s + 1][op.micro]);
          } else if (!op.forward) {
            append(after, fwd[s][op.micro]);
          }
          std::sort(after.begin(), after.end());
          after.erase(std::unique(after.begin(), after.end()), after.end());
          tail[s] = stage_op(block, s, op.micro, op.forward, after);
          if (op.forward) {
            fwd[s][op.micro] = tail[s];
            if (s + 1 < pp) {
              act[s][op.micro] = send(block, s, op.micro, true, tail[s]);
              sent_act[s * mb + op.micro] = true;
            }
          } else if (s > 0) {
            grad[s][op.micro] = send(block, s, op.micro, false, tail[s]);
            sent_grad[s * mb + op.micro] = true;
          }
          ++next[s];
          --left;
          progress = true;
        }
      }
      if (!progress) {
        throw WorkloadError{"hybrid: pipeline schedule deadlocks"};  // a bug in the stage order
      }
    }
    for (std::uint32_t s = 0; s < pp; ++s) {
      append(stage_end_[s], tail[s]);
    }
  }

  // `bytes` all-reduced over `group` in buckets, one after another, after `after`.
  void buckets(const std::string& label, std::uint64_t bytes, const Items& group, std::uint32_t comm,
               const Items& after) {
    const std::uint64_t n = (bytes + c_.bucket_bytes - 1) / c_.bucket_bytes;
    Items cur = after;
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t size = std::min(c_.bucket_bytes, bytes - i * c_.bucket_bytes);
      cur = {b_.collective_on(label + " bucket " + std::to_string(i), all_reduce(size), group, comm, cur)};
    }
  }

  // Each stage's gradients, once every replica has drained that stage: each tensor rank's
  // shard over its DP group (the dense weights) and, with experts, each rank's experts over
  // the replicas holding the same experts.
  void gradient_sync() {
    for (std::uint32_t s = 0; s < c_.pp; ++s) {
      const double shard = static_cast<double>(c_.model.parameters) * layers(s) / c_.model.layers *
                           c_.model.bytes_per_param / c_.tp;
      const double dense_share = c_.ep > 1 ? 1 - c_.expert_share : 1;
      const auto dense = static_cast<std::uint64_t>(std::llround(shard * dense_share));
      const auto expert = static_cast<std::uint64_t>(std::llround(shard * (1 - dense_share) / c_.ep));
      Items after = stage_end_[s];
      std::sort(after.begin(), after.end());
      for (std::uint32_t t = 0; t < c_.tp; ++t) {
        const std::string n = "[" + std::to_string(s) + "][" + std::to_string(t) + "]";
        if (c_.dp > 1 && dense > 0) {
          Items group;
          for (std::uint32_t d = 0; d < c_.dp; ++d) {
            group.push_back(rank(d, s, t));
          }
          buckets("dp_ar" + n, dense, group, dp_base_ + s * c_.tp + t, after);
        }
        if (blocks_ > 1 && expert > 0) {
          for (std::uint32_t r = 0; r < c_.ep; ++r) {
            Items group;
            for (std::uint32_t d = r; d < c_.dp; d += c_.ep) {
              group.push_back(rank(d, s, t));
            }
            buckets("edp_ar" + n + "[" + std::to_string(r) + "]", expert, group,
                    edp_base_ + (s * c_.tp + t) * c_.ep + r, after);
          }
        }
      }
    }
  }

  const HybridConfig& c_;
  WorkloadBuilder& b_;
  Duration forward_layer_{0};
  Duration backward_layer_{0};
  double mlp_share_ = 0.5;
  std::uint32_t blocks_ = 1;
  std::vector<std::uint32_t> first_layer_;
  std::uint32_t tp_base_ = 0;
  std::uint32_t dp_base_ = 0;
  std::uint32_t ep_base_ = 0;
  std::uint32_t edp_base_ = 0;
  std::vector<Items> stage_end_;  // per stage: the last items of its last op, every block
};

}  // namespace

std::uint32_t hybrid_rank(const HybridConfig& config, std::uint32_t d, std::uint32_t s, std::uint32_t t) {
  std::uint32_t r = 0;
  std::uint32_t stride = 1;
  for (const ParallelDim dim : config.order) {
    const std::uint32_t coord = dim == ParallelDim::kTp ? t : dim == ParallelDim::kPp ? s : d;
    r += coord * stride;
    stride *= size_of(config, dim);
  }
  return r;
}

std::vector<std::vector<double>> straggler_slowdown(const StragglerSpec& spec, std::uint32_t ranks,
                                                    std::uint32_t iterations) {
  if (spec.jitter <= 0 && (spec.slow_fraction <= 0 || spec.slow_factor == 1)) {
    return {};
  }
  Rng pick(spec.seed, "stragglers.slow");
  std::vector<std::uint32_t> order(ranks);
  std::iota(order.begin(), order.end(), 0u);
  const auto slow = static_cast<std::uint32_t>(std::llround(spec.slow_fraction * ranks));
  std::vector<double> base(ranks, 1.0);
  for (std::uint32_t i = 0; i < slow && i < ranks; ++i) {  // partial Fisher-Yates
    std::swap(order[i], order[i + pick.below(ranks - i)]);
    base[order[i]] = spec.slow_factor;
  }
  // Log-normal with mean 1 and coefficient of variation `jitter`: sigma^2 = ln(1 + cv^2).
  const double sigma = std::sqrt(std::log1p(spec.jitter * spec.jitter));
  Rng draw(spec.seed, "stragglers.jitter");
  std::vector<std::vector<double>> out(iterations, std::vector<double>(ranks));
  for (auto& iteration : out) {
    for (std::uint32_t r = 0; r < ranks; ++r) {
      const double z = spec.jitter > 0 ? draw.normal() : 0;
      iteration[r] = base[r] * std::exp(sigma * z - sigma * sigma / 2);
    }
  }
  return out;
}

Workload hybrid_workload(const HybridConfig& config, std::uint32_t ranks) {
  validate(config, ranks);
  WorkloadBuilder b("hybrid", ranks);
  for (std::uint32_t k = 0; k < config.iterations; ++k) {
    b.begin_iteration();
    IterationBuilder(config, b).build();
  }
  b.set_slowdown(straggler_slowdown(config.stragglers, ranks, config.iterations));
  return b.take();
}

}  // namespace gw::wl
