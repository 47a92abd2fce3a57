#include "emulator/engine/duplicate_stage.h"

namespace gw {

DuplicateStage::DuplicateStage(const ChanceSettings& s, std::uint64_t seed, const std::string& stream)
    : s_(s), rng_(seed, stream), cor_(s.correlation, rng_) {}

void DuplicateStage::set_settings(const ChanceSettings& s) {
  s_ = s;
  cor_.set_correlation(s.correlation);
}

void DuplicateStage::push(Packet&& p, Instant /*now*/, StageOutput& out) {
  if (!p.duplicate && cor_.chance(s_.p, rng_)) {
    Packet copy = p;
    copy.duplicate = true;
    out.duplicated(copy);
    out.emit(std::move(p));
    out.emit(std::move(copy));
    return;
  }
  out.emit(std::move(p));
}

}  // namespace gw
