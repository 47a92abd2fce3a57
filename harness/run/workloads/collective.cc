// "collective": one collective, `iterations` times, each after `compute` (docs/scenarios.md
// "collective").
#include "harness/run/workloads/kinds.h"
#include "harness/run/workloads/reading.h"

namespace gw::kinds {

void read_collective(const JsonReader& w, const fabric::TopologySpec& topo, WorkloadSpec& spec) {
  spec.iterations = static_cast<std::uint32_t>(w.optional_integer("iterations", 1, 1'000'000).value_or(1));
  spec.compute = w.duration("compute").value_or(Duration{0});
  const JsonReader c = w.object("collective");
  coll::CollectiveSpec& cs = spec.collective;
  const std::string op = c.string("op");
  if (!coll::parse_op(op, cs.op)) {
    c.fail("op", "unknown op \"" + op +
                     "\" (all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all, barrier)");
  }
  const std::string algorithm = c.optional_string("algorithm").value_or("ring");
  if (!coll::parse_algorithm(algorithm, cs.algorithm)) {
    c.fail("algorithm", "unknown algorithm \"" + algorithm +
                            "\" (ring, halving_doubling, recursive_doubling, double_binary_tree, "
                            "binomial_tree, pairwise, direct, hierarchical)");
  }
  cs.bytes = c.bytes("size", 0, std::uint64_t{1} << 40).value_or(0);
  if (cs.bytes == 0 && cs.op != coll::Op::kBarrier) {
    c.fail("size_bytes", "missing: the array size per rank in bytes");
  }
  spec.nccl = read_nccl(w);
  cs.channels = static_cast<std::uint32_t>(
      c.optional_integer("channels", 1, 64).value_or(spec.nccl.channels > 0 ? spec.nccl.channels : 1));
  cs.chunk_bytes = c.bytes("chunk", 1, std::uint64_t{1} << 40).value_or(0);
  if (cs.chunk_bytes > 0 && cs.algorithm != coll::Algorithm::kRing) {
    c.fail("chunk_bytes", "only the ring is chunked (algorithm \"" + algorithm + "\")");
  }
  cs.root = static_cast<std::uint32_t>(c.optional_integer("root", 0, 1 << 20).value_or(0));
  c.finish();
  check_schedule(w, "collective", cs, topo);
}

std::vector<IterationPlan> collective_plans(const WorkloadSpec& w) {
  std::vector<IterationPlan> plans(w.iterations);
  for (IterationPlan& plan : plans) {
    if (w.compute.count() > 0) {
      WorkItem compute;
      compute.name = "compute";
      compute.compute = w.compute;
      plan.items.push_back(compute);
    }
    WorkItem op;
    op.name = std::string(coll::op_name(w.collective.op));
    op.is_collective = true;
    op.collective = w.collective;
    if (!plan.items.empty()) {
      op.after.push_back(0);
    }
    plan.items.push_back(op);
  }
  return plans;
}

}  // namespace gw::kinds
