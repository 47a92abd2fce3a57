// A collective's schedule as a graph walked one completion at a time, so that a big op need not
// hold every step at once. The ring (the algorithm NCCL and gradwall use for data-parallel
// all-reduces) is generated on demand from formulas: its steps are numbered as build_schedule
// numbers them and each has at most one predecessor and one dependent, so the graph keeps no
// per-step state and an op over p ranks costs O(p) memory instead of O(p^2). Other algorithms
// wrap their built Schedule.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "generators/collectives/collective.h"

namespace gw::coll {

class StepGraph {
 public:
  virtual ~StepGraph() = default;
  virtual std::uint32_t ranks() const = 0;
  // Steps, numbered 0..size()-1 as build_schedule numbers them.
  virtual std::uint32_t size() const = 0;
  // Step i, without its `after` list.
  virtual Step at(std::uint32_t i) const = 0;
  // The steps that wait for nothing, ascending.
  virtual std::vector<std::uint32_t> roots() const = 0;
  // How many steps step i waits for.
  virtual std::uint32_t waits(std::uint32_t i) const = 0;
  // Appends the steps that wait for step i, ascending.
  virtual void dependents(std::uint32_t i, std::vector<std::uint32_t>& out) const = 0;
};

// Walks a graph as its steps complete: what is left to wait for is kept only for the steps
// that wait for more than one and have heard from some (none on a ring).
class GraphWalk {
 public:
  explicit GraphWalk(const StepGraph& graph) : graph_(&graph) {}
  // Step i has completed: appends the steps it was the last wait of, ascending.
  void complete(std::uint32_t i, std::vector<std::uint32_t>& ready);

 private:
  const StepGraph* graph_;
  std::vector<std::uint32_t> dependents_;
  std::unordered_map<std::uint32_t, std::uint32_t> heard_;  // step -> waits completed so far
};

// The graph of `spec` on `placement`: lazy for the ring, else build_schedule's. Throws
// CollectiveError where build_schedule would.
std::unique_ptr<StepGraph> step_graph(const CollectiveSpec& spec, const Placement& placement);

// A built schedule as a graph (waiting counts and dependents per step).
std::unique_ptr<StepGraph> schedule_graph(Schedule schedule);

}  // namespace gw::coll
