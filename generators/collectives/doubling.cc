// Halving-doubling and recursive doubling (Thakur, Rabenseifner & Gropp 2005), power-of-two
// ranks. In round k a rank exchanges with the partner whose rank differs in one bit; its send
// waits for every earlier arrival at it (its partial sum or its blocks are built from all of
// them; the last arrival alone does not imply the earlier ones).
//   reduce-scatter, recursive halving: masks p/2 .. 1, send the half of the held blocks that
//     the partner keeps (the half containing the partner's rank), reduce;
//   all-gather, recursive doubling: masks 1 .. p/2, send the 2^k blocks held so far, copy;
//   all-reduce, Rabenseifner: the two above (2 lg p rounds, 2(p-1)/p of the bytes);
//   all-reduce, recursive doubling: lg p rounds exchanging the whole array, reduce;
//   barrier, dissemination (any p): ceil(lg p) rounds of zero bytes to rank r + 2^k.
#include "generators/collectives/schedule_builder.h"

namespace gw::coll::detail {
namespace {

// The byte range of blocks [first, first + count) of channel c (blocks are contiguous).
ByteRange blocks(const CollectiveSpec& spec, std::uint32_t p, std::uint32_t c, std::uint32_t first,
                 std::uint32_t count) {
  const ByteRange lo = block_range(spec.bytes, spec.channels, p, c, first);
  const ByteRange hi = block_range(spec.bytes, spec.channels, p, c, first + count - 1);
  return ByteRange{lo.offset, hi.offset + hi.bytes - lo.offset};
}

Frontier halving_reduce_scatter(ScheduleBuilder& b, const CollectiveSpec& spec, std::uint32_t p,
                                std::uint32_t c, Frontier f) {
  for (std::uint32_t mask = p / 2; mask >= 1; mask /= 2) {
    Frontier next = f;
    for (std::uint32_t r = 0; r < p; ++r) {
      const std::uint32_t peer = r ^ mask;
      // r holds blocks [r & ~(2mask-1), +2mask); the partner keeps the half containing it.
      const std::uint32_t first = peer & ~(mask - 1);
      next[peer].push_back(b.send(r, peer, blocks(spec, p, c, first, mask), Combine::kReduce, c, f[r]));
    }
    f = std::move(next);
  }
  return f;
}

Frontier doubling_all_gather(ScheduleBuilder& b, const CollectiveSpec& spec, std::uint32_t p, std::uint32_t c,
                             Frontier f) {
  for (std::uint32_t mask = 1; mask < p; mask *= 2) {
    Frontier next = f;
    for (std::uint32_t r = 0; r < p; ++r) {
      const std::uint32_t peer = r ^ mask;
      const std::uint32_t first = r & ~(mask - 1);
      next[peer].push_back(b.send(r, peer, blocks(spec, p, c, first, mask), Combine::kCopy, c, f[r]));
    }
    f = std::move(next);
  }
  return f;
}

Schedule dissemination_barrier(std::uint32_t p) {
  ScheduleBuilder b(p);
  Frontier f(p);
  for (std::uint32_t dist = 1; dist < p; dist *= 2) {
    Frontier next = f;
    for (std::uint32_t r = 0; r < p; ++r) {
      const std::uint32_t to = (r + dist) % p;
      next[to].push_back(b.send(r, to, ByteRange{}, Combine::kCopy, 0, f[r]));
    }
    f = std::move(next);
  }
  return b.take();
}

}  // namespace

Schedule build_halving_doubling(const CollectiveSpec& spec, const Placement& placement) {
  const auto p = static_cast<std::uint32_t>(placement.region.size());
  if (spec.op == Op::kBarrier) {
    CollectiveSpec zero = spec;
    zero.op = Op::kAllReduce;
    zero.bytes = 0;
    zero.channels = 1;
    return build_halving_doubling(zero, placement);
  }
  if (spec.op != Op::kAllReduce && spec.op != Op::kAllGather && spec.op != Op::kReduceScatter) {
    fail(spec, "halving_doubling supports all_reduce, all_gather, reduce_scatter and barrier");
  }
  require_power_of_two(spec, p);
  ScheduleBuilder b(p);
  for (std::uint32_t c = 0; c < spec.channels; ++c) {
    Frontier f(p);
    if (spec.op != Op::kAllGather) {
      f = halving_reduce_scatter(b, spec, p, c, std::move(f));
    }
    if (spec.op != Op::kReduceScatter) {
      doubling_all_gather(b, spec, p, c, std::move(f));
    }
  }
  return b.take();
}

Schedule build_recursive_doubling(const CollectiveSpec& spec, const Placement& placement) {
  const auto p = static_cast<std::uint32_t>(placement.region.size());
  if (spec.op == Op::kBarrier) {
    return dissemination_barrier(p);
  }
  if (spec.op != Op::kAllReduce && spec.op != Op::kAllGather) {
    fail(spec, "recursive_doubling supports all_reduce, all_gather and barrier");
  }
  require_power_of_two(spec, p);
  ScheduleBuilder b(p);
  for (std::uint32_t c = 0; c < spec.channels; ++c) {
    if (spec.op == Op::kAllGather) {
      doubling_all_gather(b, spec, p, c, Frontier(p));
      continue;
    }
    const ByteRange slice = channel_slice(spec.bytes, spec.channels, c);
    Frontier f(p);
    for (std::uint32_t mask = 1; mask < p; mask *= 2) {
      Frontier next = f;
      for (std::uint32_t r = 0; r < p; ++r) {
        next[r ^ mask].push_back(b.send(r, r ^ mask, slice, Combine::kReduce, c, f[r]));
      }
      f = std::move(next);
    }
  }
  return b.take();
}

}  // namespace gw::coll::detail
