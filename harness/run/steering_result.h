// result.json's `steering` section (docs/steering.md "Results"): per path of each region pair
// with several, its bytes, rate and weight over time; the controller's decisions as a
// timeline. Sim and live fill the same record.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/time.h"

namespace gw {

struct RoutePathResult {
  std::string from;  // region names
  std::string to;
  std::uint32_t index = 0;
  std::vector<std::string> via;            // relays, in order
  std::vector<std::string> hops;           // its WAN hops ("wan a->pop", ...)
  std::uint64_t capacity_bps = 0;          // its slowest WAN hop at the start (0 = unlimited)
  std::uint64_t bytes = 0;                 // delivered by its last WAN hop (data and the reverse ACKs)
  std::vector<double> weight;              // the controller's share, per interval
  std::vector<std::uint64_t> rate_bps;     // delivered in the interval
  std::vector<double> utilization;         // its busiest WAN hop
  std::vector<std::uint32_t> queue_pairs;  // on it at the end of the interval
};

struct SteeringMove {
  std::uint32_t flow = 0;  // the connection's id in flows[] / the run's connection order
  std::uint32_t from = 0;
  std::uint32_t to = 0;
  std::int64_t lag_ns = 0;  // how much later its packets on `from` may arrive (see lag_after_move)
};

struct SteeringDecision {
  std::int64_t t_ns = 0;
  std::string from;  // the region pair
  std::string to;
  std::vector<double> weights;
  std::vector<SteeringMove> moves;
};

// A path's link came up, went down or changed rate (a phase), and how long until the
// controller acted on it: up, until the path carried traffic; down, until no queue pair was
// left on it; capacity, until the last move of the re-split (0: none needed).
struct SteeringEvent {
  std::int64_t t_ns = 0;  // the controller interval that first saw it
  std::string from;
  std::string to;
  std::uint32_t index = 0;
  std::string kind;  // "up", "down", "capacity", "requested" (by the controller: a standby path)
  std::uint64_t capacity_bps = 0;
  std::int64_t reaction_ns = -1;  // -1: not within the run
};

struct SteeringResult {
  std::string policy;
  Duration interval{0};
  std::vector<std::int64_t> t_ns;  // the end of each controller interval
  std::vector<RoutePathResult> paths;
  std::vector<SteeringDecision> decisions;  // intervals where a queue pair moved
  std::vector<SteeringEvent> events;
  std::uint64_t moves = 0;
};

void to_json(nlohmann::json& j, const SteeringResult& s);

}  // namespace gw
