// α-β predictions (Thakur, Rabenseifner & Gropp 2005; Patarasuk & Yuan 2009; docs/references.md §5),
// p ranks, n = spec.bytes, a·α + b·β with the (a, b) of each algorithm below. The derivations
// for the double binary tree and hierarchical are in docs/collectives.md.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <string>
#include <tuple>
#include <unordered_map>

#include "generators/collectives/schedule_builder.h"
#include "generators/collectives/step_graph.h"

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

namespace {
Duration schedule_time(const CollectiveSpec& spec, const Placement& placement, const LinkModel& links);
Duration folded_time(const CollectiveSpec& spec, const Placement& placement, const LinkModel& links);

// A chunked ring has no closed form here: its pieces overlap one step's latency with the next
// piece's transmission, limited by each rank's port; its own schedule is priced instead.
bool chunked(const CollectiveSpec& spec) {
  return spec.algorithm == Algorithm::kRing && spec.chunk_bytes > 0 && spec.op != Op::kBarrier;
}
}  // namespace

Duration predicted_time(const CollectiveSpec& spec, std::uint32_t ranks, const AlphaBeta& model) {
  if (ranks == 0) {
    detail::fail(spec, "no ranks");
  }
  if (ranks == 1) {
    return Duration{0};
  }
  if (chunked(spec)) {
    Placement one_region;
    one_region.region.assign(ranks, 0);
    return schedule_time(spec, one_region, LinkModel::uniform(1, model));
  }
  return evaluate(cost_of(spec, ranks), model);
}

LinkModel LinkModel::uniform(std::uint32_t regions, const AlphaBeta& model) {
  return LinkModel{regions, std::vector<AlphaBeta>(static_cast<std::size_t>(regions) * regions, model)};
}

LinkModel LinkModel::two_level(std::uint32_t regions, const AlphaBeta& intra, const AlphaBeta& inter) {
  LinkModel links = uniform(regions, inter);
  for (std::uint32_t r = 0; r < regions; ++r) {
    links.pair[static_cast<std::size_t>(r) * regions + r] = intra;
  }
  return links;
}

namespace {

bool same(const AlphaBeta& a, const AlphaBeta& b) {
  return a.alpha == b.alpha && a.beta_ns_per_byte == b.beta_ns_per_byte;
}

// The α-β cost of the schedule itself, each step priced by its path (Hockney's per-message
// α + bytes·β), list-scheduled in order of readiness: a step starts when its `after` steps are
// done and its sender's port, its receiver's port and (between regions) the pair's path are
// free, holds them for bytes·β and is done α + bytes·β after it starts.
// What the α-β walk below prices: steps by number, the ones ready at the start (with when),
// and, once a step is done, the steps it lets go (with when) and the latest the op may end.
using Ready = std::pair<double, std::uint32_t>;
struct StepSource {
  std::uint32_t ranks = 0;
  std::vector<Ready> roots;
  std::function<Step(std::uint32_t)> at;
  std::function<void(std::uint32_t, double, std::vector<Ready>&, double&)> done;
};
Duration walk_time(const StepSource& source, const Placement& placement, const LinkModel& links);

Duration schedule_time(const CollectiveSpec& spec, const Placement& placement, const LinkModel& links) {
  // Walked lazily (step_graph.h): a ring over p ranks holds O(p), not its O(p^2) steps.
  const std::unique_ptr<StepGraph> graph = step_graph(spec, placement);
  // Steps with several waits that have heard from some: (waits heard, latest done).
  std::unordered_map<std::uint32_t, std::pair<std::uint32_t, double>> partial;
  std::vector<std::uint32_t> dependents;
  StepSource source;
  source.ranks = graph->ranks();
  for (const std::uint32_t root : graph->roots()) {
    source.roots.emplace_back(0.0, root);
  }
  source.at = [&graph](std::uint32_t i) { return graph->at(i); };
  source.done = [&](std::uint32_t i, double done, std::vector<Ready>& ready, double& /*end*/) {
    dependents.clear();
    graph->dependents(i, dependents);
    for (const std::uint32_t j : dependents) {
      const std::uint32_t waits = graph->waits(j);
      if (waits <= 1) {
        ready.emplace_back(done, j);
        continue;
      }
      auto it = partial.try_emplace(j, 0, 0.0).first;
      it->second.second = std::max(it->second.second, done);
      if (++it->second.first == waits) {
        ready.emplace_back(it->second.second, j);
        partial.erase(it);
      }
    }
  };
  return walk_time(source, placement, links);
}

// The folded ring (step_graph.h): the hops between regions walked as steps, each chain of hops
// inside a region a delay of hops x (α + bytes·β) of that region.
Duration folded_time(const CollectiveSpec& spec, const Placement& placement, const LinkModel& links) {
  const FoldedRing folded(spec, placement);
  const auto local = [&links](const FoldedRing::Wait& w) {
    const AlphaBeta& m = links.at(w.region, w.region);
    return w.hops *
           (static_cast<double>(m.alpha.count()) + static_cast<double>(w.bytes) * m.beta_ns_per_byte);
  };
  StepSource source;
  source.ranks = folded.ranks();
  for (const std::uint32_t root : folded.roots()) {
    source.roots.emplace_back(local(folded.wait(root)), root);
  }
  source.at = [&folded](std::uint32_t i) { return folded.at(i); };
  source.done = [&](std::uint32_t i, double done, std::vector<Ready>& ready, double& end) {
    end = std::max(end, done + local(folded.tail(i)));
    const std::uint32_t next = folded.next(i);
    if (next != FoldedRing::kNone) {
      ready.emplace_back(done + local(folded.wait(next)), next);
    }
  };
  double runs = 0;
  for (const FoldedRing::Wait& run : folded.local_runs()) {
    runs = std::max(runs, local(run));
  }
  return std::max(Duration{std::llround(runs)}, walk_time(source, placement, links));
}

Duration walk_time(const StepSource& source, const Placement& placement, const LinkModel& links) {
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> queue;
  for (const Ready& r : source.roots) {
    queue.push(r);
  }
  std::vector<Ready> released;
  // Resources: each rank's send port, each rank's receive port, each ordered pair of regions'
  // path. Steps that become ready at the same instant and share one split it equally
  // (processor sharing: each holds it for share × bytes·β, the most it shares any of its
  // resources); steps ready later queue behind them.
  const std::size_t p = source.ranks;
  const std::size_t regions = links.regions;
  std::vector<double> free_at(2 * p + regions * regions, 0);
  std::vector<std::uint32_t> users(free_at.size(), 0);
  double end = 0;
  std::vector<std::uint32_t> batch;
  std::vector<Step> steps;  // the batch's
  while (!queue.empty()) {
    const double at = queue.top().first;
    batch.clear();
    steps.clear();
    while (!queue.empty() && queue.top().first == at) {
      batch.push_back(queue.top().second);
      steps.push_back(source.at(queue.top().second));
      queue.pop();
    }
    auto resources = [&](const Step& step) {
      const std::uint32_t a = placement.region[step.src];
      const std::uint32_t b = placement.region[step.dst];
      const std::size_t path = a != b ? 2 * p + a * regions + b : free_at.size();
      return std::array<std::size_t, 3>{step.src, p + step.dst, path};
    };
    // Steps of one connection (src, dst, channel) go one after another, in schedule order, as
    // a queue pair sends its messages; the sharing is between connections.
    using Connection = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>;
    std::map<Connection, double> connection_free;
    for (const Step& step : steps) {
      if (step.bytes > 0 &&
          connection_free.emplace(Connection{step.src, step.dst, step.channel}, at).second) {
        for (const std::size_t r : resources(step)) {
          if (r < free_at.size()) {
            ++users[r];
          }
        }
      }
    }
    std::vector<std::pair<std::size_t, double>> holds;
    for (std::size_t b = 0; b < batch.size(); ++b) {
      const Step& step = steps[b];
      const AlphaBeta& m = links.at(placement.region[step.src], placement.region[step.dst]);
      const auto connection = connection_free.find(Connection{step.src, step.dst, step.channel});
      double start = connection != connection_free.end() ? connection->second : at;
      std::uint32_t share = 1;
      for (const std::size_t r : resources(step)) {
        if (r < free_at.size()) {
          start = std::max(start, free_at[r]);
          share = std::max(share, users[r]);
        }
      }
      const double hold = static_cast<double>(step.bytes) * m.beta_ns_per_byte * share;
      if (connection != connection_free.end()) {
        connection->second = start + hold;
      }
      for (const std::size_t r : resources(step)) {
        if (r < free_at.size()) {
          holds.emplace_back(r, start + hold);
        }
      }
      const double done = start + static_cast<double>(m.alpha.count()) + hold;
      end = std::max(end, done);
      released.clear();
      source.done(batch[b], done, released, end);
      for (const Ready& r : released) {
        queue.push(r);
      }
    }
    for (const auto& [r, until] : holds) {
      free_at[r] = std::max(free_at[r], until);
      users[r] = 0;
    }
  }
  return Duration{std::llround(end)};
}

}  // namespace

Duration predicted_time(const CollectiveSpec& spec, const Placement& placement, const LinkModel& links,
                        bool fold_regions) {
  const auto p = static_cast<std::uint32_t>(placement.region.size());
  const auto groups = detail::ranks_by_region(placement);
  for (const std::uint32_t r : placement.region) {
    if (r >= links.regions || links.pair.size() != static_cast<std::size_t>(links.regions) * links.regions) {
      detail::fail(spec, "the link model has no α-β for region " + std::to_string(r));
    }
  }
  if (p <= 1) {
    return predicted_time(spec, p, AlphaBeta{});
  }
  if (chunked(spec)) {
    return fold_regions ? folded_time(spec, placement, links) : schedule_time(spec, placement, links);
  }
  if (groups.size() == 1) {
    const std::uint32_t r = placement.region[0];
    if (spec.algorithm == Algorithm::kHierarchical) {
      // One region: the inner ring only (the outer phase has one member).
      CollectiveSpec ring = spec;
      ring.algorithm = Algorithm::kRing;
      return predicted_time(ring, p, links.at(r, r));
    }
    return predicted_time(spec, p, links.at(r, r));
  }
  // The closed form when every pair of the ranks' regions (and each region inside) is alike.
  bool uniform = spec.algorithm != Algorithm::kHierarchical;
  const AlphaBeta& first =
      links.at(groups[0].empty() ? 0 : placement.region[groups[0][0]], placement.region[groups[1][0]]);
  for (std::size_t x = 0; uniform && x < groups.size(); ++x) {
    for (std::size_t y = 0; uniform && y < groups.size(); ++y) {
      const bool used = x != y || groups[x].size() > 1;
      uniform =
          !used || same(links.at(placement.region[groups[x][0]], placement.region[groups[y][0]]), first);
    }
  }
  if (uniform) {
    return predicted_time(spec, p, first);
  }
  if (fold_regions && spec.algorithm == Algorithm::kRing) {
    return folded_time(spec, placement, links);
  }
  return schedule_time(spec, placement, links);
}

Duration predicted_time(const CollectiveSpec& spec, const Placement& placement, const AlphaBeta& intra,
                        const AlphaBeta& inter) {
  std::uint32_t regions = 0;
  for (const std::uint32_t r : placement.region) {
    regions = std::max(regions, r + 1);
  }
  return predicted_time(spec, placement, LinkModel::two_level(regions, intra, inter));
}

}  // namespace gw::coll
