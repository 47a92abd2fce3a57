#include "emulator/engine/aqm/make_aqm.h"

#include "core/rng.h"
#include "emulator/engine/aqm/codel.h"
#include "emulator/engine/aqm/droptail.h"
#include "emulator/engine/aqm/dualpi2.h"
#include "emulator/engine/aqm/pie.h"
#include "emulator/engine/aqm/red.h"
#include "emulator/engine/aqm/threshold.h"

namespace gw {

std::unique_ptr<Aqm> make_aqm(const AqmSettings& s, std::uint64_t seed, const std::string& stream) {
  const Rng rng(seed, stream + "/aqm");
  switch (s.kind) {
    case AqmKind::kDropTail:
      return std::make_unique<DropTailAqm>();
    case AqmKind::kRed:
      return std::make_unique<RedAqm>(s.red, rng);
    case AqmKind::kCodel:
      return std::make_unique<CodelAqm>(s.codel);
    case AqmKind::kPie:
      return std::make_unique<PieAqm>(s.pie, rng);
    case AqmKind::kDualPi2:
      return std::make_unique<DualPi2Aqm>(s.dualpi2, rng);
    case AqmKind::kThreshold:
      return std::make_unique<ThresholdAqm>(s.threshold, rng);
  }
  return std::make_unique<DropTailAqm>();  // not reached: every kind is handled above
}

}  // namespace gw
