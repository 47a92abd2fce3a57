// Hierarchical all-reduce over regions (NCCL's intra-node then inter-node; Placement.region):
// with R regions of m ranks each, per channel slice
//   1. inside every region, ring reduce-scatter: the k-th rank of the region holds block k of
//      the slice reduced over its region (m-1 steps);
//   2. across regions, the k-th ranks of all regions (the per-shard peers) ring all-reduce
//      block k (2(R-1) steps, 1/m of the bytes each crossing the WAN);
//   3. inside every region, ring all-gather (m-1 steps).
// Regions must hold the same number of ranks (the per-shard peers must pair up).
#include <string>

#include "generators/collectives/schedule_builder.h"

namespace gw::coll::detail {

Schedule build_hierarchical(const CollectiveSpec& spec, const Placement& placement) {
  const auto p = static_cast<std::uint32_t>(placement.region.size());
  const bool barrier = spec.op == Op::kBarrier;
  if (spec.op != Op::kAllReduce && !barrier) {
    fail(spec, "hierarchical supports all_reduce and barrier");
  }
  const auto groups = ranks_by_region(placement);
  const auto regions = static_cast<std::uint32_t>(groups.size());
  const auto m = static_cast<std::uint32_t>(groups[0].size());
  for (const auto& g : groups) {
    if (g.size() != m) {
      fail(spec, "needs the same number of ranks in every region, got " + std::to_string(groups[0].size()) +
                     " and " + std::to_string(g.size()));
    }
  }
  const std::uint64_t bytes = barrier ? 0 : spec.bytes;
  const std::uint32_t channels = barrier ? 1 : spec.channels;
  ScheduleBuilder b(p);
  for (std::uint32_t c = 0; c < channels; ++c) {
    const std::vector<ByteRange> blocks = split(channel_slice(bytes, channels, c), m);
    std::vector<Frontier> inside(regions, Frontier(m));
    for (std::uint32_t g = 0; g < regions; ++g) {
      inside[g] = ring_reduce_scatter(b, groups[g], blocks, c, Frontier(m));
    }
    for (std::uint32_t k = 0; k < m; ++k) {
      std::vector<std::uint32_t> peers(regions);
      Frontier entry(regions);
      for (std::uint32_t g = 0; g < regions; ++g) {
        peers[g] = groups[g][k];
        entry[g] = inside[g][k];
      }
      const std::vector<ByteRange> shards = split(blocks[k], regions);
      Frontier out = ring_all_gather(b, peers, shards, c, ring_reduce_scatter(b, peers, shards, c, entry));
      for (std::uint32_t g = 0; g < regions; ++g) {
        inside[g][k] = out[g];
      }
    }
    for (std::uint32_t g = 0; g < regions; ++g) {
      ring_all_gather(b, groups[g], blocks, c, inside[g]);
    }
  }
  return b.take();
}

}  // namespace gw::coll::detail
