// A live run's coordinator (live_runner.cc): the endpoints started and connected to its control
// socket, the MessageService that tells them what to send, and the real-time loop that runs the
// scenario's workload against the real clock while it watches the processes.
#pragma once

#include <array>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/event_loop.h"
#include "core/time.h"
#include "emulator/engine/spec.h"
#include "generators/collectives/collective.h"
#include "harness/live/control_messages.h"
#include "harness/live/emu_control.h"
#include "harness/live/endpoints/clock.h"
#include "harness/live/endpoints/line_channel.h"
#include "harness/live/link_watch.h"
#include "harness/live/live_bench.h"
#include "harness/live/live_context.h"
#include "harness/live/live_flows.h"
#include "harness/live/live_profile.h"
#include "harness/live/live_series.h"
#include "harness/live/live_steering.h"
#include "harness/run/collective_driver.h"
#include "harness/run/queue_pairs.h"

namespace gw {

class Coordinator final : public MessageService {
 public:
  // `steering` (never null) gives each QP that opens toward the other side its path.
  Coordinator(coll::Placement placement, std::vector<endpoints::LineChannel*> channels,
              std::array<LiveSide, 2> sides, LiveSteering* steering)
      : placement_(std::move(placement)),
        channels_(std::move(channels)),
        sides_(std::move(sides)),
        steering_(steering) {}

  std::uint64_t send(std::uint32_t src, std::uint32_t dst, std::uint32_t channel, std::uint64_t bytes,
                     Traffic traffic, Instant now) override {
    (void)now;
    const auto key = std::make_tuple(src, dst, channel);
    auto it = connection_of_.find(key);
    if (it == connection_of_.end()) {
      it = connection_of_.emplace(key, static_cast<std::uint32_t>(connection_of_.size())).first;
    }
    // Data and control connections in QP ranges of their own, so that the series can tell
    // them apart (LiveSeries, kFirstControlQp).
    const std::uint32_t qp = (traffic == Traffic::kControl ? kFirstControlQp : kFirstQp) + 2 * it->second;
    const std::uint64_t id = next_message_++;
    post(placement_.region[src], qp, placement_.region[dst], id, bytes, {}, {});
    return id;
  }
  // Message `msg` of `bytes` on side `side`'s sending QP `qp`, toward side `peer_side`; `cc`
  // and `params` (when set) the controller the QP opens with (a flow's own).
  void post(std::uint32_t side, std::uint32_t qp, std::uint32_t peer_side, std::uint64_t msg,
            std::uint64_t bytes, const std::string& cc, const cc::CcParams& params) {
    std::int32_t path = -1;
    if (side != peer_side && opened_.insert({side, qp}).second) {
      path = steering_->open(side, qp, qp < kFirstControlQp);
    }
    channels_[side]->send(
        control::Send{qp, sides_[peer_side].address, msg, bytes, cc, params, path}.to_json());
  }
  std::size_t connections() const { return connection_of_.size(); }

 private:
  coll::Placement placement_;
  std::vector<endpoints::LineChannel*> channels_;
  std::array<LiveSide, 2> sides_;
  LiveSteering* steering_;
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::uint32_t> connection_of_;
  std::set<std::pair<std::uint32_t, std::uint32_t>> opened_;  // (side, qp) posted on so far
  std::uint64_t next_message_ = 0;
};

// One endpoint process per side (`gradwall endpoint`, or `endpoint-tcp` for a kernel TCP
// baseline), started and told to connect to the coordinator's control socket (in
// td.socket_dir); their control connections, by side, once each has said hello.
std::array<std::unique_ptr<endpoints::LineChannel>, 2> connect_endpoints(const LiveContext& c, Teardown& td,
                                                                         std::int64_t ready_by);

// Sends each endpoint the run's epoch and waits for both to be ready.
endpoints::RunTime start_endpoints_clock(const LiveContext& c, Teardown& td,
                                         const std::array<std::unique_ptr<endpoints::LineChannel>, 2>& ch);

// The run itself: the simulator's CollectiveDriver and the flows on an event loop that follows
// the real clock, the endpoints' deliveries and stats fed in as they come, the processes
// watched (an emulator that dies is restarted, up to options.emu_restarts times).
class RealTimeRun {
 public:
  // `emu_control`: the emulator's control endpoint, for path steering (nullopt without), and
  // `phases` the profiles it runs from their times on (live_profile.h take_phases).
  RealTimeRun(const LiveContext& c, Teardown& td, EmulatorLauncher& emu,
              std::array<std::unique_ptr<endpoints::LineChannel>, 2>& ch, const endpoints::RunTime& rt,
              const Profile& profile, std::optional<EmuControl> emu_control, std::vector<TimedProfile> phases,
              std::vector<std::string>& faults);

  // Until the work is done (a "flows" workload: workload.duration), the limit, an interrupt or
  // a process lost; returns when it stopped.
  Instant run();
  // The endpoints' last stats (final ones once stop_endpoints has run).
  void stop_endpoints();

  const CollectiveDriver& driver() const { return driver_; }
  const LiveFlows& flows() const { return flows_; }
  const Coordinator& coordinator() const { return coord_; }
  const LiveSeries& series() const { return series_; }
  const LiveSteering& steering() const { return steering_; }
  const std::array<nlohmann::json, 2>& stats() const { return stats_; }

 private:
  static coll::Placement placement_of(const Scenario& s);
  // Predicted times: the WAN link's α-β between the sides; within a side the ranks share a
  // process and the kernel's loopback path, modelled as the NIC (α = one packet, β = 1/NIC).
  static coll::LinkModel link_model(const Scenario& s, const Profile& profile);
  void absorb(std::uint32_t side, std::vector<nlohmann::json> msgs);
  bool endpoints_lost(Instant now);
  bool emulator_lost(Instant now);
  // The path controllers' interval, when one ended: the emulator's counters read, the moves
  // sent to the endpoints.
  void steer(Instant now);
  // The phases due by `now` applied through the control endpoint (a refusal is a fault).
  void apply_phases(Instant now);
  void probe_restarted_emulator();

  struct Restart {
    Instant died;
    std::size_t fault;  // its entry in faults_
    Instant next_probe = kEpoch;
  };

  const LiveContext& c_;
  Teardown& td_;
  EmulatorLauncher& emu_;
  std::array<std::unique_ptr<endpoints::LineChannel>, 2>& ch_;
  const endpoints::RunTime& rt_;
  std::vector<std::string>& faults_;
  EventLoop loop_;
  coll::Placement placement_;
  LiveSteering steering_;
  std::optional<EmuControl> emu_control_;  // when steering
  Instant next_steer_ = kNever;
  bool steer_failed_ = false;  // a GET /stats failed (reported once)
  std::vector<TimedProfile> phases_;
  std::size_t next_phase_ = 0;
  Coordinator coord_;
  CollectiveDriver driver_;
  LiveFlows flows_;
  std::array<nlohmann::json, 2> stats_{};
  // Every stats message of the run, a line each (DIR/live/endpoint-X-timeline.jsonl): the
  // counters and the queue pairs' state once a second, for finding when a run went wrong.
  std::array<std::ofstream, 2> timeline_;
  LiveSeries series_;  // the stats messages come at the scenario's interval
  LinkWatch links_;
  std::optional<Restart> restart_;
  int restarts_left_;
};

}  // namespace gw
