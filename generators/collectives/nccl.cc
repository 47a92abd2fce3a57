#include "generators/collectives/nccl.h"

#include "generators/collectives/step_graph.h"

#include <algorithm>

namespace gw::coll {

std::string_view protocol_name(Protocol p) {
  switch (p) {
    case Protocol::kSimple:
      return "simple";
    case Protocol::kLl128:
      return "ll128";
    case Protocol::kLl:
      return "ll";
  }
  return "simple";
}

bool parse_protocol(std::string_view name, Protocol& out) {
  for (const Protocol p : {Protocol::kSimple, Protocol::kLl128, Protocol::kLl}) {
    if (protocol_name(p) == name) {
      out = p;
      return true;
    }
  }
  return false;
}

double protocol_efficiency(Protocol p) {
  switch (p) {
    case Protocol::kSimple:
      return 1.0;
    case Protocol::kLl128:
      return 120.0 / 128.0;
    case Protocol::kLl:
      return 8.0 / 16.0;
  }
  return 1.0;
}

std::uint64_t default_buffsize(Protocol p) {
  switch (p) {
    case Protocol::kSimple:
      return std::uint64_t{1} << 22;
    case Protocol::kLl128:
      return std::uint64_t{120} * 640 * 8 * 8;
    case Protocol::kLl:
      return std::uint64_t{8} * 512 * 8 * 16;
  }
  return std::uint64_t{1} << 22;
}

std::uint64_t NcclConfig::slot_data_bytes() const {
  const double data = static_cast<double>(buffer_wire_bytes()) / steps * protocol_efficiency(protocol);
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(data));
}

std::uint64_t NcclConfig::p2p_slot_data_bytes() const {
  const double data = static_cast<double>(p2p_chunk_bytes) * protocol_efficiency(protocol);
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(data));
}

LinkModel network_bound(const LinkModel& links, const NcclConfig& nccl) {
  LinkModel out = links;
  for (AlphaBeta& m : out.pair) {
    m.beta_ns_per_byte /= protocol_efficiency(nccl.protocol);
  }
  return out;
}

LinkModel window_bound(const LinkModel& links, const NcclConfig& nccl, std::uint32_t channels,
                       double slot_rounding) {
  LinkModel out = links;
  const double window = nccl.window_data_bytes() * std::max<std::uint32_t>(1, channels);
  for (AlphaBeta& m : out.pair) {
    const Duration rtt = m.rtt.count() > 0 ? m.rtt : 2 * m.alpha;
    m.beta_ns_per_byte = static_cast<double>(rtt.count()) / window * slot_rounding;
  }
  return out;
}

namespace {

// The op's bytes in whole slots over its bytes, for n steps of bytes_at(i) each.
template <typename BytesAt>
double rounding_of(std::size_t n, BytesAt bytes_at, const NcclConfig& nccl) {
  const std::uint64_t slot = nccl.slot_data_bytes();
  double bytes = 0;
  double slots = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t b = bytes_at(i);
    bytes += static_cast<double>(b);
    slots += static_cast<double>(std::max<std::uint64_t>(1, (b + slot - 1) / slot));
  }
  return bytes > 0 ? slots * static_cast<double>(slot) / bytes : 1.0;
}

}  // namespace

double slot_rounding(const Schedule& schedule, const NcclConfig& nccl) {
  return rounding_of(
      schedule.steps.size(), [&](std::size_t i) { return schedule.steps[i].bytes; }, nccl);
}

double slot_rounding(const StepGraph& graph, const NcclConfig& nccl) {
  return rounding_of(
      graph.size(), [&](std::size_t i) { return graph.at(static_cast<std::uint32_t>(i)).bytes; }, nccl);
}

double slot_rounding(const FoldedRing& ring, const NcclConfig& nccl) {
  return rounding_of(
      ring.size(), [&](std::size_t i) { return ring.at(static_cast<std::uint32_t>(i)).bytes; }, nccl);
}

LinkModel both_bounds(const LinkModel& network, const LinkModel& window) {
  LinkModel out = network;
  for (std::size_t i = 0; i < out.pair.size() && i < window.pair.size(); ++i) {
    out.pair[i].beta_ns_per_byte = std::max(out.pair[i].beta_ns_per_byte, window.pair[i].beta_ns_per_byte);
  }
  return out;
}

}  // namespace gw::coll
