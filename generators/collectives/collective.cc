// Names, layout, validation and the algorithm registry (collective.h).
#include "generators/collectives/collective.h"

#include <array>
#include <map>
#include <string>

#include "generators/collectives/schedule_builder.h"

namespace gw::coll {
namespace {

using Builder = Schedule (*)(const CollectiveSpec&, const Placement&);

struct AlgorithmEntry {
  Algorithm algorithm;
  std::string_view name;
  Builder build;
};

// One line per algorithm.
constexpr std::array kAlgorithms{
    AlgorithmEntry{Algorithm::kRing, "ring", detail::build_ring},
    AlgorithmEntry{Algorithm::kHalvingDoubling, "halving_doubling", detail::build_halving_doubling},
    AlgorithmEntry{Algorithm::kRecursiveDoubling, "recursive_doubling", detail::build_recursive_doubling},
    AlgorithmEntry{Algorithm::kDoubleBinaryTree, "double_binary_tree", detail::build_double_binary_tree},
    AlgorithmEntry{Algorithm::kBinomialTree, "binomial_tree", detail::build_binomial_tree},
    AlgorithmEntry{Algorithm::kPairwise, "pairwise", detail::build_pairwise},
    AlgorithmEntry{Algorithm::kDirect, "direct", detail::build_direct},
    AlgorithmEntry{Algorithm::kHierarchical, "hierarchical", detail::build_hierarchical},
};

struct OpEntry {
  Op op;
  std::string_view name;
};
constexpr std::array kOps{
    OpEntry{Op::kAllReduce, "all_reduce"},
    OpEntry{Op::kAllGather, "all_gather"},
    OpEntry{Op::kReduceScatter, "reduce_scatter"},
    OpEntry{Op::kBroadcast, "broadcast"},
    OpEntry{Op::kReduce, "reduce"},
    OpEntry{Op::kAllToAll, "all_to_all"},
    OpEntry{Op::kBarrier, "barrier"},
};

const AlgorithmEntry& entry(Algorithm a) {
  for (const AlgorithmEntry& e : kAlgorithms) {
    if (e.algorithm == a) {
      return e;
    }
  }
  throw CollectiveError{"unknown collective algorithm"};
}

}  // namespace

std::string_view op_name(Op op) {
  for (const OpEntry& e : kOps) {
    if (e.op == op) {
      return e.name;
    }
  }
  return "unknown";
}

std::string_view algorithm_name(Algorithm a) {
  for (const AlgorithmEntry& e : kAlgorithms) {
    if (e.algorithm == a) {
      return e.name;
    }
  }
  return "unknown";
}

bool parse_op(std::string_view name, Op& out) {
  for (const OpEntry& e : kOps) {
    if (e.name == name) {
      out = e.op;
      return true;
    }
  }
  return false;
}

bool parse_algorithm(std::string_view name, Algorithm& out) {
  for (const AlgorithmEntry& e : kAlgorithms) {
    if (e.name == name) {
      out = e.algorithm;
      return true;
    }
  }
  return false;
}

ByteRange channel_slice(std::uint64_t bytes, std::uint32_t channels, std::uint32_t channel) {
  return detail::split(ByteRange{0, bytes}, channels)[channel];
}

ByteRange block_range(std::uint64_t bytes, std::uint32_t channels, std::uint32_t ranks, std::uint32_t channel,
                      std::uint32_t block) {
  return detail::split(channel_slice(bytes, channels, channel), ranks)[block];
}

namespace detail {

void check_spec(const CollectiveSpec& spec, std::uint32_t ranks) {
  if (ranks == 0) {
    detail::fail(spec, "the placement has no ranks");
  }
  if (spec.channels == 0) {
    detail::fail(spec, "channels must be at least 1");
  }
  if ((spec.op == Op::kBroadcast || spec.op == Op::kReduce) && spec.root >= ranks) {
    detail::fail(
        spec, "root " + std::to_string(spec.root) + " is not a rank (" + std::to_string(ranks) + " ranks)");
  }
  if (!spec.send_matrix.empty()) {
    if (spec.op != Op::kAllToAll) {
      detail::fail(spec, "send_matrix is only for all_to_all");
    }
    bool square = spec.send_matrix.size() == ranks;
    for (const auto& row : spec.send_matrix) {
      square = square && row.size() == ranks;
    }
    if (!square) {
      detail::fail(spec, "send_matrix must be " + std::to_string(ranks) + " x " + std::to_string(ranks));
    }
  }
  if (spec.chunk_bytes > 0 && spec.algorithm != Algorithm::kRing) {
    detail::fail(spec, "chunk_bytes: only the ring is chunked");
  }
}

}  // namespace detail

Schedule build_schedule(const CollectiveSpec& spec, const Placement& placement) {
  const auto ranks = static_cast<std::uint32_t>(placement.region.size());
  detail::check_spec(spec, ranks);
  if (ranks == 1) {
    Schedule nothing;
    nothing.ranks = 1;
    return nothing;
  }
  return entry(spec.algorithm).build(spec, placement);
}

double busbw_factor(Op op, std::uint32_t ranks) {
  if (ranks == 0) {
    return 0;
  }
  const double n = ranks;
  switch (op) {
    case Op::kAllReduce:
      return 2 * (n - 1) / n;
    case Op::kAllGather:
    case Op::kReduceScatter:
    case Op::kAllToAll:
      return (n - 1) / n;
    case Op::kBroadcast:
    case Op::kReduce:
      return 1;
    case Op::kBarrier:
      return 0;  // moves no payload: report latency only
  }
  return 0;
}

namespace detail {

std::uint32_t ScheduleBuilder::send(std::uint32_t src, std::uint32_t dst, ByteRange data, Combine combine,
                                    std::uint32_t channel, StepIds after) {
  Step s;
  s.src = src;
  s.dst = dst;
  s.bytes = data.bytes;
  s.offset = data.offset;
  s.combine = combine;
  s.channel = channel;
  s.after = std::move(after);
  schedule_.steps.push_back(std::move(s));
  return static_cast<std::uint32_t>(schedule_.steps.size() - 1);
}

Frontier ring_reduce_scatter(ScheduleBuilder& b, const std::vector<std::uint32_t>& members,
                             const std::vector<ByteRange>& blocks, std::uint32_t channel, Frontier entry) {
  const auto q = static_cast<std::uint32_t>(members.size());
  Frontier prev(q);
  for (std::uint32_t s = 0; s + 1 < q; ++s) {
    Frontier next(q);
    for (std::uint32_t i = 0; i < q; ++i) {
      const std::uint32_t to = (i + 1) % q;
      const std::uint32_t block = (i + 2 * q - s - 1) % q;
      // Waits for the partial sum arriving from i-1 and for i's own input (entry[i]).
      StepIds after = prev[i];
      after.insert(after.end(), entry[i].begin(), entry[i].end());
      next[to] = {
          b.send(members[i], members[to], blocks[block], Combine::kReduce, channel, std::move(after))};
    }
    prev = std::move(next);
  }
  // The reduced block needs i's own input too: the last arrival does not imply entry[i].
  for (std::uint32_t i = 0; i < q; ++i) {
    entry[i].insert(entry[i].end(), prev[i].begin(), prev[i].end());
  }
  return entry;
}

Frontier ring_all_gather(ScheduleBuilder& b, const std::vector<std::uint32_t>& members,
                         const std::vector<ByteRange>& blocks, std::uint32_t channel, Frontier entry) {
  const auto q = static_cast<std::uint32_t>(members.size());
  Frontier prev = entry;
  Frontier done = std::move(entry);
  for (std::uint32_t s = 0; s + 1 < q; ++s) {
    Frontier next(q);
    for (std::uint32_t i = 0; i < q; ++i) {
      const std::uint32_t to = (i + 1) % q;
      const std::uint32_t block = (i + q - s) % q;
      // Forwards the block that just arrived from i-1 (or, first, i's own block).
      next[to] = {b.send(members[i], members[to], blocks[block], Combine::kCopy, channel, prev[i])};
      done[to].push_back(next[to].front());
    }
    prev = std::move(next);
  }
  return done;
}

std::vector<ByteRange> split(ByteRange range, std::uint32_t parts) {
  std::vector<ByteRange> out(parts);
  const std::uint64_t base = range.bytes / parts;
  const std::uint64_t extra = range.bytes % parts;
  std::uint64_t offset = range.offset;
  for (std::uint32_t i = 0; i < parts; ++i) {
    out[i] = ByteRange{offset, base + (i < extra ? 1 : 0)};
    offset += out[i].bytes;
  }
  return out;
}

void fail(const CollectiveSpec& spec, std::string_view reason) {
  throw CollectiveError{std::string(op_name(spec.op)) + " with " +
                        std::string(algorithm_name(spec.algorithm)) + ": " + std::string(reason)};
}

void require_power_of_two(const CollectiveSpec& spec, std::uint32_t ranks) {
  if ((ranks & (ranks - 1)) != 0) {
    fail(spec, "needs a power-of-two number of ranks, got " + std::to_string(ranks) +
                   " (use ring or double_binary_tree)");
  }
}

std::uint32_t log2_ceil(std::uint32_t n) {
  std::uint32_t k = 0;
  while ((std::uint64_t{1} << k) < n) {
    ++k;
  }
  return k;
}

std::vector<std::vector<std::uint32_t>> ranks_by_region(const Placement& placement) {
  std::vector<std::vector<std::uint32_t>> groups;
  std::map<std::uint32_t, std::size_t> index;
  for (std::uint32_t r = 0; r < placement.region.size(); ++r) {
    auto [it, fresh] = index.try_emplace(placement.region[r], groups.size());
    if (fresh) {
      groups.emplace_back();
    }
    groups[it->second].push_back(r);
  }
  return groups;
}

}  // namespace detail
}  // namespace gw::coll
