// Internal to generators/collectives: a helper to append steps in topological order, the ring
// phases several algorithms share, and one build function per algorithm (collective.cc holds
// the registry that maps Algorithm to them).
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "generators/collectives/collective.h"

namespace gw::coll::detail {

using StepIds = std::vector<std::uint32_t>;
// Per member of a group: the steps that must have completed before it may go on.
using Frontier = std::vector<StepIds>;

class ScheduleBuilder {
 public:
  explicit ScheduleBuilder(std::uint32_t ranks) { schedule_.ranks = ranks; }

  // Appends a step; every index in `after` must already exist. Returns its index.
  std::uint32_t send(std::uint32_t src, std::uint32_t dst, ByteRange data, Combine combine,
                     std::uint32_t channel, StepIds after);

  Schedule take() { return std::move(schedule_); }

 private:
  Schedule schedule_;
};

// Ring reduce-scatter over `members` (in ring order): member i ends holding blocks[i] reduced
// over all members. q-1 steps per member: step s of member i (block i-s-1) waits for step s-1
// to arrive from member i-1 and for entry[i] (i's own input). Returns, per member, entry[i]
// plus its last arrival (which carries every earlier partial sum).
Frontier ring_reduce_scatter(ScheduleBuilder& b, const std::vector<std::uint32_t>& members,
                             const std::vector<ByteRange>& blocks, std::uint32_t channel, Frontier entry);
// Ring all-gather: member i starts holding blocks[i] once entry[i] is done; step s of member i
// forwards block i-s, the one that just arrived. Returns, per member, entry plus every arrival
// (each brings a different block, so all are needed before the member holds the whole range).
Frontier ring_all_gather(ScheduleBuilder& b, const std::vector<std::uint32_t>& members,
                         const std::vector<ByteRange>& blocks, std::uint32_t channel, Frontier entry);
// Cuts `range` into `parts` contiguous pieces (the first range.bytes % parts one byte larger).
std::vector<ByteRange> split(ByteRange range, std::uint32_t parts);

// What build_schedule checks of every spec before its algorithm's builder (ranks >= 1,
// channels >= 1, root < ranks, a square send_matrix, chunking only on the ring).
void check_spec(const CollectiveSpec& spec, std::uint32_t ranks);
// The ring's checks: the ops it runs and the number of pieces. Returns the pieces per block
// of channel `channel`'s largest block.
std::uint64_t ring_pieces(const CollectiveSpec& spec, std::uint32_t ranks, std::uint32_t channel);

// Validation shared by the builders: throws CollectiveError with `reason`.
[[noreturn]] void fail(const CollectiveSpec& spec, std::string_view reason);
void require_power_of_two(const CollectiveSpec& spec, std::uint32_t ranks);
std::uint32_t log2_ceil(std::uint32_t n);

// One per algorithm (ranks >= 2, channels >= 1 and root < ranks already checked).
Schedule build_ring(const CollectiveSpec& spec, const Placement& placement);
Schedule build_halving_doubling(const CollectiveSpec& spec, const Placement& placement);
Schedule build_recursive_doubling(const CollectiveSpec& spec, const Placement& placement);
Schedule build_double_binary_tree(const CollectiveSpec& spec, const Placement& placement);
Schedule build_binomial_tree(const CollectiveSpec& spec, const Placement& placement);
Schedule build_pairwise(const CollectiveSpec& spec, const Placement& placement);
Schedule build_direct(const CollectiveSpec& spec, const Placement& placement);
Schedule build_hierarchical(const CollectiveSpec& spec, const Placement& placement);

// Double binary tree (NCCL's ncclGetBtree / ncclGetDtree): parent (-1 for the root) of each
// rank in tree 0 or 1.
std::vector<std::int32_t> btree_parents(std::uint32_t ranks, int tree);

// The regions in order of first appearance, each with its ranks ascending.
std::vector<std::vector<std::uint32_t>> ranks_by_region(const Placement& placement);

}  // namespace gw::coll::detail
