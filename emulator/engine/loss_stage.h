// netem loss models (sch_netem.c loss_event, loss_4state, loss_gilb_ell; tc-netem(8)):
//  - random: Bernoulli p on netem's correlated uniform;
//  - state: the 4-state Markov chain of Salsano et al. (1 gap-TX, 2 burst-TX, 3 burst-loss,
//    4 isolated-loss), one draw per packet, transitions per docs/references.md §1;
//  - gemodel: Gilbert-Elliott; per packet first the state transition (good->bad with p,
//    bad->good with r), then the loss draw with the loss probability of the state the packet
//    arrived in (1-k in good, 1-h in bad), as netem orders them.
// With `ecn`, a packet the model would lose is marked CE instead when it is ECN-capable;
// Not-ECT packets are still dropped.
#pragma once

#include <cstdint>
#include <string>

#include "core/rng.h"
#include "emulator/engine/correlated.h"
#include "emulator/engine/flow_streams.h"
#include "emulator/engine/spec.h"
#include "emulator/engine/stage.h"

namespace gw {

class LossStage final : public Stage {
 public:
  enum class State : std::uint8_t { kGapTx = 1, kBurstTx = 2, kBurstLoss = 3, kIsolatedLoss = 4 };

  // `flow_stream` and `flows`: per-flow streams (flow_streams.h); off by default.
  LossStage(const LossSettings& s, std::uint64_t seed, const std::string& stream,
            const std::string& flow_stream = {}, const FlowStreamSettings& flows = {});
  void set_settings(const LossSettings& s);

  void push(Packet&& p, Instant now, StageOutput& out) override;
  // push() without passing p on: true when p goes on (perhaps marked CE), false when it went
  // to out.drop. The pipeline's direct path (pipeline.cc) calls this.
  bool pass(Packet& p, StageOutput& out) {
    return !lose_next(draws_.of(p, [this](Rng rng) { return fresh(rng); })) || lost(p, out);
  }
  bool timed() const override { return false; }
  std::string name() const override { return "loss"; }

  // The model's decision for the next packet on the stage's own stream (advances the model).
  // Public for tests.
  bool lose_next() { return lose_next(draws_.own()); }
  State state() const { return draws_.own().state; }
  bool ge_bad() const { return draws_.own().ge_bad; }
  std::uint64_t flows() const { return draws_.flows(); }
  std::uint64_t flow_table_misses() const { return draws_.full_misses(); }

 private:
  // What the model draws from and remembers: the stage's, or one flow's.
  struct Draws {
    Rng rng;
    CorrelatedUniform cor;
    State state = State::kGapTx;
    bool ge_bad = false;
  };
  Draws fresh(Rng rng) const {
    Draws d{rng, {}, State::kGapTx, false};
    d.cor = CorrelatedUniform(s_.correlation, d.rng);
    return d;
  }
  bool lose_next(Draws& d) {
    switch (s_.model) {
      case LossModel::kRandom:
        return d.cor.chance(s_.p, d.rng);
      case LossModel::kState:
        return lose_4state(d);
      case LossModel::kGemodel:
        return lose_gemodel(d);
    }
    return false;
  }
  bool lose_4state(Draws& d);
  // The model lost p: marked CE instead (true, p goes on) or dropped through out (false).
  bool lost(Packet& p, StageOutput& out);
  // Inline, as the most used model: first the transition, then the loss draw in the state the
  // packet arrived in. One 64-bit draw gives both 32-bit uniforms (the high half decides the
  // transition, the low half the loss), each compared with its probability scaled to 2^32 as
  // netem compares its u32 draws (loss_gilb_ell); the halves of a xoshiro256** output are
  // independent uniforms.
  bool lose_gemodel(Draws& d) {
    const bool was_bad = d.ge_bad;
    const std::uint64_t u = d.rng.next_u64();
    const std::uint64_t transition = u >> 32;
    const std::uint64_t loss = u & 0xffff'ffffU;
    if (!was_bad && transition < ge_.p) {
      d.ge_bad = true;
    } else if (was_bad && transition < ge_.r) {
      d.ge_bad = false;
    }
    return loss < (was_bad ? ge_.loss_in_bad : ge_.loss_in_good);
  }
  // The Gilbert-Elliott probabilities scaled to 2^32 (scaled_probability).
  struct GeThresholds {
    std::uint64_t p = 0, r = 0, loss_in_bad = 0, loss_in_good = 0;
  };
  static GeThresholds ge_thresholds(const LossSettings& s);

  LossSettings s_;
  GeThresholds ge_;
  StageDraws<Draws> draws_;
};

}  // namespace gw
