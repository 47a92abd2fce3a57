#include "emulator/engine/aqm_host.h"

#include <utility>

#include "emulator/engine/aqm/make_aqm.h"

namespace gw {
namespace {

bool same_aqm(const AqmSettings& a, const AqmSettings& b) {
  // Settings structs have no operator==; compare the fields that the AQMs read.
  if (a.kind != b.kind) {
    return false;
  }
  switch (a.kind) {
    case AqmKind::kDropTail:
      return true;
    case AqmKind::kRed:
      return a.red.min_bytes == b.red.min_bytes && a.red.max_bytes == b.red.max_bytes &&
             a.red.max_p == b.red.max_p && a.red.weight == b.red.weight && a.red.gentle == b.red.gentle &&
             a.red.ecn == b.red.ecn;
    case AqmKind::kCodel:
      return a.codel.target == b.codel.target && a.codel.interval == b.codel.interval &&
             a.codel.ecn == b.codel.ecn;
    case AqmKind::kPie:
      return a.pie.target == b.pie.target && a.pie.t_update == b.pie.t_update && a.pie.alpha == b.pie.alpha &&
             a.pie.beta == b.pie.beta && a.pie.ecn == b.pie.ecn;
    case AqmKind::kDualPi2:
      return a.dualpi2.target == b.dualpi2.target && a.dualpi2.t_update == b.dualpi2.t_update &&
             a.dualpi2.alpha == b.dualpi2.alpha && a.dualpi2.beta == b.dualpi2.beta &&
             a.dualpi2.coupling_k == b.dualpi2.coupling_k && a.dualpi2.l_step == b.dualpi2.l_step;
    case AqmKind::kThreshold:
      return a.threshold.kmin_bytes == b.threshold.kmin_bytes &&
             a.threshold.kmax_bytes == b.threshold.kmax_bytes && a.threshold.pmax == b.threshold.pmax;
  }
  return false;
}

}  // namespace

AqmHost::AqmHost(const AqmSettings& settings, std::uint64_t seed, std::string stream)
    : settings_(settings), seed_(seed), stream_(std::move(stream)) {
  build();
}

void AqmHost::set_settings(const AqmSettings& settings) {
  const bool same = same_aqm(settings, settings_);
  settings_ = settings;
  if (!same) {
    build();
  }
}

void AqmHost::build() {
  aqm_ = make_aqm(settings_, seed_, stream_);
  red_ = dynamic_cast<RedAqm*>(aqm_.get());
}

}  // namespace gw
