// A test-side executor of workloads with unlimited parallelism: an item starts when all its
// `after` items have finished and takes `cost(item)`. Enough to check the structure of an
// iteration against hand-computed timelines and the analytic DDP recurrence.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "generators/workloads/workload.h"

namespace gw::wl::testing {

inline std::vector<Duration> finish_times(const Workload& w,
                                          const std::function<Duration(const WorkItem&)>& cost) {
  std::vector<Duration> finish(w.items.size());
  for (std::size_t i = 0; i < w.items.size(); ++i) {
    Duration start{0};
    for (std::uint32_t j : w.items[i].after) {
      start = std::max(start, finish[j]);
    }
    finish[i] = start + cost(w.items[i]);
  }
  return finish;
}

inline Duration makespan(const Workload& w, const std::function<Duration(const WorkItem&)>& cost) {
  const auto f = finish_times(w, cost);
  return f.empty() ? Duration{0} : *std::max_element(f.begin(), f.end());
}

// Empty when every `after` index is earlier than its item, else the first offender.
inline std::string order_error(const Workload& w) {
  for (std::size_t i = 0; i < w.items.size(); ++i) {
    for (std::uint32_t j : w.items[i].after) {
      if (j >= i) {
        return "item " + std::to_string(i) + " (" + w.items[i].label + ") waits for a later item";
      }
    }
  }
  return "";
}

inline std::size_t find(const Workload& w, const std::string& label, std::uint32_t iteration = 0) {
  for (std::size_t i = 0; i < w.items.size(); ++i) {
    if (w.items[i].label == label && w.items[i].iteration == iteration) {
      return i;
    }
  }
  return w.items.size();
}

// Whether item `to` depends, directly or not, on item `from`.
inline bool reaches(const Workload& w, std::size_t from, std::size_t to) {
  std::vector<bool> r(w.items.size(), false);
  r[from] = true;
  for (std::size_t i = from + 1; i <= to; ++i) {
    for (std::uint32_t j : w.items[i].after) {
      r[i] = r[i] || r[j];
    }
  }
  return r[to];
}

}  // namespace gw::wl::testing
