// The simulator's PathMeter (harness/run/steering.h): a path's signals read off its WAN hops'
// counters and queues in the network.
#pragma once

#include <cstdint>
#include <vector>

#include "emulator/fabric/network.h"
#include "harness/run/steering.h"

namespace gw {

class HopMeter final : public PathMeter {
 public:
  explicit HopMeter(const fabric::Network& net) : net_(&net), last_hop_(net.hop_stats().size()) {}

  // What the path's hops took in, dropped and sent over the interval, the backlog they hold
  // now, and their busiest one's utilization at its rate in force.
  PathReading read(std::uint32_t from, std::uint32_t to, std::uint32_t path, Instant now,
                   double seconds) override;
  // A hop shared by two pairs' paths is read by both for one interval, so the counters move on
  // only once all were read.
  void next_interval() override;

 private:
  const fabric::Network* net_;
  std::vector<PipelineCounters> last_hop_;  // per hop, at the last interval's end
};

}  // namespace gw
