#include "harness/advise/predict.h"

#include <algorithm>

#include "core/errors.h"
#include "core/event_loop.h"
#include "emulator/fabric/network.h"
#include "generators/collectives/nccl.h"
#include "harness/run/link_model.h"
#include "harness/run/workloads/workload_kind.h"

namespace gw::advise {
namespace {

// The network is built only to read its paths' base delays and bottleneck rates.
class NoTraffic final : public fabric::Receiver {
 public:
  void receive(Instant, Packet&&) override {}
  void dropped(Instant, Packet&&, DropCause, const std::string&) override {}
};

Duration collective_time(const WorkItem& w, const coll::Placement& placement, const coll::LinkModel& links,
                         const coll::NcclConfig& nccl) {
  if (!nccl.enabled) {
    return coll::predicted_time(w.collective, placement, links);
  }
  const coll::Schedule schedule = coll::build_schedule(w.collective, placement);
  const coll::LinkModel network = coll::network_bound(links, nccl);
  const coll::LinkModel window =
      coll::window_bound(links, nccl, w.collective.channels, coll::slot_rounding(schedule, nccl));
  return coll::predicted_time(w.collective, placement, coll::both_bounds(network, window));
}

Duration p2p_time(const WorkItem& w, const coll::Placement& placement, const coll::LinkModel& links) {
  const coll::AlphaBeta& m = links.at(placement.region.at(w.src), placement.region.at(w.dst));
  return m.alpha + Duration{static_cast<std::int64_t>(m.beta_ns_per_byte * static_cast<double>(w.bytes))};
}

// One iteration's makespan: each item starts when the items it waits for have finished.
Prediction time_plan(const IterationPlan& plan, const coll::Placement& placement,
                     const coll::LinkModel& links, const coll::NcclConfig& nccl) {
  std::vector<Duration> finish(plan.items.size());
  Prediction p;
  Duration one_rank{0};
  for (std::size_t i = 0; i < plan.items.size(); ++i) {
    const WorkItem& w = plan.items[i];
    Duration start{0};
    for (const std::uint32_t a : w.after) {
      start = std::max(start, finish.at(a));
    }
    Duration cost = w.compute;
    if (w.is_collective) {
      cost = collective_time(w, placement, links, nccl);
    } else if (w.is_p2p) {
      cost = p2p_time(w, placement, links);
    } else if (w.rank == WorkItem::kAllRanks) {
      p.compute += w.compute;
    } else {
      one_rank = std::max(one_rank, w.compute);
    }
    finish[i] = start + cost;
    p.iteration = std::max(p.iteration, finish[i]);
  }
  p.compute += one_rank;
  return p;
}

}  // namespace

std::vector<RegionPath> region_paths(const Scenario& s) {
  EventLoop loop;
  NoTraffic rx;
  const fabric::Network net(loop, s.topology, s.seed, rx);
  std::vector<RegionPath> out;
  for (std::uint32_t a = 0; a < net.region_count(); ++a) {
    for (std::uint32_t b = 0; b < net.region_count(); ++b) {
      if (a != b && net.region(a).hosts > 0 && net.region(b).hosts > 0) {
        const BitRate r = net.bottleneck_rate(a, b);
        out.push_back({net.region(a).name, net.region(b).name, net.base_delay(a, b) + net.base_delay(b, a),
                       r.unlimited() ? 0.0 : static_cast<double>(r.bps)});
      }
    }
  }
  return out;
}

Prediction predict(const Scenario& s) {
  if (!workload_kind(s.workload.kind).iterations) {
    throw InputError(s.file, "$.workload.kind", "advise times iterations: a \"flows\" run has none");
  }
  EventLoop loop;
  NoTraffic rx;
  const fabric::Network net(loop, s.topology, s.seed, rx);
  const coll::LinkModel links = link_model_of(net, s.transport.config.mtu_bytes);
  coll::Placement placement;
  for (std::uint32_t r = 0; r < net.region_count(); ++r) {
    placement.region.insert(placement.region.end(), net.region(r).hosts, r);
  }
  const std::vector<IterationPlan> plans = iteration_plans(s.workload);
  const std::size_t first = std::min<std::size_t>(s.warmup_iterations, plans.size() - 1);
  Prediction sum;
  for (std::size_t k = first; k < plans.size(); ++k) {
    const Prediction one = time_plan(plans[k], placement, links, s.workload.nccl);
    sum.iteration += one.iteration;
    sum.compute += one.compute;
  }
  const auto n = static_cast<std::int64_t>(plans.size() - first);
  return Prediction{sum.iteration / n, sum.compute / n};
}

}  // namespace gw::advise
