// The typed model of a scenario file (`"gradwall": "scenario/v1"`, docs/scenarios.md): the
// topology (regions, WAN links from profiles or netem strings, relays, routes), the workload,
// the transport and its congestion control, and what to record. The loader validates
// everything once; errors name the file, the JSON path and the reason.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/time.h"
#include "emulator/fabric/network.h"
#include "generators/cc/congestion_control.h"
#include "generators/transport/transport_config.h"

namespace gw {

struct FlowSpec {
  std::string from;  // region names
  std::string to;
  std::uint32_t count = 1;
  std::string cc;  // empty: the transport's
  cc::CcParams cc_params;
  Duration start{0};
  std::uint64_t bytes = 0;  // 0: send for the whole run (bulk)
  // Fixed hosts (index within the region); otherwise the flows of the entry take the
  // region's hosts in turn.
  std::optional<std::uint32_t> from_host;
  std::optional<std::uint32_t> to_host;
};

struct WorkloadSpec {
  std::string kind = "flows";
  Duration duration{0};
  std::vector<FlowSpec> flows;
};

struct TransportSpec {
  std::string cc = "cubic";
  cc::CcParams cc_params;
  // Scenario defaults differ from the queue pair's in one place: selective repeat, because a
  // WAN window holds thousands of packets and go-back-N would resend all of them per loss.
  transport::TransportConfig config = [] {
    transport::TransportConfig c;
    c.recovery = transport::Recovery::kSelectiveRepeat;
    return c;
  }();
};

struct Scenario {
  std::string file;
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  fabric::TopologySpec topology;
  WorkloadSpec workload;
  TransportSpec transport;
  Duration interval{100'000'000};  // time-series sampling
  nlohmann::json source;           // the document as read, kept in results
};

Scenario load_scenario(const std::string& file);
Scenario parse_scenario(const nlohmann::json& doc, const std::string& file);

// A JSON document's kind from its "gradwall" key ("profile/v1", "scenario/v1"), or empty.
std::string document_kind(const nlohmann::json& doc);

}  // namespace gw
