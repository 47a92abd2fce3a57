#include "emulator/engine/duplicate_stage.h"

namespace gw {

DuplicateStage::DuplicateStage(const ChanceSettings& s, std::uint64_t seed, const std::string& stream,
                               const std::string& flow_stream, const FlowStreamSettings& flows)
    : s_(s), draws_(CorrelatedDraws::make(Rng(seed, stream), s.correlation), seed, flow_stream, flows) {}

void DuplicateStage::set_settings(const ChanceSettings& s) {
  s_ = s;
  draws_.for_each([&](CorrelatedDraws& d) { d.cor.set_correlation(s.correlation); });
}

void DuplicateStage::push(Packet&& p, Instant /*now*/, StageOutput& out) {
  if (p.duplicate) {
    out.emit(std::move(p));
    return;
  }
  CorrelatedDraws& d = draws_.of(p, [this](Rng rng) { return CorrelatedDraws::make(rng, s_.correlation); });
  if (d.cor.chance(s_.p, d.rng)) {
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
