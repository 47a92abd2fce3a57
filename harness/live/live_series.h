// Live time series (result.json's `series`, docs/guide/live.md "Time series"): each endpoint
// sends its queue pairs' state at the scenario's series interval (a stats message stamped
// with the run time it was taken, `at_ns`); this turns those samples into the simulator's
// series shape on a regular grid (t = k x interval), one "flow" per sending queue pair or TCP
// connection:
//   rate_bps    the bytes it sent (data_bytes_sent; bytes_written for kernel TCP) between grid
//               points x 8 / interval, the cumulative count interpolated linearly between
//               samples (a sample taken late does not show as one empty and one double interval)
//   cwnd_bytes  and srtt_ns: the last sample at or before the grid point (0 before the first)
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/time.h"
#include "harness/run/queue_pairs.h"
#include "harness/run/sim_result.h"

namespace gw {

class LiveSeries {
 public:
  explicit LiveSeries(Duration interval) : interval_(interval) {}

  // A stats message of side `side` (its `at_ns`, else `arrived`).
  void add(std::uint32_t side, const nlohmann::json& stats, Instant arrived);

  // Fills `series` up to `end` (grid points k x interval <= end) and returns a label per flow
  // in the same order: [{"flow", "side", "qp", "peer", "srtt_ns": [...]}] (the simulator's
  // series has no srtt; add_live_result merges these into result.json's series.flows).
  nlohmann::json fill(Series& series, Instant end) const;

 private:
  struct Sample {
    std::int64_t t_ns = 0;
    std::uint64_t bytes = 0;
    std::uint64_t cwnd = 0;
    std::int64_t srtt_ns = 0;
  };
  struct Track {
    std::string peer;
    std::vector<Sample> samples;  // in time order
  };
  Duration interval_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, Track> tracks_;  // (side, qp)
};

}  // namespace gw
