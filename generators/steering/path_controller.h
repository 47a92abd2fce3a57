// The SD-WAN controller's decision for one region pair: which of the pair's paths each queue
// pair takes (docs/steering.md). Traffic is split per queue pair, so nothing reorders inside
// one except at a move: a pair moved to a shorter path is told by how much the old one lags
// (lag_after_move below), so that its loss detection waits for the stragglers.
//
// Every interval T the run measures each path (the signals the INT echoes and the hops'
// counters give, in virtual time and on the live bench alike) and each queue pair, and asks
// the controller where each queue pair goes. Controllers take `now` and do no I/O, as the
// congestion controls (generators/cc) do; one instance serves one ordered region pair.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/rate.h"
#include "core/time.h"

namespace gw::steering {

// One path of the pair over the last interval.
struct PathSample {
  Duration base_delay{0};     // one way, without queueing
  Duration queue_delay{0};    // the backlog of its WAN hops now, each at its rate
  BitRate capacity{};         // its slowest WAN hop's rate in force now (0 = unlimited)
  double loss = 0;            // fraction of the packets its WAN hops took in and dropped
  double utilization = 0;     // its busiest WAN hop: bytes sent / (rate x interval)
  std::uint64_t packets = 0;  // packets its WAN hops took in during the interval

  // Its links are up, as their liveness checks (BFD, RFC 5880) or the routing protocol report
  // them. Loss is not taken for a failure: a link cut to a fifth of its rate drops most of
  // what arrives for a while, and routing does not withdraw a congested link.
  bool up = true;

  bool down() const { return !up; }
  Duration delay() const { return base_delay + queue_delay; }
};

// One queue pair of the region pair over the last interval.
struct QpSample {
  std::uint32_t path = 0;              // where it is now
  std::uint64_t packets_received = 0;  // data packets that reached its receiver
  std::uint64_t ce_marked = 0;         // of those, with CE set
  std::uint64_t retransmits = 0;       // packets its sender resent
  std::uint64_t timeouts = 0;          // its sender's retransmission timeouts
  std::uint64_t entropy = 0;           // a stable hash of the QP's 5-tuple (ECMP's input)
};

// A path held in reserve: down until the controller asks for it, then up `provision` later (a
// light path granted after its provisioning delay).
struct Standby {
  std::string from;  // the route's regions
  std::string to;
  std::uint32_t path = 0;
  Duration provision{500'000'000};
};

struct Settings {
  std::string policy = "static";
  Duration interval{50'000'000};
  double headroom = 0.1;            // te: capacity kept free (SWAN's scratch capacity)
  std::uint32_t plb_rounds = 3;     // plb: congested rounds in a row before a re-path
  double plb_ce_fraction = 0.5;     // plb: a round is congested from this CE fraction
  Duration seed_target{5'000'000};  // seed: the queueing delay it aims for (5 ms)
  double seed_backoff = 0.95;       // seed: the direct path's share x this when congested
  double seed_step = 0.015;         // seed: share given back per interval otherwise
  std::vector<Standby> standby;     // from the routes' paths
  // Per-packet spraying (as Ultra Ethernet's packet spraying): each data packet takes a path
  // by the controller's weights (smooth weighted round robin), not its queue pair's path.
  bool spray = false;
};

class PathController {
 public:
  virtual ~PathController() = default;
  // Where each queue pair goes from now (same order as `qps`); `paths` in the route's order.
  virtual std::vector<std::uint32_t> steer(Instant now, std::span<const PathSample> paths,
                                           std::span<const QpSample> qps) = 0;
  // The path of a queue pair opening now, the others staying where they are (`others`: their
  // paths, in order; the new one comes after them).
  virtual std::uint32_t place(const QpSample& qp, std::span<const PathSample> paths,
                              std::span<const std::uint32_t> others) = 0;
  // After steer(): the controller wants more capacity (a standby path of the pair, if any).
  virtual bool wants_capacity() const { return false; }
  // The share of traffic the controller wants on each path now (for reports).
  virtual std::vector<double> weights() const = 0;
};

std::unique_ptr<PathController> make_path_controller(const Settings& s, std::uint32_t path_count);
std::vector<std::string_view> policy_names();

// Queue pairs onto paths so that each path's count follows `weights` (largest remainder, ties
// to the lower index), moving as few as possible from `current`; a pair on a path that keeps
// its share stays.
std::vector<std::uint32_t> assign_by_weights(std::span<const double> weights,
                                             std::span<const std::uint32_t> current);

// ECMP's choice: the entropy hashed onto the paths that are up (all, when none is).
std::uint32_t hash_path(std::uint64_t entropy, std::span<const PathSample> paths);

// How much later than the packets a queue pair sends on `to` its packets still on `from` may
// arrive: the one-way delay difference, plus 10 % and 100 us for what the samples do not see;
// zero when `to` is no shorter or `from` is down (its packets there are lost anyway).
Duration lag_after_move(const PathSample& from, const PathSample& to);

}  // namespace gw::steering
