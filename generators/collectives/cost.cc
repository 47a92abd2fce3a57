// α-β predictions (Thakur, Rabenseifner & Gropp 2005; Patarasuk & Yuan 2009; REFERENCES.md §5),
// p ranks, n = spec.bytes, a·α + b·β with the (a, b) of each algorithm below. The derivations
// for the double binary tree and hierarchical are in docs/collectives.md.
#include <algorithm>
#include <cmath>
#include <string>

#include "generators/collectives/schedule_builder.h"

namespace gw::coll {
namespace {

struct Cost {
  double alphas = 0;  // messages on the critical path
  double bytes = 0;   // bytes through the busiest port on the critical path
};

Duration evaluate(const Cost& cost, const AlphaBeta& model) {
  const double ns =
      cost.alphas * static_cast<double>(model.alpha.count()) + cost.bytes * model.beta_ns_per_byte;
  return Duration{std::llround(ns)};
}

// Largest bytes a rank sends or receives to/from others in an all-to-all.
double all_to_all_volume(const CollectiveSpec& spec, std::uint32_t p) {
  if (spec.send_matrix.empty()) {
    return static_cast<double>(p - 1) / p * static_cast<double>(spec.bytes);
  }
  double most = 0;
  for (std::uint32_t i = 0; i < p; ++i) {
    std::uint64_t out = 0;
    std::uint64_t in = 0;
    for (std::uint32_t j = 0; j < p; ++j) {
      if (j != i) {
        out += spec.send_matrix[i][j];
        in += spec.send_matrix[j][i];
      }
    }
    most = std::max(most, static_cast<double>(std::max(out, in)));
  }
  return most;
}

// Double binary tree: 2D levels (D = the deeper tree's height), each moving half the array per
// tree; a rank with c children over both trees takes c·n/2 bytes through its port per level.
Cost double_binary_tree(double n, std::uint32_t p) {
  std::uint32_t height = 0;
  std::vector<std::uint32_t> children(p, 0);
  for (int t = 0; t < 2; ++t) {
    const auto parent = detail::btree_parents(p, t);
    for (std::uint32_t r = 0; r < p; ++r) {
      std::uint32_t depth = 0;
      for (std::int32_t u = parent[r]; u >= 0; u = parent[static_cast<std::uint32_t>(u)]) {
        ++depth;
      }
      height = std::max(height, depth);
      if (parent[r] >= 0) {
        ++children[static_cast<std::uint32_t>(parent[r])];
      }
    }
  }
  const double c = *std::max_element(children.begin(), children.end());
  return Cost{2.0 * height, 2.0 * height * c * n / 2};
}

Cost cost_of(const CollectiveSpec& spec, std::uint32_t p) {
  const double n = spec.op == Op::kBarrier ? 0 : static_cast<double>(spec.bytes);
  const double q = p;
  const double frac = (q - 1) / q;
  const double lg = detail::log2_ceil(p);
  const bool reduce_scatter_like = spec.op == Op::kAllGather || spec.op == Op::kReduceScatter;
  const bool all_reduce_like = spec.op == Op::kAllReduce || spec.op == Op::kBarrier;
  switch (spec.algorithm) {
    case Algorithm::kRing:
      if (all_reduce_like) {
        return Cost{2 * (q - 1), 2 * frac * n};
      }
      if (reduce_scatter_like) {
        return Cost{q - 1, frac * n};
      }
      break;
    case Algorithm::kHalvingDoubling:
      detail::require_power_of_two(spec, p);
      if (all_reduce_like) {
        return Cost{2 * lg, 2 * frac * n};
      }
      if (reduce_scatter_like) {
        return Cost{lg, frac * n};
      }
      break;
    case Algorithm::kRecursiveDoubling:
      if (spec.op == Op::kBarrier) {
        return Cost{lg, 0};  // dissemination, any p
      }
      detail::require_power_of_two(spec, p);
      if (spec.op == Op::kAllReduce) {
        return Cost{lg, lg * n};
      }
      if (spec.op == Op::kAllGather) {
        return Cost{lg, frac * n};
      }
      break;
    case Algorithm::kDoubleBinaryTree:
      if (all_reduce_like) {
        return double_binary_tree(n, p);
      }
      break;
    case Algorithm::kBinomialTree:
      if (spec.op == Op::kBroadcast || spec.op == Op::kReduce) {
        return Cost{lg, lg * n};
      }
      break;
    case Algorithm::kPairwise:
      if (spec.op == Op::kAllToAll) {
        return Cost{q - 1, all_to_all_volume(spec, p)};
      }
      break;
    case Algorithm::kDirect:
      if (spec.op == Op::kAllToAll) {
        return Cost{1, all_to_all_volume(spec, p)};
      }
      break;
    case Algorithm::kHierarchical:
      detail::fail(spec, "predicted_time needs the placement (regions) for hierarchical");
  }
  detail::fail(spec, "not supported by this algorithm");
}

}  // namespace

Duration predicted_time(const CollectiveSpec& spec, std::uint32_t ranks, const AlphaBeta& model) {
  if (ranks == 0) {
    detail::fail(spec, "no ranks");
  }
  if (ranks == 1) {
    return Duration{0};
  }
  return evaluate(cost_of(spec, ranks), model);
}

Duration predicted_time(const CollectiveSpec& spec, const Placement& placement, const AlphaBeta& intra,
                        const AlphaBeta& inter) {
  const auto p = static_cast<std::uint32_t>(placement.region.size());
  const auto groups = detail::ranks_by_region(placement);
  if (spec.algorithm != Algorithm::kHierarchical) {
    return predicted_time(spec, p, groups.size() > 1 ? inter : intra);
  }
  if (spec.op != Op::kAllReduce && spec.op != Op::kBarrier) {
    detail::fail(spec, "hierarchical supports all_reduce and barrier");
  }
  const double m = static_cast<double>(groups.empty() ? 0 : groups[0].size());
  for (const auto& g : groups) {
    if (static_cast<double>(g.size()) != m) {
      detail::fail(spec, "needs the same number of ranks in every region");
    }
  }
  if (p <= 1) {
    return Duration{0};
  }
  // Inner ring reduce-scatter + all-gather on n, outer ring all-reduce on n/m per shard.
  const double n = spec.op == Op::kBarrier ? 0 : static_cast<double>(spec.bytes);
  const double regions = static_cast<double>(groups.size());
  const Cost inside{2 * (m - 1), 2 * (m - 1) / m * n};
  const Cost across{2 * (regions - 1), 2 * (regions - 1) / regions * n / m};
  return evaluate(inside, intra) + evaluate(across, inter);
}

}  // namespace gw::coll
