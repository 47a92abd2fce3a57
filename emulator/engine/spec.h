// The typed, validated model of a profile: settings only, no running state. The loader
// (profile.h) builds these from JSON once; stages take them by value and convert to integer
// state. Field names mirror the JSON keys (docs/profiles.md); units are in the types.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/rate.h"
#include "core/time.h"
#include "emulator/engine/packet.h"

namespace gw {

// ---- delay, jitter, reorder (netem `delay`, `distribution`, `reorder`) --------------------
enum class ReorderPolicy : std::uint8_t {
  kNetem,     // release in time-to-send order: jitter may reorder, as the kernel does
  kPreserve,  // release times never go backwards within a direction
};

struct DistributionTable {
  std::string name;                  // "uniform" (no table), "normal", "pareto", "paretonormal", or a path
  std::vector<std::int16_t> values;  // inverse CDF scaled by 8192 (NETEM_DIST_SCALE); empty = uniform
};

struct DelaySettings {
  Duration delay{0};       // base one-way delay (propagation); may come from distance_km
  double distance_km = 0;  // informative: when given, delay = distance / 200,000 km/s
  Duration jitter{0};
  double correlation = 0;  // [0,1], netem's get_crandom smoothing
  DistributionTable distribution{"uniform", {}};
  ReorderPolicy reorder_policy = ReorderPolicy::kNetem;
  // netem `reorder P [CORR] [gap N]`: every gap-th packet is a candidate, sent at once with p.
  double reorder_p = 0;
  double reorder_correlation = 0;
  std::uint32_t reorder_gap = 0;  // 0 = not given (netem: gap 0 means every packet is a candidate)
};

// ---- loss (netem `loss`) ------------------------------------------------------------------
enum class LossModel : std::uint8_t { kRandom, kState, kGemodel };

struct LossSettings {
  LossModel model = LossModel::kRandom;
  double p = 0;            // random: probability
  double correlation = 0;  // random only
  // state (4-state Markov): p13, p31, p32, p23, p14
  double p13 = 0, p31 = 1, p32 = 0, p23 = 1, p14 = 0;
  // gemodel: p (good->bad), r (bad->good), h (1-h = loss in bad), k (1-k = loss in good)
  double ge_p = 0, ge_r = 1, ge_1_h = 1, ge_1_k = 0;
  bool ecn = false;  // mark CE instead of dropping ECN-capable packets
};

// ---- duplicate, corrupt ------------------------------------------------------------------
struct ChanceSettings {
  double p = 0;
  double correlation = 0;
};

// ---- rate (netem `rate`, traces) ---------------------------------------------------------
struct RateTracePoint {
  Duration at{0};
  BitRate rate{};
};

struct RateSettings {
  BitRate rate{};                          // 0 = unlimited
  std::int32_t packet_overhead_bytes = 0;  // may be negative (netem allows it)
  std::uint32_t cell_bytes = 0;
  std::int32_t cell_overhead_bytes = 0;
  // Trace-driven rate: piecewise constant (time, rate), repeating with `trace_period` if > 0.
  std::vector<RateTracePoint> trace;
  Duration trace_period{0};
  std::string trace_file;  // where it came from, for messages and to-netem
  // Mahimahi delivery opportunities: each entry is one MTU-sized (1504 B) opportunity at that
  // time; the list repeats every `mahimahi_period`.
  std::vector<Duration> mahimahi;
  Duration mahimahi_period{0};
  std::string mahimahi_file;
};

// ---- AQMs (docs/references.md §2) --------------------------------------------------------------
enum class AqmKind : std::uint8_t { kDropTail, kRed, kCodel, kPie, kDualPi2, kThreshold };

struct RedSettings {  // Floyd & Jacobson 1993; gentle per Floyd 2000
  std::uint64_t min_bytes = 0;
  std::uint64_t max_bytes = 0;
  double max_p = 0.1;
  double weight = 0.002;  // wq
  bool gentle = true;
  bool ecn = false;
  std::uint32_t mean_packet_bytes = 1500;  // for idle-time decay of avg
};

struct CodelSettings {  // RFC 8289
  Duration target{5'000'000};
  Duration interval{100'000'000};
  bool ecn = false;
};

struct PieSettings {  // RFC 8033
  Duration target{15'000'000};
  Duration t_update{15'000'000};
  double alpha = 0.125;
  double beta = 1.25;
  Duration max_burst{150'000'000};
  bool ecn = false;
  double mark_ecn_threshold = 0.1;  // mark instead of drop while drop_prob <= this
};

struct DualPi2Settings {  // RFC 9332; Linux sch_dualpi2 defaults noted in the loader
  Duration target{15'000'000};
  Duration t_update{16'000'000};
  double alpha = 0.16;  // per second (Linux units: Hz)
  double beta = 3.2;
  double coupling_k = 2;
  Duration l_step{1'000'000};  // L queue native step marking threshold
  bool c_ecn = true;           // classic ECT(0) packets are marked rather than dropped
};

struct ThresholdSettings {  // instantaneous-queue marking (DCQCN / DCTCP switches)
  std::uint64_t kmin_bytes = 0;
  std::uint64_t kmax_bytes = 0;
  double pmax = 1.0;
};

struct AqmSettings {
  AqmKind kind = AqmKind::kDropTail;
  RedSettings red;
  CodelSettings codel;
  PieSettings pie;
  DualPi2Settings dualpi2;
  ThresholdSettings threshold;
};

// ---- microbursts: cross traffic into the bottleneck queue -----------------------------------
struct MicroburstSettings {
  Duration period{0};
  Duration start{0};
  std::uint64_t burst_bytes = 0;
  std::uint32_t packet_bytes = 1500;
  Duration jitter{0};    // uniform +-jitter on each burst's start
  BitRate burst_rate{};  // how fast the burst arrives (0 = all at once)
};

struct IntSettings {
  bool enabled = false;
  std::uint32_t node_id = 0;
};

struct QueueSettings {
  std::optional<std::uint64_t> limit_packets;
  std::optional<std::uint64_t> limit_bytes;
  std::optional<Duration> limit_time;  // drop at dequeue when sojourn exceeds this
  AqmSettings aqm;
  std::vector<MicroburstSettings> microbursts;
  IntSettings telemetry;
};

// ---- slot (netem `slot`) ------------------------------------------------------------------
struct SlotSettings {
  Duration min_delay{0};
  Duration max_delay{0};  // uniform gap in [min, max] when no distribution
  bool use_distribution = false;
  DistributionTable distribution{"uniform", {}};
  Duration dist_delay{0};
  Duration dist_jitter{0};
  std::int64_t max_packets = 0;  // 0 = no budget
  std::int64_t max_bytes = 0;
};

// ---- incast: per-destination egress ports sharing one buffer ------------------------------
struct Prefix {
  IpAddress address{};
  std::uint8_t length = 0;  // in bits over the 128-bit form (IPv4 /24 = 96 + 24)
  std::string text;
};

struct IncastPortSettings {
  Prefix match;
  BitRate rate{};
};

struct IncastBurstSettings {
  Prefix to;  // destination (the port it lands on)
  std::uint32_t senders = 0;
  std::uint64_t bytes_each = 0;
  std::uint32_t packet_bytes = 1500;
  Duration start{0};
  Duration period{0};     // 0 = once
  BitRate sender_rate{};  // each virtual sender's rate (0 = all at once)
};

struct IncastSettings {
  std::uint64_t buffer_bytes = 0;
  double alpha = 1.0;  // dynamic threshold: a port may hold alpha * (free buffer)
  std::vector<IncastPortSettings> ports;
  std::vector<IncastBurstSettings> bursts;
};

// ---- one direction --------------------------------------------------------------------------
struct DirectionSpec {
  std::optional<std::uint64_t> limit_packets;  // netem `limit`: packets held in the pipeline
  std::optional<LossSettings> loss;
  std::optional<ChanceSettings> duplicate;
  std::optional<ChanceSettings> corrupt;
  std::optional<RateSettings> rate;
  std::optional<QueueSettings> queue;
  std::optional<DelaySettings> delay;
  std::optional<IncastSettings> incast;
  std::optional<SlotSettings> slot;
};

// ---- classes, phases, profile -------------------------------------------------------------
// A range of L4 ports, both ends included (one port: first == last).
struct PortRange {
  std::uint16_t first = 0;
  std::uint16_t last = 0;
  bool contains(std::uint16_t port) const { return port >= first && port <= last; }
  bool operator==(const PortRange&) const = default;
};

struct ClassMatch {
  std::vector<Prefix> src;
  std::vector<Prefix> dst;
  std::optional<std::uint8_t> protocol;
  std::vector<PortRange> src_ports;
  std::vector<PortRange> dst_ports;
  std::optional<std::uint8_t> dscp;
  std::optional<Ecn> ecn;
  std::optional<bool> roce;
  std::vector<std::uint8_t> roce_opcodes;
  std::optional<std::uint32_t> roce_dest_qp;
};

struct ClassSpec {
  std::string name;
  ClassMatch match;
  DirectionSpec a_to_b;
  DirectionSpec b_to_a;
};

struct ClassDirections {
  DirectionSpec a_to_b;
  DirectionSpec b_to_a;
};

struct PhaseSpec {
  Duration at{0};
  std::string name;
  DirectionSpec a_to_b;  // the whole direction as it is from `at` on (patch already applied)
  DirectionSpec b_to_a;
  // Every class's directions from `at` on, in the profile's class order (patched or not).
  std::vector<ClassDirections> classes;
};

// ---- random streams (flow_streams.h) -------------------------------------------------------
// "streams": "per_flow": the loss, duplicate, corrupt and delay stages draw per flow.
struct FlowStreamSettings {
  bool per_flow = false;
  std::uint64_t max_flows = 65536;          // flows with an entry at once, per stage and rx queue
  Duration idle{std::chrono::seconds{30}};  // a flow idle this long starts its streams over
};

struct Profile {
  std::string file;
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  // b_to_a's draws from this seed instead of `seed`: a live run gives each direction the seed
  // the simulator gives that direction's hop, so both draw the same losses (docs/profiles.md
  // "Determinism").
  std::optional<std::uint64_t> seed_b_to_a;
  FlowStreamSettings streams;
  DirectionSpec a_to_b;
  DirectionSpec b_to_a;
  std::vector<ClassSpec> classes;
  std::vector<PhaseSpec> phases;
};

}  // namespace gw
