// Test-side checks of collective schedules: structure (topological order, who waits for whom),
// critical-path depth, and a byte-level replay of the data flow.
//
// The replay tracks, for every rank and every byte of the array, the set of ranks whose input
// has been summed into it (a bit mask, so at most 64 ranks). A step carries what its sender
// holds given only the arrivals its dependencies guarantee (the ancestors of the step), so a
// missing dependency shows up as missing data, and a reduce that would add a rank's input
// twice is reported as a double count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "generators/collectives/collective.h"

namespace gw::coll::testing {

using Masks = std::vector<std::uint64_t>;  // per byte: which ranks' inputs are summed in

inline std::uint64_t all_ranks(std::uint32_t p) {
  return p == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << p) - 1;
}

// Empty when the structure holds, else the first violation.
inline std::string structure_error(const Schedule& s, std::uint32_t channels) {
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const Step& step = s.steps[i];
    if (step.src >= s.ranks || step.dst >= s.ranks || step.src == step.dst) {
      return "step " + std::to_string(i) + ": bad endpoints";
    }
    if (step.channel >= channels) {
      return "step " + std::to_string(i) + ": bad channel";
    }
    for (std::uint32_t j : step.after) {
      if (j >= i) {
        return "step " + std::to_string(i) + ": not in topological order";
      }
      if (s.steps[j].dst != step.src && s.steps[j].src != step.src) {
        return "step " + std::to_string(i) + ": waits for a step not arriving at or sent by its sender";
      }
    }
  }
  return "";
}

// Critical path length in steps (unit-time steps, unlimited parallelism).
inline std::uint32_t depth(const Schedule& s) {
  std::vector<std::uint32_t> d(s.steps.size(), 1);
  std::uint32_t most = 0;
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    for (std::uint32_t j : s.steps[i].after) {
      d[i] = std::max(d[i], d[j] + 1);
    }
    most = std::max(most, d[i]);
  }
  return most;
}

inline std::vector<std::uint64_t> bytes_sent_per_rank(const Schedule& s) {
  std::vector<std::uint64_t> out(s.ranks, 0);
  for (const Step& step : s.steps) {
    out[step.src] += step.bytes;
  }
  return out;
}

struct Replay {
  std::vector<Masks> final_state;  // per rank
  std::string error;               // double count or out-of-range step, else empty
};

// `initial(r)` is rank r's buffer before the collective (`bytes` long).
inline Replay replay(const Schedule& s, std::uint64_t bytes,
                     const std::function<Masks(std::uint32_t)>& initial) {
  const std::size_t n = s.steps.size();
  std::vector<std::vector<bool>> ancestor(n, std::vector<bool>(n, false));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::uint32_t j : s.steps[i].after) {
      ancestor[i][j] = true;
      for (std::size_t k = 0; k < j; ++k) {
        if (ancestor[j][k]) {
          ancestor[i][k] = true;
        }
      }
    }
  }
  Replay out;
  std::vector<Masks> payload(n);
  auto apply = [&](Masks& state, std::size_t j) {
    const Step& a = s.steps[j];
    for (std::uint64_t b = 0; b < a.bytes; ++b) {
      std::uint64_t& cell = state[a.offset + b];
      if (a.combine == Combine::kReduce) {
        if ((cell & payload[j][b]) != 0 && out.error.empty()) {
          out.error =
              "step " + std::to_string(j) + " adds an input twice at byte " + std::to_string(a.offset + b);
        }
        cell |= payload[j][b];
      } else {
        cell = payload[j][b];
      }
    }
  };
  for (std::size_t i = 0; i < n; ++i) {
    const Step& step = s.steps[i];
    if (step.offset + step.bytes > bytes) {
      out.error = "step " + std::to_string(i) + " is outside the array";
      return out;
    }
    Masks state = initial(step.src);
    for (std::size_t j = 0; j < i; ++j) {
      if (ancestor[i][j] && s.steps[j].dst == step.src) {
        apply(state, j);
      }
    }
    payload[i].assign(state.begin() + static_cast<std::ptrdiff_t>(step.offset),
                      state.begin() + static_cast<std::ptrdiff_t>(step.offset + step.bytes));
  }
  for (std::uint32_t r = 0; r < s.ranks; ++r) {
    Masks state = initial(r);
    for (std::size_t j = 0; j < n; ++j) {
      if (s.steps[j].dst == r) {
        apply(state, j);
      }
    }
    out.final_state.push_back(std::move(state));
  }
  return out;
}

// Which ranks each rank has heard from (transitively) by the end: a barrier's guarantee.
inline std::vector<std::uint64_t> heard_from(const Schedule& s) {
  std::vector<std::uint64_t> carried(s.steps.size());
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    carried[i] = std::uint64_t{1} << s.steps[i].src;
    for (std::uint32_t j : s.steps[i].after) {
      carried[i] |= carried[j];
    }
  }
  std::vector<std::uint64_t> out(s.ranks);
  for (std::uint32_t r = 0; r < s.ranks; ++r) {
    out[r] = std::uint64_t{1} << r;
  }
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    out[s.steps[i].dst] |= carried[i];
  }
  return out;
}

inline Placement one_region(std::uint32_t p) {
  return Placement{std::vector<std::uint32_t>(p, 0)};
}

}  // namespace gw::coll::testing
