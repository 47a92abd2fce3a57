// What a simulation measured (ARCHITECTURE.md "Result"): per flow, per hop of the network,
// time series, and the packet accounting, with the scenario and seed that produced it.
// Reports are computed from this alone; result.json is its JSON form (sim_result.cc).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/stats.h"
#include "core/time.h"
#include "emulator/fabric/network.h"

namespace gw {

struct FlowResult {
  std::uint32_t id = 0;
  std::string from;  // "a/0": region and host index
  std::string to;
  std::string cc;
  Duration start{0};
  std::uint64_t size_bytes = 0;       // 0: bulk for the whole run
  std::uint64_t bytes_delivered = 0;  // payload acknowledged to the sender
  std::uint64_t goodput_bps = 0;      // bytes_delivered * 8 / active time
  std::uint64_t packets_sent = 0;
  std::uint64_t retransmits = 0;      // packets sent again
  std::uint64_t marks_ce = 0;         // data packets that arrived CE-marked
  std::uint64_t cnps = 0;             // CNPs the sender received
  std::uint64_t timeouts = 0;         // retransmission timeouts
  Percentiles rtt_ns;                 // per RTT sample (Karn: none from retransmissions)
  std::uint64_t mean_cwnd_bytes = 0;  // time-weighted over the flow's active time
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
  std::vector<std::vector<std::uint64_t>> hop_queue_bytes;  // [hop][sample]
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

struct SimResult {
  std::string scenario;
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
  nlohmann::json scenario_json;
};

nlohmann::json to_json(const SimResult& r);
double jain_index(const std::vector<double>& x);

}  // namespace gw
