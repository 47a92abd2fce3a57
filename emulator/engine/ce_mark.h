// What a mark verdict does to a packet (RFC 3168 §5): an ECN-capable packet (ECT(0) or ECT(1))
// gets CE; a Not-ECT packet is left alone, and one already CE is neither changed nor counted
// again, so StageOutput::marked() hears of each packet at most once. The queue stage's two
// admission paths and its dequeue all mark through here.
#pragma once

#include "emulator/engine/packet.h"
#include "emulator/engine/stage.h"

namespace gw {

inline void mark_ce(Packet& p, StageOutput& out) {
  if (ecn_capable(p.headers.ecn) && p.headers.ecn != Ecn::kCe) {
    p.headers.ecn = Ecn::kCe;
    p.ce_marked = true;
    out.marked(p);
  }
}

}  // namespace gw
