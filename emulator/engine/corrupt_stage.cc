#include "emulator/engine/corrupt_stage.h"

namespace gw {

CorruptStage::CorruptStage(const ChanceSettings& s, std::uint64_t seed, const std::string& stream,
                           const std::string& flow_stream, const FlowStreamSettings& flows)
    : s_(s), draws_(CorrelatedDraws::make(Rng(seed, stream), s.correlation), seed, flow_stream, flows) {}

void CorruptStage::set_settings(const ChanceSettings& s) {
  s_ = s;
  draws_.for_each([&](CorrelatedDraws& d) { d.cor.set_correlation(s.correlation); });
}

void CorruptStage::push(Packet&& p, Instant /*now*/, StageOutput& out) {
  if (p.size_bytes == 0 || p.corrupt_bit != kNoCorruption) {
    out.emit(std::move(p));
    return;
  }
  CorrelatedDraws& d = draws_.of(p, [this](Rng rng) { return CorrelatedDraws::make(rng, s_.correlation); });
  if (d.cor.chance(s_.p, d.rng)) {
    p.corrupt_bit = static_cast<std::uint32_t>(d.rng.below(std::uint64_t{p.size_bytes} * 8));
  }
  out.emit(std::move(p));
}

}  // namespace gw
