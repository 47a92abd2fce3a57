// Path steering on the live bench: the controller the simulator runs (harness/run/steering.h),
// fed every interval from the emulator's per-path classes (live_profile.h: one class per path,
// its counters from GET /stats of the control endpoint) and from the endpoints' queue-pair
// stats, its moves sent to the endpoints as control::Path (docs/steering.md "Live").
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/event_loop.h"
#include "emulator/fabric/network.h"
#include "harness/run/scenario.h"
#include "harness/run/steering.h"

namespace gw {

// A PathMeter over the emulator's class counters: path k of side A -> side B is class
// "pathk" of a_to_b, of side B -> side A the same class of b_to_a.
class EmuClassMeter final : public PathMeter {
 public:
  explicit EmuClassMeter(const fabric::Network& net) : net_(&net) {}
  // The counters as GET /stats gave them at the end of the interval.
  void update(nlohmann::json stats) { now_ = std::move(stats); }
  PathReading read(std::uint32_t from, std::uint32_t to, std::uint32_t path, Instant now,
                   double seconds) override;
  void next_interval() override { last_ = now_; }

 private:
  const fabric::Network* net_;
  nlohmann::json now_ = nlohmann::json::object();
  nlohmann::json last_ = nlohmann::json::object();
};

class LiveSteering {
 public:
  // The scenario has passed check_live_scenario (region 0 is side A, region 1 side B).
  explicit LiveSteering(const Scenario& s);
  LiveSteering(const LiveSteering&) = delete;
  LiveSteering& operator=(const LiveSteering&) = delete;

  bool active() const { return steering_.active(); }
  Duration interval() const { return steering_.interval(); }
  // Sending QP `qp` of side `side` opens toward the other side: the path it takes (-1 when
  // the sides have one path). `data`: it carries data (not NCCL's slot-free messages).
  std::int32_t open(std::uint32_t side, std::uint32_t qp, bool data);
  // The interval ending at `now`: the emulator's counters (GET /stats) and the endpoints' last
  // stats messages in; the moves out, as (side, control::Path).
  struct Move {
    std::uint32_t side = 0;
    std::uint32_t qp = 0;
    std::int32_t path = 0;
    Duration lag{0};
  };
  std::vector<Move> tick(Instant now, nlohmann::json emu_stats,
                         const std::array<nlohmann::json, 2>& endpoints);
  SteeringResult result() const { return steering_.result(); }

 private:
  // The network model only answers what a path is (hops, base delay, rate and state in force);
  // no packet goes through it.
  struct NoPackets final : fabric::Receiver {
    void receive(Instant, Packet&&) override;
    void dropped(Instant, Packet&&, DropCause, const std::string&) override;
  };
  EventLoop loop_;
  NoPackets no_packets_;
  fabric::Network net_;
  EmuClassMeter meter_;
  Steering steering_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> flows_;  // steering's flow id -> (side, qp)
};

}  // namespace gw
