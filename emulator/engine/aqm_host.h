// The bottleneck's AQM as the queue stage holds it: built from its settings (make_aqm.h), kept
// across new settings that leave it unchanged (a phase change then keeps RED's average, CoDel's
// dropping state and the AQM's random stream), and, when it is RED (the shipped WAN profiles'
// AQM), called without a virtual call on the per-packet path: RedAqm is final, and its idle
// fast path is inline.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "emulator/engine/aqm/aqm.h"
#include "emulator/engine/aqm/red.h"
#include "emulator/engine/spec.h"

namespace gw {

class AqmHost {
 public:
  AqmHost(const AqmSettings& settings, std::uint64_t seed, std::string stream);

  // The AQM of `settings`: the one in place when they are the same, else a fresh one.
  void set_settings(const AqmSettings& settings);

  Aqm& aqm() { return *aqm_; }
  const Aqm& aqm() const { return *aqm_; }

  AqmVerdict on_enqueue(const Packet& p, const QueueView& q, Instant now) {
    return red_ != nullptr ? red_->on_enqueue(p, q, now) : aqm_->on_enqueue(p, q, now);
  }
  void on_queue_empty(Instant now) {
    if (red_ != nullptr) {
      red_->on_queue_empty(now);
    } else {
      aqm_->on_queue_empty(now);
    }
  }
  // Aqm::next_timer(); RED has no timer, so without a virtual call.
  Instant next_timer() const { return red_ != nullptr ? kNever : aqm_->next_timer(); }
  // For an arrival at an empty queue, before any view is built: RedAqm::pass_at_empty() when
  // the AQM is RED; false (ask on_enqueue() with a view) for the others.
  bool pass_at_empty(Instant now) { return red_ != nullptr && red_->pass_at_empty(now); }

 private:
  void build();

  AqmSettings settings_;
  std::uint64_t seed_;
  std::string stream_;
  std::unique_ptr<Aqm> aqm_;
  RedAqm* red_ = nullptr;  // aqm_ when it is RED, else nullptr
};

}  // namespace gw
