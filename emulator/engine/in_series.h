// Links in series as one direction: how the live emulator carries a path through relays
// (docs/steering.md "Live"), where the simulator has one pipeline per link. A packet crosses
// the links one after the other, so
//   - the delays add (each link's propagation), and one link's jitter rides on the sum;
//   - the slowest link's rate and queue bind: traffic reaches a later, faster link at most at
//     the rate the slower one let through, so only the bottleneck holds a standing queue (the
//     serialisation at the faster links, a packet time each, is left out);
//   - independent random losses combine as 1 - prod(1 - p_i) (and likewise duplication and
//     corruption).
// What does not compose into one stage (jitter, bursty loss models or microbursts on two links
// of a path, incast, slots, rate traces on two links) is refused with the reason, naming the
// links, so a user can simplify the path or run it in the simulator.
#pragma once

#include <string>
#include <vector>

#include "emulator/engine/spec.h"

namespace gw {

struct SeriesLink {
  std::string name;  // for messages: "west -> pop"
  const DirectionSpec* spec = nullptr;
};

// The links of `links`, first to last, as one direction. Throws std::invalid_argument with
// the reason when they do not compose (the caller names the file and JSON path).
DirectionSpec in_series(const std::vector<SeriesLink>& links);

}  // namespace gw
