// netem loss models (sch_netem.c loss_event, loss_4state, loss_gilb_ell; tc-netem(8)):
//  - random: Bernoulli p on netem's correlated uniform;
//  - state: the 4-state Markov chain of Salsano et al. (1 gap-TX, 2 burst-TX, 3 burst-loss,
//    4 isolated-loss), one draw per packet, transitions per REFERENCES.md §1;
//  - gemodel: Gilbert-Elliott; per packet first the state transition (good->bad with p,
//    bad->good with r), then the loss draw with the loss probability of the state the packet
//    arrived in (1-k in good, 1-h in bad), as netem orders them.
// With `ecn`, a packet the model would lose is marked CE instead when it is ECN-capable;
// Not-ECT packets are still dropped.
#pragma once

#include <string>

#include "core/rng.h"
#include "emulator/engine/correlated.h"
#include "emulator/engine/spec.h"
#include "emulator/engine/stage.h"

namespace gw {

class LossStage final : public Stage {
 public:
  enum class State : std::uint8_t { kGapTx = 1, kBurstTx = 2, kBurstLoss = 3, kIsolatedLoss = 4 };

  LossStage(const LossSettings& s, std::uint64_t seed, const std::string& stream);
  void set_settings(const LossSettings& s);

  void push(Packet&& p, Instant now, StageOutput& out) override;
  bool timed() const override { return false; }
  std::string name() const override { return "loss"; }

  // The model's decision for the next packet (advances the model). Public for tests.
  bool lose_next();
  State state() const { return state_; }
  bool ge_bad() const { return ge_bad_; }

 private:
  bool lose_4state();
  bool lose_gemodel();

  LossSettings s_;
  Rng rng_;
  CorrelatedUniform cor_;
  State state_ = State::kGapTx;
  bool ge_bad_ = false;
};

}  // namespace gw
