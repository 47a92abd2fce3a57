// netem `corrupt P [CORR]`: with probability P (correlated draw) one bit of the packet is
// flipped. sch_netem.c picks a random byte of the linear data and a random bit in it; here
// the bit is drawn uniformly over the whole frame, which is the same distribution for a
// linear buffer. The engine records the bit (Packet::corrupt_bit); the owner flips it.
#pragma once

#include <string>

#include "core/rng.h"
#include "emulator/engine/correlated.h"
#include "emulator/engine/spec.h"
#include "emulator/engine/stage.h"

namespace gw {

class CorruptStage final : public Stage {
 public:
  CorruptStage(const ChanceSettings& s, std::uint64_t seed, const std::string& stream);
  void set_settings(const ChanceSettings& s);

  void push(Packet&& p, Instant now, StageOutput& out) override;
  bool timed() const override { return false; }
  std::string name() const override { return "corrupt"; }

 private:
  ChanceSettings s_;
  Rng rng_;
  CorrelatedUniform cor_;
};

}  // namespace gw
