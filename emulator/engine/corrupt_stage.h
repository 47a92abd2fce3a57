// netem `corrupt P [CORR]`: with probability P (correlated draw) one bit of the packet is
// flipped. sch_netem.c picks a random byte of the linear data and a random bit in it; here
// the bit is drawn uniformly over the whole frame, which is the same distribution for a
// linear buffer. The engine records the bit (Packet::corrupt_bit); the owner flips it.
#pragma once

#include <string>

#include "core/rng.h"
#include "emulator/engine/correlated.h"
#include "emulator/engine/flow_streams.h"
#include "emulator/engine/spec.h"
#include "emulator/engine/stage.h"

namespace gw {

class CorruptStage final : public Stage {
 public:
  // `flow_stream` and `flows`: per-flow streams (flow_streams.h); off by default.
  CorruptStage(const ChanceSettings& s, std::uint64_t seed, const std::string& stream,
               const std::string& flow_stream = {}, const FlowStreamSettings& flows = {});
  void set_settings(const ChanceSettings& s);

  void push(Packet&& p, Instant now, StageOutput& out) override;
  bool timed() const override { return false; }
  std::uint64_t flows() const { return draws_.flows(); }
  std::uint64_t flow_table_misses() const { return draws_.full_misses(); }
  std::string name() const override { return "corrupt"; }

 private:
  ChanceSettings s_;
  StageDraws<CorrelatedDraws> draws_;
};

}  // namespace gw
