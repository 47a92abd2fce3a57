// netem `duplicate P [CORR]`: with probability P (correlated draw) a packet is sent twice.
// The copy (Packet::duplicate set) follows the original through the rest of the pipeline as a
// packet of its own; the owner copies the buffer when it is delivered. netem re-enqueues the
// copy at the root qdisc with duplication off; here it skips only this stage, which is the
// same thing for a single netem-like pipeline.
#pragma once

#include <string>

#include "core/rng.h"
#include "emulator/engine/correlated.h"
#include "emulator/engine/flow_streams.h"
#include "emulator/engine/spec.h"
#include "emulator/engine/stage.h"

namespace gw {

class DuplicateStage final : public Stage {
 public:
  // `flow_stream` and `flows`: per-flow streams (flow_streams.h); off by default.
  DuplicateStage(const ChanceSettings& s, std::uint64_t seed, const std::string& stream,
                 const std::string& flow_stream = {}, const FlowStreamSettings& flows = {});
  void set_settings(const ChanceSettings& s);

  void push(Packet&& p, Instant now, StageOutput& out) override;
  bool timed() const override { return false; }
  std::uint64_t flows() const { return draws_.flows(); }
  std::uint64_t flow_table_misses() const { return draws_.full_misses(); }
  std::string name() const override { return "duplicate"; }

 private:
  ChanceSettings s_;
  StageDraws<CorrelatedDraws> draws_;
};

}  // namespace gw
