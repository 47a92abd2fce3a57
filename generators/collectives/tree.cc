// Trees: NCCL's double binary tree for all-reduce (Sanders, Speck & Träff 2009; NCCL
// src/graph/trees.cc), and the binomial tree for broadcast and reduce. Trees are not pipelined:
// each edge carries its tree's share of a channel's slice as one message.
#include <algorithm>

#include "generators/collectives/schedule_builder.h"

namespace gw::coll::detail {
namespace {

// ncclGetBtree: rank 0 is the root with one child; a rank's parent clears its lowest set bit
// and sets the next one, or only clears it when that leaves the range.
std::int32_t btree_parent(std::uint32_t ranks, std::uint32_t rank) {
  if (rank == 0) {
    return -1;
  }
  const std::uint32_t bit = rank & (~rank + 1);
  std::uint32_t up = (rank ^ bit) | (bit << 1);
  if (up >= ranks) {
    up = rank ^ bit;
  }
  return static_cast<std::int32_t>(up);
}

// Up phase (children to parents, reduce) then down phase (parents to children, copy) over the
// tree given by `parent`, carrying `data`. Nodes are visited deepest first going up and
// shallowest first going down, so every step comes after the steps it waits for.
void tree_all_reduce(ScheduleBuilder& b, const std::vector<std::int32_t>& parent, ByteRange data,
                     std::uint32_t channel) {
  const auto p = static_cast<std::uint32_t>(parent.size());
  std::vector<std::uint32_t> depth(p, 0);
  std::uint32_t root = 0;
  for (std::uint32_t r = 0; r < p; ++r) {
    for (std::int32_t u = parent[r]; u >= 0; u = parent[static_cast<std::uint32_t>(u)]) {
      ++depth[r];
    }
    if (parent[r] < 0) {
      root = r;
    }
  }
  std::vector<std::uint32_t> order(p);
  for (std::uint32_t r = 0; r < p; ++r) {
    order[r] = r;
  }
  std::stable_sort(order.begin(), order.end(), [&](auto x, auto y) { return depth[x] > depth[y]; });
  std::vector<StepIds> from_children(p);
  for (std::uint32_t r : order) {
    if (parent[r] >= 0) {
      const auto up = static_cast<std::uint32_t>(parent[r]);
      from_children[up].push_back(b.send(r, up, data, Combine::kReduce, channel, from_children[r]));
    }
  }
  std::vector<StepIds> from_parent(p);
  from_parent[root] = from_children[root];
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (parent[*it] >= 0) {
      const auto up = static_cast<std::uint32_t>(parent[*it]);
      from_parent[*it] = {b.send(up, *it, data, Combine::kCopy, channel, from_parent[up])};
    }
  }
}

std::uint32_t high_bit(std::uint32_t v) {
  std::uint32_t bit = 1;
  while (bit * 2 <= v) {
    bit *= 2;
  }
  return bit;
}

}  // namespace

std::vector<std::int32_t> btree_parents(std::uint32_t ranks, int tree) {
  std::vector<std::int32_t> parent(ranks);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    if (tree == 0) {
      parent[r] = btree_parent(ranks, r);
    } else if (ranks % 2 == 1) {  // ncclGetDtree: shift by one for an odd count
      const std::int32_t u = btree_parent(ranks, (r + ranks - 1) % ranks);
      parent[r] = u < 0 ? -1 : static_cast<std::int32_t>((static_cast<std::uint32_t>(u) + 1) % ranks);
    } else {  // mirror for an even count
      const std::int32_t u = btree_parent(ranks, ranks - 1 - r);
      parent[r] = u < 0 ? -1 : static_cast<std::int32_t>(ranks - 1 - static_cast<std::uint32_t>(u));
    }
  }
  return parent;
}

Schedule build_double_binary_tree(const CollectiveSpec& spec, const Placement& placement) {
  const auto p = static_cast<std::uint32_t>(placement.region.size());
  const bool barrier = spec.op == Op::kBarrier;
  if (spec.op != Op::kAllReduce && !barrier) {
    fail(spec, "double_binary_tree supports all_reduce and barrier");
  }
  const std::uint64_t bytes = barrier ? 0 : spec.bytes;
  const std::uint32_t channels = barrier ? 1 : spec.channels;
  ScheduleBuilder b(p);
  for (std::uint32_t c = 0; c < channels; ++c) {
    const std::vector<ByteRange> halves = split(channel_slice(bytes, channels, c), 2);
    for (int t = 0; t < 2; ++t) {
      tree_all_reduce(b, btree_parents(p, t), halves[static_cast<std::size_t>(t)], c);
    }
  }
  return b.take();
}

// Binomial tree rooted at `root`, on ranks relative to it (v = r - root mod p): v's parent is v
// minus its highest set bit, its children v + 2^j for every 2^j > v.
//   broadcast: in round k every v < 2^k that holds the data sends it to v + 2^k: a rank sends
//     to its children one after another, nearest (largest subtree) first; ceil(lg p) rounds;
//   reduce: a rank sends its partial sum to its parent once every child's has arrived; the
//     children send at once (their parent takes up to lg p arrivals together), so the chain is
//     the longest path to the root, max popcount(v) <= ceil(lg p) hops.
Schedule build_binomial_tree(const CollectiveSpec& spec, const Placement& placement) {
  const auto p = static_cast<std::uint32_t>(placement.region.size());
  if (spec.op != Op::kBroadcast && spec.op != Op::kReduce) {
    fail(spec, "binomial_tree supports broadcast and reduce");
  }
  auto real = [&](std::uint32_t v) { return (v + spec.root) % p; };
  ScheduleBuilder b(p);
  for (std::uint32_t c = 0; c < spec.channels; ++c) {
    const ByteRange slice = channel_slice(spec.bytes, spec.channels, c);
    std::vector<StepIds> arrived(p);
    if (spec.op == Op::kBroadcast) {
      for (std::uint32_t v = 0; v < p; ++v) {
        StepIds after = arrived[v];
        for (std::uint32_t bit = v == 0 ? 1 : high_bit(v) * 2; v + bit < p; bit *= 2) {
          const std::uint32_t step = b.send(real(v), real(v + bit), slice, Combine::kCopy, c, after);
          arrived[v + bit] = {step};
          after = {step};  // one send per round: the next child after this one
        }
      }
    } else {
      for (std::uint32_t v = p - 1; v >= 1; --v) {
        const std::uint32_t up = v - high_bit(v);
        arrived[up].push_back(b.send(real(v), real(up), slice, Combine::kReduce, c, arrived[v]));
      }
    }
  }
  return b.take();
}

}  // namespace gw::coll::detail
