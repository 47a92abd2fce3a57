#include "emulator/engine/corrupt_stage.h"

namespace gw {

CorruptStage::CorruptStage(const ChanceSettings& s, std::uint64_t seed, const std::string& stream)
    : s_(s), rng_(seed, stream), cor_(s.correlation, rng_) {}

void CorruptStage::set_settings(const ChanceSettings& s) {
  s_ = s;
  cor_.set_correlation(s.correlation);
}

void CorruptStage::push(Packet&& p, Instant /*now*/, StageOutput& out) {
  if (p.size_bytes > 0 && p.corrupt_bit == kNoCorruption && cor_.chance(s_.p, rng_)) {
    p.corrupt_bit = static_cast<std::uint32_t>(rng_.below(std::uint64_t{p.size_bytes} * 8));
  }
  out.emit(std::move(p));
}

}  // namespace gw
