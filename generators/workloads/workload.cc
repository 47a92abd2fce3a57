// Shared workload vocabulary (workload.h).
#include "generators/workloads/workload.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace gw::wl {

double training_flops(double parameters, double tokens) {
  return 6 * parameters * tokens;
}

Duration compute_time(double flops, double peak_flops_per_s, double mfu) {
  if (!(peak_flops_per_s > 0) || !(mfu > 0) || mfu > 1) {
    throw WorkloadError{"compute from FLOPs needs peak_flops_per_s > 0 and mfu in (0, 1]"};
  }
  return Duration{std::llround(flops / (peak_flops_per_s * mfu) * 1e9)};
}

PhaseTimes phase_times(const ModelSpec& model, const ComputeSpec& compute) {
  if (compute.peak_flops_per_s <= 0) {
    return PhaseTimes{compute.forward, compute.backward};
  }
  const double per_token =
      static_cast<double>(model.parameters) * static_cast<double>(model.tokens_per_iteration);
  return PhaseTimes{compute_time(2 * per_token, compute.peak_flops_per_s, compute.mfu),
                    compute_time(4 * per_token, compute.peak_flops_per_s, compute.mfu)};
}

Overlap ddp_overlap(const std::vector<Duration>& ready, const std::vector<Duration>& comm,
                    Duration backward_end) {
  if (ready.size() != comm.size()) {
    throw WorkloadError{"ddp_overlap: ready and comm differ in length"};
  }
  Overlap out;
  Duration f = Duration::min();
  for (std::size_t i = 0; i < ready.size(); ++i) {
    f = std::max(f, ready[i]) + comm[i];
    out.finish.push_back(f);
  }
  if (!out.finish.empty()) {
    out.exposed = std::max(Duration{0}, out.finish.back() - backward_end);
  }
  return out;
}

WorkloadBuilder::WorkloadBuilder(std::string name, std::uint32_t ranks) {
  w_.name = std::move(name);
  w_.ranks = ranks;
}

void WorkloadBuilder::begin_iteration() {
  const auto end = static_cast<std::uint32_t>(w_.items.size());
  if (w_.iterations > 0) {
    std::vector<bool> needed(end - iteration_start_, false);
    for (std::uint32_t i = iteration_start_; i < end; ++i) {
      for (std::uint32_t j : w_.items[i].after) {
        if (j >= iteration_start_) {
          needed[j - iteration_start_] = true;
        }
      }
    }
    previous_sinks_.clear();
    for (std::uint32_t i = iteration_start_; i < end; ++i) {
      if (!needed[i - iteration_start_]) {
        previous_sinks_.push_back(i);
      }
    }
  }
  iteration_start_ = end;
  ++w_.iterations;
}

std::uint32_t WorkloadBuilder::add(WorkItem item) {
  item.iteration = w_.iterations == 0 ? 0 : w_.iterations - 1;
  if (item.after.empty()) {
    item.after = previous_sinks_;
  }
  w_.items.push_back(std::move(item));
  return static_cast<std::uint32_t>(w_.items.size() - 1);
}

std::uint32_t WorkloadBuilder::compute(std::string label, Duration d, std::vector<std::uint32_t> after,
                                       std::uint32_t rank) {
  WorkItem item;
  item.kind = WorkKind::kCompute;
  item.label = std::move(label);
  item.duration = d;
  item.rank = rank;
  item.after = std::move(after);
  return add(std::move(item));
}

std::uint32_t WorkloadBuilder::collective(std::string label, coll::CollectiveSpec spec,
                                          std::vector<std::uint32_t> after) {
  return collective_on(std::move(label), std::move(spec), {}, 0, std::move(after));
}

std::uint32_t WorkloadBuilder::compute_on(std::string label, Duration d, std::vector<std::uint32_t> group,
                                          std::vector<std::uint32_t> after) {
  WorkItem item;
  item.kind = WorkKind::kCompute;
  item.label = std::move(label);
  item.duration = d;
  item.group = std::move(group);
  item.after = std::move(after);
  return add(std::move(item));
}

std::uint32_t WorkloadBuilder::collective_on(std::string label, coll::CollectiveSpec spec,
                                             std::vector<std::uint32_t> group, std::uint32_t comm,
                                             std::vector<std::uint32_t> after) {
  WorkItem item;
  item.kind = WorkKind::kCollective;
  item.label = std::move(label);
  item.collective = std::move(spec);
  item.group = std::move(group);
  item.comm = comm;
  item.after = std::move(after);
  return add(std::move(item));
}

std::uint32_t WorkloadBuilder::p2p(std::string label, std::uint32_t src, std::uint32_t dst,
                                   std::uint64_t bytes, std::vector<std::uint32_t> after) {
  WorkItem item;
  item.kind = WorkKind::kP2p;
  item.label = std::move(label);
  item.src = src;
  item.dst = dst;
  item.bytes = bytes;
  item.after = std::move(after);
  return add(std::move(item));
}

Workload WorkloadBuilder::take() {
  return std::move(w_);
}

}  // namespace gw::wl
