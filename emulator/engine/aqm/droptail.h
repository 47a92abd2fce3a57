// Drop-tail: the AQM that never acts. The queue stage's packet, byte and sojourn limits do all
// the dropping (Linux pfifo / bfifo, netem's own queue). It exists so that every queue stage
// has an Aqm and needs no "no AQM" branch.
#pragma once

#include <string>

#include "emulator/engine/aqm/aqm.h"

namespace gw {

class DropTailAqm final : public Aqm {
 public:
  AqmVerdict on_enqueue(const Packet& p, const QueueView& q, Instant now) override;
  AqmVerdict on_dequeue(const Packet& p, Duration sojourn, const QueueView& q, Instant now) override;
  bool decides_at_enqueue() const override { return true; }
  std::string name() const override { return "droptail"; }
};

}  // namespace gw
