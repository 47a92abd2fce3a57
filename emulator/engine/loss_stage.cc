#include "emulator/engine/loss_stage.h"

namespace gw {

LossStage::LossStage(const LossSettings& s, std::uint64_t seed, const std::string& stream,
                     const std::string& flow_stream, const FlowStreamSettings& flows)
    : s_(s), ge_(ge_thresholds(s)), draws_(fresh(Rng(seed, stream)), seed, flow_stream, flows) {}

LossStage::GeThresholds LossStage::ge_thresholds(const LossSettings& s) {
  return {scaled_probability(s.ge_p), scaled_probability(s.ge_r), scaled_probability(s.ge_1_h),
          scaled_probability(s.ge_1_k)};
}

void LossStage::set_settings(const LossSettings& s) {
  const bool model_changed = s.model != s_.model;
  s_ = s;
  ge_ = ge_thresholds(s);
  draws_.for_each([&](Draws& d) {
    if (model_changed) {
      d.state = State::kGapTx;
      d.ge_bad = false;
    }
    d.cor.set_correlation(s.correlation);
  });
}

bool LossStage::lose_4state(Draws& d) {
  State& state = d.state;
  const double u = d.rng.uniform();
  switch (state) {
    case State::kGapTx:
      if (u < s_.p14) {
        state = State::kIsolatedLoss;
        return true;
      }
      if (u < s_.p13 + s_.p14) {
        state = State::kBurstLoss;
        return true;
      }
      return false;
    case State::kBurstTx:
      if (u < s_.p23) {
        state = State::kBurstLoss;
        return true;
      }
      return false;
    case State::kBurstLoss:
      if (u < s_.p32) {
        state = State::kBurstTx;
        return false;
      }
      if (u < s_.p31 + s_.p32) {
        state = State::kGapTx;
        return false;
      }
      return true;
    case State::kIsolatedLoss:
      state = State::kGapTx;
      return false;
  }
  return false;
}

bool LossStage::lost(Packet& p, StageOutput& out) {
  if (s_.ecn && ecn_capable(p.headers.ecn)) {
    if (p.headers.ecn != Ecn::kCe) {
      p.headers.ecn = Ecn::kCe;
      p.ce_marked = true;
      out.marked(p);
    }
    return true;
  }
  out.drop(std::move(p), DropCause::kLoss);
  return false;
}

void LossStage::push(Packet&& p, Instant /*now*/, StageOutput& out) {
  if (pass(p, out)) {
    out.emit(std::move(p));
  }
}

}  // namespace gw
