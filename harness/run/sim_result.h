// What a simulation measured (docs/architecture.md "Key shapes"): per flow, per hop of the network,
// time series, and the packet accounting, with the scenario and seed that produced it.
// Reports are computed from this alone; result.json is its JSON form (sim_result.cc).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/stats.h"
#include "core/time.h"
#include "emulator/fabric/network.h"
#include "harness/run/steering_result.h"
#include "harness/run/time_attribution.h"

namespace gw {

struct FlowResult {
  std::uint32_t id = 0;
  std::string from;  // "a/0": region and host index
  std::string to;
  std::string cc;
  // background flows: "storage", "tenant", "microburst"; "collective": a queue pair of a
  // collective's connection between two regions (one per channel and QP)
  std::string traffic_class;
  Duration start{0};
  std::uint64_t size_bytes = 0;       // 0: bulk for the whole run; microburst: per burst
  std::uint64_t bytes_delivered = 0;  // payload acknowledged to the sender
  std::uint64_t goodput_bps = 0;      // bytes_delivered * 8 / active time
  std::uint64_t packets_sent = 0;
  std::uint64_t retransmits = 0;           // packets sent again
  std::uint64_t marks_ce = 0;              // data packets that arrived CE-marked
  std::uint64_t cnps = 0;                  // CNPs the sender received
  std::uint64_t timeouts = 0;              // retransmission timeouts
  std::uint64_t loss_probes = 0;           // tail loss probes (RFC 8985 §7)
  std::uint64_t spurious_retransmits = 0;  // resends whose packet had arrived (the receiver's D-SACK flag)
  std::uint64_t loss_undos = 0;            // loss episodes undone: every "lost" packet had arrived
  Percentiles rtt_ns;                      // per RTT sample (Karn: none from retransmissions)
  std::uint64_t mean_cwnd_bytes = 0;       // time-weighted over the flow's active time
  std::uint64_t mean_pacing_rate_bps = 0;
  Duration completion{-1};  // finite transfers: time from start to the last byte acknowledged
};

struct HopResult {
  std::string name;
  bool wan = false;
  std::uint64_t rate_bps = 0;
  std::uint64_t packets_in = 0;
  std::uint64_t delivered = 0;
  std::map<std::string, std::uint64_t> dropped;  // by cause
  std::uint64_t marked_ce = 0;
  std::uint64_t duplicated = 0;
  std::uint64_t corrupted = 0;
  std::uint64_t reordered = 0;
  Percentiles queue_bytes;
  Percentiles queue_delay_ns;
  Percentiles sojourn_ns;
};

struct Series {
  Duration interval{0};
  std::vector<std::int64_t> t_ns;
  std::vector<std::vector<std::uint64_t>> flow_rate_bps;  // [flow][sample]
  std::vector<std::vector<std::uint64_t>> flow_cwnd_bytes;
  std::vector<std::vector<std::int64_t>> flow_srtt_ns;       // the sender's smoothed RTT at the sample
  std::vector<std::vector<std::uint64_t>> flow_retransmits;  // packets resent in the interval
  std::vector<std::vector<std::uint64_t>> hop_queue_bytes;   // [hop][sample]
};

struct Accounting {
  std::uint64_t packets_sent = 0;                // left a NIC into the network
  std::uint64_t packets_received = 0;            // reached a host
  std::uint64_t duplicates_made = 0;             // extra copies made by the network
  std::map<std::string, std::uint64_t> dropped;  // "hop/cause"
  std::uint64_t in_flight_at_end = 0;
  // Of packets_received: arrived with a flipped bit, so the receiver's ICRC check drops them.
  std::uint64_t corrupted_discarded = 0;
  // sent + duplicates = received + dropped + in flight
  bool balanced() const;
};

struct CollectiveOpResult {
  std::string name;
  std::string op;
  std::string algorithm;
  std::uint64_t bytes = 0;
  std::uint32_t ranks = 0;
  std::uint32_t channels = 1;
  std::uint32_t iteration = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = -1;       // -1: did not complete within the run's limit
  std::int64_t predicted_ns = 0;  // α-β model of the algorithm (generators/collectives)
  // Its two bounds (docs/collectives.md "NCCL's buffers"): the links, and NCCL's window per
  // round trip (-1: NCCL's buffers not modelled).
  std::int64_t predicted_network_ns = 0;
  std::int64_t predicted_window_ns = -1;
  double busbw_factor = 0;                     // nccl-tests
  std::optional<TimeAttribution> attribution;  // where end - start went; absent if unfinished
};

// Background traffic of one class, summed over its flows.
struct BackgroundResult {
  std::string traffic_class;
  std::uint32_t flows = 0;
  std::uint64_t bytes_delivered = 0;
  std::uint64_t goodput_bps = 0;  // sum of the flows' goodputs
  std::uint64_t retransmits = 0;
};

// A point-to-point transfer of a training workload (pipeline activations and gradients).
struct TransferResult {
  std::string name;  // "act[0][1]", "grad[2][0]", ...
  std::uint32_t src = 0;
  std::uint32_t dst = 0;
  std::uint64_t bytes = 0;
  std::uint32_t iteration = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = -1;  // -1: did not arrive within the run's limit
};

struct IterationResult {
  std::uint32_t index = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = -1;
  std::int64_t compute_ns = 0;
  std::int64_t exposed_comm_ns = -1;  // T_iter - T_compute
};

struct TransportTotals {  // over every connection, flows and collectives alike
  std::uint64_t packets_sent = 0;
  std::uint64_t retransmits = 0;
  std::uint64_t timeouts = 0;
  std::uint64_t loss_probes = 0;
  std::uint64_t spurious_retransmits = 0;
};

struct SimResult {
  std::string scenario;
  std::uint32_t warmup_iterations = 0;  // the scenario's results.warmup_iterations
  std::string scenario_file;
  std::uint64_t seed = 0;
  std::string mode = "sim";
  Duration duration{0};
  std::vector<FlowResult> flows;
  std::vector<HopResult> hops;
  double jain_fairness = 0;  // over the bulk flows' goodputs
  Series series;
  Accounting accounting;
  std::uint64_t events = 0;  // discrete events run
  bool completed = true;     // collective workloads: every iteration finished within the limit
  std::vector<CollectiveOpResult> collectives;
  std::vector<IterationResult> iterations;
  std::vector<TransferResult> transfers;
  std::vector<BackgroundResult> background;
  Percentiles one_way_delay_ns;  // data packets, sender NIC to receiver
  TransportTotals transport;
  std::optional<SteeringResult> steering;  // region pairs with several paths
  nlohmann::json scenario_json;
};

nlohmann::json to_json(const SimResult& r);
double jain_index(const std::vector<double>& x);
// `bytes` delivered over `active`, in bit/s (0 when `active` is not positive).
std::uint64_t goodput_bps(std::uint64_t bytes, Duration active);
// The summaries of r.flows that sim and live both report: the background per class, and Jain's
// index over the bulk flows' goodputs (size 0; background included, a collective's
// connections, class "collective", not).
void summarize_flows(SimResult& r);

}  // namespace gw
