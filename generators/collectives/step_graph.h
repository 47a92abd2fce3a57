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

// A ring whose hops inside a region are not sent but timed (the intra-region fabric modelled
// analytically, the hops between regions still carried by the network). A ring step of member
// i in round r waits for member i-1's step of round r-1 alone, so the hop across a region
// boundary in round r waits for the previous boundary's hop h + 1 rounds earlier and the h hops
// inside the region between them (or, when r <= h, only for r hops from the op's start).
// Numbering: pass (channel, piece) major, then round, then boundary in ring order.
class FoldedRing {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFF;
  FoldedRing(const CollectiveSpec& spec, const Placement& placement);
  ~FoldedRing();
  std::uint32_t ranks() const;
  std::uint32_t rounds() const { return rounds_; }  // per pass
  // Hops between regions.
  std::uint32_t size() const { return size_; }
  Step at(std::uint32_t i) const;
  // What hop i waits for: hop `after` (kNone: the op's start) and then `hops` hops inside
  // `region`, each of `bytes`.
  struct Wait {
    std::uint32_t after = kNone;
    std::uint32_t hops = 0;
    std::uint32_t region = 0;
    std::uint64_t bytes = 0;
  };
  Wait wait(std::uint32_t i) const;
  // The hops that wait for the op's start alone, ascending.
  std::vector<std::uint32_t> roots() const;
  // The hop that waits for hop i (kNone: none).
  std::uint32_t next(std::uint32_t i) const;
  // After hop i arrives, the hops inside the receiving region up to the ring's last round that
  // follow it and nothing else (`after` = i).
  Wait tail(std::uint32_t i) const;
  // Chains inside one region that never meet a boundary within the op: per such region, all
  // the rounds (a region with more members than the ring has rounds, or a single region).
  std::vector<Wait> local_runs() const;

 private:
  struct Where {
    std::uint64_t pass;
    std::uint32_t round;
    std::uint32_t boundary;
  };
  Where where(std::uint32_t i) const;
  std::uint32_t index(std::uint64_t pass, std::uint32_t round, std::uint32_t boundary) const;
  std::uint32_t ring_index(std::uint32_t i) const;
  std::uint64_t pass_bytes(std::uint64_t pass) const;

  std::unique_ptr<StepGraph> ring_;
  std::vector<std::uint32_t> members_;
  std::vector<std::uint32_t> region_;    // per ring position
  std::vector<std::uint32_t> boundary_;  // ring positions whose successor is in another region
  std::vector<std::uint32_t> inside_;    // per boundary: hops inside its region before it
  std::uint32_t q_ = 0;
  std::uint32_t rounds_ = 0;
  std::uint64_t passes_ = 0;
  std::uint32_t size_ = 0;
};

// The graph of `spec` on `placement`: lazy for the ring, else build_schedule's. Throws
// CollectiveError where build_schedule would.
std::unique_ptr<StepGraph> step_graph(const CollectiveSpec& spec, const Placement& placement);

// A built schedule as a graph (waiting counts and dependents per step).
std::unique_ptr<StepGraph> schedule_graph(Schedule schedule);

}  // namespace gw::coll
