// result.json (`result/v1`, docs/scenarios.md) read once into typed records, every field
// validated where it is read: a malformed result is an InputError naming the file, the JSON
// path and the reason (`result.json: $.collectives[2].end_ns: must not precede start_ns`).
// Keys this reader does not know are ignored, so reports keep working as results grow.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/stats.h"
#include "core/time.h"

namespace gw::reports {

// Where an op's time went (result.json `attribution`, harness/run/time_attribution.h): the parts
// in this order, which add up to its CCT.
inline constexpr std::array<std::string_view, 8> kTimePartNames = {
    "propagation", "serialization", "nccl_window",   "queueing",
    "cwnd_window", "cc_cuts",       "loss_recovery", "other"};
struct AttributionRecord {
  std::array<Duration, kTimePartNames.size()> parts{};
  bool transport_measured = false;
  std::uint64_t retransmits = 0;
  std::uint64_t timeouts = 0;
  std::uint64_t cc_cuts = 0;
  std::uint64_t cnps = 0;
};

struct CollectiveRecord {
  std::string name;
  std::string op;         // "all_reduce", "all_gather", ...
  std::string algorithm;  // "ring", "tree", ...
  std::uint64_t bytes = 0;
  std::int64_t ranks = 0;
  std::int64_t iteration = 0;
  Duration cct{0};                    // end - start
  std::optional<Duration> predicted;  // the simulator's alpha-beta prediction
  // Its bounds: the links, and NCCL's window (absent in older results or without the model).
  std::optional<Duration> predicted_network;
  std::optional<Duration> predicted_window;
  double busbw_factor = 1;                       // nccl-tests: 2(n-1)/n for all-reduce, ...
  std::optional<AttributionRecord> attribution;  // absent in older results
};

struct IterationRecord {
  std::int64_t index = 0;
  Duration length{0};  // end - start
  Duration compute{0};
  Duration exposed_comm{0};
};

struct FlowRecord {
  std::int64_t id = 0;
  std::string from;
  std::string to;
  std::string cc;
  std::uint64_t size_bytes = 0;  // 0: bulk
  double goodput_bps = 0;
  std::uint64_t packets_sent = 0;
  std::uint64_t retransmits = 0;
  std::uint64_t timeouts = 0;
  std::uint64_t marks_ce = 0;
  Percentiles rtt_ns;
  std::optional<Duration> completion;
  std::string traffic_class;  // background flows' class ("storage", "tenant", ...); "" = workload
};

// Background traffic beside the workload (result.json "background"), one record per class.
struct BackgroundRecord {
  std::string traffic_class;
  std::uint64_t flows = 0;
  std::uint64_t bytes_delivered = 0;
  double goodput_bps = 0;  // sum of the class's flows
  std::uint64_t retransmits = 0;
};

struct PathRecord {
  std::string name;
  bool wan = false;
  std::uint64_t packets_in = 0;
  std::uint64_t delivered = 0;
  std::map<std::string, std::uint64_t> dropped;  // by cause
  std::uint64_t marked_ce = 0;
  std::uint64_t duplicated = 0;
  std::uint64_t corrupted = 0;
  std::uint64_t reordered = 0;
  Percentiles queue_bytes;
  Percentiles queue_delay_ns;
};

// result.json "steering" (docs/steering.md "Results"): one path of a steered region pair.
struct SteeredPathRecord {
  std::string from;
  std::string to;
  std::uint64_t index = 0;
  std::vector<std::string> via;
  std::uint64_t capacity_bps = 0;
  std::uint64_t bytes = 0;
  std::vector<double> weight;
  std::vector<double> utilization;
  std::vector<std::uint64_t> queue_pairs;
};

struct SteeringEventRecord {
  std::int64_t t_ns = 0;
  std::string from;
  std::string to;
  std::uint64_t index = 0;
  std::string kind;
  std::int64_t reaction_ns = -1;
};

struct SteeringRecord {
  std::string policy;
  Duration interval{0};
  std::uint64_t moves = 0;
  std::vector<SteeredPathRecord> paths;
  std::vector<std::int64_t> decision_t_ns;  // when queue pairs moved
  std::vector<SteeringEventRecord> events;
};

struct AccountingRecord {
  bool present = false;
  std::uint64_t packets_sent = 0;
  std::uint64_t packets_received = 0;
  std::uint64_t dropped = 0;  // all causes
  bool balanced = false;
};

// scenario "cost": what an idle GPU costs (docs/reports.md "GPU idle and cost").
struct CostSettings {
  // GPUs priced: `cost.gpus`, or (absent or 0) the simulated ranks, one GPU each.
  double gpus = 0;
  double simulated_ranks = 0;  // the scenario's hosts, one rank each
  double usd_per_gpu_hour = 0;
  double gpu_watts = 0;
  double run_hours = 0;
};

// One entry of scenario "thresholds", in key order, with its JSON path for error messages.
struct Threshold {
  std::string name;
  nlohmann::json limit;
  std::string path;
};

struct ResultInput {
  std::string file;
  std::string scenario;
  std::string scenario_file;
  std::uint64_t seed = 0;
  std::string mode;
  Duration duration{0};
  std::vector<FlowRecord> flows;
  std::vector<BackgroundRecord> background;
  std::vector<PathRecord> paths;
  std::optional<SteeringRecord> steering;
  std::vector<CollectiveRecord> collectives;
  std::vector<IterationRecord> iterations;
  std::optional<Percentiles> one_way_delay_ns;
  // The transport's own totals over every queue pair (result.json "packets"): for collective
  // and training workloads the connections carrying the collectives are not in `flows`.
  struct TransportTotals {
    std::uint64_t packets_sent = 0;
    std::uint64_t retransmits = 0;
    std::uint64_t timeouts = 0;
  };
  std::optional<TransportTotals> transport;
  // Ops and iterations the run ended before (end_ns -1 in result.json): left out of the
  // statistics, counted here and failed by the workload_completed check.
  std::uint64_t unfinished_collectives = 0;
  std::uint64_t unfinished_iterations = 0;
  // Iterations at the start left out (result "warmup_iterations"; 0 when absent): their ops and
  // iterations, and the baseline's, are dropped before any statistic. When the run has no more
  // iterations than that, nothing is dropped and warmup_kept says so.
  std::uint64_t warmup_iterations = 0;
  std::uint64_t warmup_excluded_iterations = 0;
  bool warmup_kept = false;
  bool has_baseline = false;
  std::vector<CollectiveRecord> baseline_collectives;
  std::vector<IterationRecord> baseline_iterations;
  AccountingRecord accounting;
  std::optional<CostSettings> cost;
  std::vector<Threshold> thresholds;
  // The scenario's transport (scenario_json.transport), for the report's warnings.
  std::string cc = "cubic";
  nlohmann::json cc_params = nlohmann::json::object();
  std::string recovery = "selective_repeat";
};

// Throws InputError (file = `file`) for a malformed result.
ResultInput read_result(const nlohmann::json& result, const std::string& file);

}  // namespace gw::reports
