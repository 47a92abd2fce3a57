// netem `slot`: packets leave only inside slots, as on bursty MACs (Wi-Fi aggregation,
// DOCSIS, LTE). Follows sch_netem.c netem_dequeue()/get_slot_next(): a slot opens at
// slot_next; due packets leave while the slot's packet and byte budgets last; when a budget
// runs out the next slot opens after a gap drawn uniformly from [min_delay, max_delay] (or
// from a distribution table with delay/jitter). A slot that opened before the head packet
// was due is stale and is redrawn from that moment.
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include "core/rng.h"
#include "emulator/engine/spec.h"
#include "emulator/engine/stage.h"

namespace gw {

class SlotStage final : public Stage {
 public:
  SlotStage(const SlotSettings& s, std::uint64_t seed, const std::string& stream);

  void set_settings(const SlotSettings& s);

  void push(Packet&& p, Instant now, StageOutput& out) override;
  Instant next_wakeup() const override;
  void pull(Instant now, StageOutput& out) override;
  std::uint64_t held_packets() const override { return queue_.size(); }
  std::uint64_t held_bytes() const override { return bytes_; }
  std::string name() const override { return "slot"; }

  std::uint64_t slots_opened() const { return slots_; }

 private:
  void next_slot(Instant now);
  Duration gap();

  SlotSettings s_;
  Rng rng_;
  std::deque<Packet> queue_;
  std::uint64_t bytes_ = 0;
  Instant slot_next_{};
  std::int64_t packets_left_ = 0;
  std::int64_t bytes_left_ = 0;
  std::uint64_t slots_ = 0;
};

}  // namespace gw
