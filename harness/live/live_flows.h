// The scenario's flows in a live run (docs/guide/live.md "Flows"): the flows of a "flows"
// workload and the background traffic of any workload, as the simulator runs them
// (sim_runner.cc). Each flow is a connection of its own, a sending queue pair on its source
// side's endpoint toward its destination side:
//   bulk (bytes 0)     two messages of 64 MiB outstanding from its start, one more posted as
//                      each arrives, so the sender never runs dry (a message is far longer
//                      than a window on any path the bench emulates);
//   finite (bytes N)   one message of N bytes; its completion is when the last byte arrived;
//   microburst         `bytes` posted every `period` from its start.
// The coordinator posts; the endpoints report each message delivered. Message ids carry
// kFlowMessage so that the coordinator tells a flow's deliveries from a collective's.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/event_loop.h"
#include "harness/run/queue_pairs.h"
#include "harness/run/scenario.h"
#include "harness/run/sim_result.h"

namespace gw {

class LiveFlows final : public Wakeable {
 public:
  static constexpr std::uint64_t kFlowMessage = std::uint64_t{1} << 62;

  // Posts message `msg` of `bytes` on sending QP `qp` of side `side`, toward side `peer_side`;
  // `cc` and `params`, when set, the controller the QP opens with (the flow's own, given with
  // its first message).
  using Post =
      std::function<void(std::uint32_t side, std::uint32_t qp, std::uint32_t peer_side, std::uint64_t msg,
                         std::uint64_t bytes, const std::string& cc, const cc::CcParams& params)>;

  // `regions`: the two sides' region names; the scenario has passed check_live_scenario.
  LiveFlows(EventLoop& loop, const Scenario& s, const std::array<std::string, 2>& regions, Post post);

  // Arms the flows' starts (run time `kEpoch + start`, not before `now`).
  void start(Instant now);
  void wake(Instant now) override;
  static bool owns(std::uint64_t msg) { return (msg & kFlowMessage) != 0; }
  // Message `msg` (owns(msg)) arrived whole at `at`.
  void delivered(std::uint64_t msg, Instant at);

  // One FlowResult per flow, in the scenario's order, from the endpoints' last stats messages
  // (their sending queue pairs' counters); `stop`: when the run ended. summarize_flows adds
  // the per-class background and the fairness index.
  void add_results(const std::array<nlohmann::json, 2>& stats, Instant stop, SimResult& r) const;
  bool empty() const { return flows_.empty(); }

 private:
  struct Flow {
    FlowSpec spec;
    std::array<std::uint32_t, 2> side{};  // source, destination
    std::array<std::uint32_t, 2> host{};  // within their regions (for the result's names)
    std::uint32_t qp = 0;
    bool started = false;
    bool posted = false;          // its controller went with its first message
    Instant started_at = kNever;  // when it was first posted: the run starts after the epoch
    Instant next_burst = kNever;  // microburst: the next one
    Instant completed = kNever;   // finite: the last byte arrived
  };
  void post(Flow& f, std::uint64_t bytes);

  std::array<std::string, 2> regions_;
  std::string cc_;  // the transport's
  Post post_;
  Timer timer_;
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> flow_of_message_;  // by message number (id without kFlowMessage)
};

}  // namespace gw
