// Ring (NCCL's ring; Patarasuk & Yuan 2009): the ranks form one ring per channel, ordered by
// region so the ring crosses each region boundary once. Each channel carries its slice of the
// array cut into p blocks; all-reduce = reduce-scatter (p-1 steps) then all-gather (p-1 steps).
#include <algorithm>

#include "generators/collectives/schedule_builder.h"

namespace gw::coll::detail {

std::uint64_t ring_pieces(const CollectiveSpec& spec, std::uint32_t ranks, std::uint32_t channel) {
  const bool barrier = spec.op == Op::kBarrier;
  if (spec.op != Op::kAllReduce && spec.op != Op::kAllGather && spec.op != Op::kReduceScatter && !barrier) {
    fail(spec, "ring supports all_reduce, all_gather, reduce_scatter and barrier");
  }
  const std::uint64_t bytes = barrier ? 0 : spec.bytes;
  const std::uint32_t channels = barrier ? 1 : spec.channels;
  // Block 0 is a largest block (split gives the first parts the extra byte).
  const std::uint64_t largest = block_range(bytes, channels, ranks, channel, 0).bytes;
  const std::uint64_t pieces =
      spec.chunk_bytes == 0 || largest == 0 ? 1 : (largest + spec.chunk_bytes - 1) / spec.chunk_bytes;
  if (pieces > 1'000'000) {
    fail(spec, "chunk_bytes cuts a block into more than 1,000,000 pieces");
  }
  return pieces;
}

Schedule build_ring(const CollectiveSpec& spec, const Placement& placement) {
  const auto p = static_cast<std::uint32_t>(placement.region.size());
  std::vector<std::uint32_t> members;
  for (const auto& group : ranks_by_region(placement)) {
    members.insert(members.end(), group.begin(), group.end());
  }
  const bool barrier = spec.op == Op::kBarrier;  // a zero-byte all-reduce: 2(p-1) token hops
  (void)ring_pieces(spec, p, 0);
  const std::uint64_t bytes = barrier ? 0 : spec.bytes;
  const std::uint32_t channels = barrier ? 1 : spec.channels;
  ScheduleBuilder b(p);
  for (std::uint32_t c = 0; c < channels; ++c) {
    std::vector<ByteRange> blocks(p);
    for (std::uint32_t i = 0; i < p; ++i) {
      blocks[i] = block_range(bytes, channels, p, c, members[i]);
    }
    // Chunked: the ring runs once per piece of every block, the passes independent of each
    // other but for the order of their sends on each connection (posted piece by piece).
    const std::uint64_t pieces = ring_pieces(spec, p, c);
    std::vector<std::vector<ByteRange>> cut(p);
    for (std::uint32_t i = 0; i < p; ++i) {
      cut[i] = split(blocks[i], static_cast<std::uint32_t>(pieces));
    }
    for (std::uint64_t k = 0; k < pieces; ++k) {
      std::vector<ByteRange> piece(p);
      for (std::uint32_t i = 0; i < p; ++i) {
        piece[i] = cut[i][k];
      }
      Frontier f(p);
      if (spec.op != Op::kAllGather) {
        f = ring_reduce_scatter(b, members, piece, c, std::move(f));
      }
      if (spec.op != Op::kReduceScatter) {
        ring_all_gather(b, members, piece, c, std::move(f));
      }
    }
  }
  return b.take();
}

}  // namespace gw::coll::detail
