// What happened to a stream of packets pushed through an engine: counters by cause, one-way
// delay and queue percentiles, goodput. Shared by `profile probe` and `replay`, so both print
// the same table and the same JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/stats.h"
#include "emulator/engine/pipeline.h"

namespace gw {

struct ImpairmentSummary {
  PipelineCounters counters;
  Percentiles delay_ns;     // release - arrival of delivered packets (copies included)
  Percentiles queue_bytes;  // bottleneck occupancy seen by each arriving packet
  double goodput_bps = 0;   // original (non-duplicate) bytes delivered over the active span
  Duration span{0};         // first arrival to last release
  std::uint64_t held_at_end = 0;
};

// A sink that records what the summary needs and forwards to another sink (or nowhere).
class SummarySink final : public PacketSink {
 public:
  explicit SummarySink(PacketSink* next = nullptr) : next_(next) {}
  void deliver(Packet&& p) override;
  void dropped(Packet&& p, DropCause cause) override;

  // Record the queue occupancy an arriving packet sees, and its arrival (for the span).
  void arrival(Instant now, std::uint64_t queue_bytes);
  ImpairmentSummary finish(const PipelineCounters& totals, std::uint64_t held_at_end);

 private:
  PacketSink* next_;
  std::vector<std::int64_t> delays_;
  std::vector<std::int64_t> queue_;
  std::uint64_t original_bytes_ = 0;
  Instant first_{kNever};
  Instant last_{};
};

nlohmann::json to_json(const ImpairmentSummary& s);
std::string to_table(const ImpairmentSummary& s);

// Checks received = delivered - duplicates + dropped + held; an empty string when it balances,
// else what is off.
std::string accounting_error(const ImpairmentSummary& s);

}  // namespace gw
