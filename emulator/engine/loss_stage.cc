#include "emulator/engine/loss_stage.h"

namespace gw {

LossStage::LossStage(const LossSettings& s, std::uint64_t seed, const std::string& stream)
    : s_(s), rng_(seed, stream), cor_(s.correlation, rng_), ge_(ge_thresholds(s)) {}

LossStage::GeThresholds LossStage::ge_thresholds(const LossSettings& s) {
  return {scaled_probability(s.ge_p), scaled_probability(s.ge_r), scaled_probability(s.ge_1_h),
          scaled_probability(s.ge_1_k)};
}

void LossStage::set_settings(const LossSettings& s) {
  if (s.model != s_.model) {
    state_ = State::kGapTx;
    ge_bad_ = false;
  }
  s_ = s;
  ge_ = ge_thresholds(s);
  cor_.set_correlation(s.correlation);
}

bool LossStage::lose_4state() {
  const double u = rng_.uniform();
  switch (state_) {
    case State::kGapTx:
      if (u < s_.p14) {
        state_ = State::kIsolatedLoss;
        return true;
      }
      if (u < s_.p13 + s_.p14) {
        state_ = State::kBurstLoss;
        return true;
      }
      return false;
    case State::kBurstTx:
      if (u < s_.p23) {
        state_ = State::kBurstLoss;
        return true;
      }
      return false;
    case State::kBurstLoss:
      if (u < s_.p32) {
        state_ = State::kBurstTx;
        return false;
      }
      if (u < s_.p31 + s_.p32) {
        state_ = State::kGapTx;
        return false;
      }
      return true;
    case State::kIsolatedLoss:
      state_ = State::kGapTx;
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
