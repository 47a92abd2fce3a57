// Path steering, one implementation for the simulator and the live bench: one controller per
// region pair with several paths (generators/steering), fed every interval from a PathMeter
// (the simulator's hop counters, sim_steering.h; the live emulator's per-path class counters,
// live_steering.h) and the queue pairs' own counters, and its moves handed back for the run to
// apply to its connections. What does not need measuring (a path's hops, base delay, rate and
// state in force at a time) comes from the scenario's network model.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "emulator/fabric/network.h"
#include "generators/steering/path_controller.h"
#include "harness/run/steering_result.h"

namespace gw {

// What a path did over one controller interval, as measured.
struct PathReading {
  std::uint64_t packets = 0;          // packets its first WAN hop took in
  double loss = 0;                    // fraction of them dropped along the path
  double utilization = 0;             // its busiest hop: bytes sent / (rate in force x interval)
  Duration queue_delay{0};            // the backlog it holds now, each hop's at its rate
  std::uint64_t bytes_delivered = 0;  // bytes its last WAN hop delivered
};

class PathMeter {
 public:
  virtual ~PathMeter() = default;
  // Path `path` from region `from` to region `to` over the interval ending at `now`, `seconds`
  // long.
  virtual PathReading read(std::uint32_t from, std::uint32_t to, std::uint32_t path, Instant now,
                           double seconds) = 0;
  // Every path was read for the interval ending now: the next reads start from here.
  virtual void next_interval() = 0;
};

class Steering {
 public:
  // A connection's counters since it opened.
  struct QpTotals {
    std::uint64_t packets_received = 0;  // data packets at its receiver
    std::uint64_t ce_marked = 0;
    std::uint64_t retransmits = 0;
    std::uint64_t timeouts = 0;
  };
  struct Move {
    std::uint32_t flow = 0;
    std::uint32_t path = 0;
    Duration lag{0};  // how much the old path lags the new one (QueuePair::path_changed)
  };

  // `net` and `meter` must outlive the steering.
  Steering(const fabric::Network& net, const steering::Settings& settings, PathMeter& meter);

  // Some region pair has several paths.
  bool active() const { return !pairs_.empty(); }
  Duration interval() const { return settings_.interval; }
  bool steered(std::uint32_t from_region, std::uint32_t to_region) const;
  // Connection `flow` from one region to another opens: the path it takes. A connection that
  // carries no data (`data` false: NCCL's slot-free messages) is not the controller's to
  // split: it takes the up path with the largest share.
  std::uint32_t open(std::uint32_t flow, std::uint32_t from_region, std::uint32_t to_region,
                     std::uint64_t entropy, bool data);
  // The controller interval ending at `now`: the moves to make.
  std::vector<Move> tick(Instant now, const std::function<QpTotals(std::uint32_t)>& totals);
  SteeringResult result() const { return result_; }

  // Spraying (Settings::spray): the path of the next data packet of a connection from one
  // region to another, by smooth weighted round robin over the up paths (`credit`: the
  // connection's own state, one entry per path).
  bool spraying() const { return settings_.spray; }
  std::uint32_t spray(std::uint32_t from_region, std::uint32_t to_region, std::vector<double>& credit) const;
  // How far apart the up paths of a pair are now (one-way delay, queueing included), plus the
  // margin of lag_after_move: the reordering a sprayed connection must tolerate.
  Duration spread(std::uint32_t from_region, std::uint32_t to_region) const;

 private:
  struct Pair {
    std::uint32_t from = 0;
    std::uint32_t to = 0;
    std::unique_ptr<steering::PathController> controller;
    std::vector<std::vector<std::size_t>> hops;  // per path: its WAN hops
    std::vector<double> weights;                 // the controller's, as of its last placement or interval
    std::vector<steering::PathSample> samples;   // the last interval's
    std::vector<std::uint32_t> flows;            // its connections, in opening order
    std::vector<std::uint32_t> paths;            // where each is
    std::vector<std::uint64_t> entropy;
    std::vector<QpTotals> last;              // each connection's counters at the last tick
    std::vector<std::uint32_t> light;        // connections without data
    std::vector<std::uint32_t> light_paths;  // where each is
    std::size_t first_result = 0;            // its paths in result_.paths
    std::vector<Instant> granted_at;       // per path: up from then on (kNever: a standby path not asked for)
    std::vector<Duration> provision;       // per path: a standby path's provisioning delay
    std::vector<std::size_t> open_events;  // in result_.events, still waiting for the reaction
    std::int64_t last_move_ns = 0;         // of the re-split under way, since its event
  };
  void measure(Pair& pair, Instant now, double seconds);
  std::vector<PathReading> readings_;  // the last interval's, per path of the pair being ticked
  void request_capacity(Pair& pair, Instant now);
  const Pair* pair_of(std::uint32_t from_region, std::uint32_t to_region) const;
  void note_events(Pair& pair, const std::vector<steering::PathSample>& before, Instant now);
  void close_events(Pair& pair, bool moved, Instant now);
  std::uint32_t widest_up(const Pair& pair) const;

  const fabric::Network* net_;
  steering::Settings settings_;
  std::vector<Pair> pairs_;
  PathMeter* meter_;
  Instant last_tick_ = kEpoch;
  SteeringResult result_;
};

}  // namespace gw
