// Path steering in the simulator: one controller per region pair with several paths
// (generators/steering), fed every interval from the network's hop counters and the queue
// pairs' own counters, and its moves handed back for the run to apply to its connections.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "emulator/fabric/network.h"
#include "generators/steering/path_controller.h"
#include "harness/run/steering_result.h"

namespace gw {

class SimSteering {
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

  SimSteering(const fabric::Network& net, const steering::Settings& settings);

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
  void measure(Pair& pair, Instant now);
  void request_capacity(Pair& pair, Instant now);
  const Pair* pair_of(std::uint32_t from_region, std::uint32_t to_region) const;
  void note_events(Pair& pair, const std::vector<steering::PathSample>& before, Instant now);
  void close_events(Pair& pair, bool moved, Instant now);
  std::uint32_t widest_up(const Pair& pair) const;

  const fabric::Network* net_;
  steering::Settings settings_;
  std::vector<Pair> pairs_;
  std::vector<PipelineCounters> last_hop_;  // per hop, at the last tick
  Instant last_tick_ = kEpoch;
  SteeringResult result_;
};

}  // namespace gw
