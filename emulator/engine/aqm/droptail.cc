#include "emulator/engine/aqm/droptail.h"

namespace gw {

AqmVerdict DropTailAqm::on_enqueue(const Packet& /*p*/, const QueueView& /*q*/, Instant /*now*/) {
  return AqmVerdict::kPass;
}

AqmVerdict DropTailAqm::on_dequeue(const Packet& /*p*/, Duration /*sojourn*/, const QueueView& /*q*/,
                                   Instant /*now*/) {
  return AqmVerdict::kPass;
}

}  // namespace gw
