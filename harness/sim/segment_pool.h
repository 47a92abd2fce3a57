// The transport segments the simulated network carries: a Packet holds only a handle to its
// segment here, so the fabric moves small records and duplicates share one segment.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "generators/transport/segment.h"

namespace gw {

// Segments in the network, by handle (the Packet's `handle`). A duplicate made by the network
// shares its original's slot; the slot is freed when the last copy is received or dropped.
class SegmentPool {
  using Segment = transport::Segment;

 public:
  std::uint64_t put(const Segment& s) {
    std::uint64_t h = 0;
    if (free_.empty()) {
      h = slots_.size();
      slots_.push_back(s);
      refs_.push_back(1);
    } else {
      h = free_.back();
      free_.pop_back();
      slots_[h] = s;
      refs_[h] = 1;
    }
    return h;
  }
  const Segment& at(std::uint64_t h) const { return slots_[h]; }
  // The slot itself, for a holder that is the only one left (shared() false). It stays valid
  // until the next put().
  Segment& slot(std::uint64_t h) { return slots_[h]; }
  bool shared(std::uint64_t h) const { return refs_[h] > 1; }
  void add_ref(std::uint64_t h) { ++refs_[h]; }
  void release(std::uint64_t h) {
    if (refs_[h] == 0) {
      throw std::logic_error("sim: a packet released twice");
    }
    if (--refs_[h] == 0) {
      free_.push_back(h);
    }
  }

 private:
  std::vector<Segment> slots_;
  std::vector<std::uint32_t> refs_;
  std::vector<std::uint64_t> free_;
};

}  // namespace gw
