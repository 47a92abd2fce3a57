// What a scenario will cost before it runs: an order-of-magnitude estimate of the simulator's
// memory and CPU time from the scenario's numbers alone, so that `flows count: 100000`,
// `chunk_bytes: 1` or 4,096 ranks of all-to-all are refused in a second with the estimate and
// the limit, not found out when the machine runs out of memory (docs/scenarios.md "Cost").
//
// The model counts what the simulator keeps and does:
// - connections: a queue pair per flow and per ordered pair of ranks a collective sends on;
// - schedule steps: every point-to-point step of every collective op, built up front;
// - packets: the bytes on the wire over the payload of a packet, at least one per step, and
//   as many ACKs and NCCL credits;
// and prices them with constants measured on the release build (run_cost.cc). A collective or
// training run is simulated twice (the unimpaired baseline), so its time counts twice.
#pragma once

#include <cstdint>
#include <string>

#include "harness/run/scenario.h"

namespace gw {

struct RunCost {
  double connections = 0;
  double schedule_steps = 0;
  double packets = 0;
  double memory_bytes = 0;  // peak resident set
  double cpu_seconds = 0;   // the simulated run(s), one core
  // The term that dominates the estimate, for the message ("4,194,304 connections").
  std::string driver;
};

RunCost estimate_cost(const Scenario& s);

// Point-to-point steps of one collective op on `ranks` ranks (the schedule's size).
double estimate_steps(const coll::CollectiveSpec& c, std::uint32_t ranks);

struct CostLimits {
  double memory_bytes = 0;  // default: 80 % of the machine's available memory
  double cpu_seconds = 3600;
};
CostLimits default_cost_limits();

// Throws InputError (exit 2) naming the scenario file, the estimate, the limit and the term
// behind it when the estimate exceeds a limit.
void check_cost(const Scenario& s, const RunCost& cost, const CostLimits& limits);

// "1.4 GiB", "3 h 20 min": for messages.
std::string bytes_text(double bytes);
std::string seconds_text(double seconds);

}  // namespace gw
