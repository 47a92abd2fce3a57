// One impairment = one stage. A direction's pipeline is a chain of stages; the pipeline moves
// packets between them in time order (see pipeline.h), so stages only answer three questions:
// take this packet at `now`; when will you next release something; release what is due.
//
// Contract:
//  - push(p, now, out): p arrives at `now` (== p.time). The stage either emits it at once
//    (out.emit with p.time == now), holds it, or drops it (out.drop with a cause).
//  - next_wakeup(): the earliest instant at which pull() would emit something or change state
//    (a timer: AQM update, microburst), or kNever.
//  - pull(now, out): called with now == next_wakeup(); emits every packet due at `now` in
//    order, each with p.time set to its release instant, and runs timers due at `now`.
//  - Stages never read a clock, never do I/O, and draw randomness only from their own Rng.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/time.h"
#include "emulator/engine/packet.h"

namespace gw {

class StageOutput {
 public:
  virtual ~StageOutput() = default;
  // Pass p to the next stage at p.time.
  virtual void emit(Packet&& p) = 0;
  // p leaves the pipeline, counted under `cause`. Synthetic packets are dropped too (counted
  // apart, as cross traffic).
  virtual void drop(Packet&& p, DropCause cause) = 0;
  // The stage set CE on p (it stays in flight). Counted once per packet.
  virtual void marked(const Packet& p) = 0;
  // The stage made a synthetic (cross-traffic) packet. Default: nothing to count.
  virtual void injected(const Packet& /*p*/) {}
  // The stage made `copy` as an extra copy of a real packet; it is emitted separately. The
  // pipeline passes it to its sink (PacketSink::duplicated), which may give it its own
  // telemetry stack.
  virtual void duplicated(Packet& /*copy*/) {}
};

// The next packet a stage will release, without releasing it (for owners that prefetch its
// buffer before it is due): its release instant and the packet as the stage holds it (p.time
// is set only when it is released). {kNever, nullptr}: nothing held, or the stage cannot tell.
struct NextRelease {
  Instant at = kNever;
  const Packet* packet = nullptr;
};

class Stage {
 public:
  virtual ~Stage() = default;
  virtual void push(Packet&& p, Instant now, StageOutput& out) = 0;
  virtual Instant next_wakeup() const { return kNever; }
  virtual void pull(Instant /*now*/, StageOutput& /*out*/) {}
  // What the next pull() would emit first, if the stage can tell without changing anything.
  virtual NextRelease peek_next() const { return {}; }
  // Packets (real and synthetic) this stage holds now, and their bytes.
  virtual std::uint64_t held_packets() const { return 0; }
  virtual std::uint64_t held_bytes() const { return 0; }
  // False for stages that act only inside push() (loss, duplicate, corrupt): the pipeline's
  // event loop then never asks them for wakeups.
  virtual bool timed() const { return true; }
  // A short name for stats and errors ("delay", "queue").
  virtual std::string name() const = 0;
};

}  // namespace gw
