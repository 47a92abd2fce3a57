// Storage for packets' in-band telemetry stacks (Packet::telemetry), kept by whoever owns the
// packets while they are in flight: the simulator, the DPDK forwarder. A stack never moves once
// handed out (blocks of kBlock, kept until the pool goes) and one given back is handed out
// again, so a steady flow of packets allocates nothing.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "emulator/engine/packet.h"

namespace gw {

class IntPool {
 public:
  // A stack with no hops.
  IntStack* take() {
    if (free_.empty()) [[unlikely]] {
      grow();
    }
    IntStack* s = free_.back();
    free_.pop_back();
    s->hops = 0;
    ++in_use_;
    return s;
  }
  // A stack holding the hops of `from` (for a duplicate's copy).
  IntStack* take_copy(const IntStack& from) {
    IntStack* s = take();
    *s = from;
    return s;
  }
  // Back to the pool once its packet has left (delivered and read, or dropped). null: nothing.
  void give(IntStack* s) {
    if (s != nullptr) {
      free_.push_back(s);
      --in_use_;
    }
  }
  // Stacks handed out and not given back: the packets in flight that carry one.
  std::size_t in_use() const { return in_use_; }

 private:
  static constexpr std::size_t kBlock = 1024;
  void grow() {
    blocks_.push_back(std::make_unique<IntStack[]>(kBlock));
    IntStack* b = blocks_.back().get();
    for (std::size_t i = kBlock; i-- > 0;) {
      free_.push_back(b + i);
    }
  }

  std::vector<std::unique_ptr<IntStack[]>> blocks_;
  std::vector<IntStack*> free_;
  std::size_t in_use_ = 0;
};

}  // namespace gw
