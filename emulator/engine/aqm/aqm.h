// Active queue management behind one interface. The bottleneck queue stage (queue_stage.h)
// owns the packets, the rate and the limits; an Aqm only decides pass / mark CE / drop, at
// enqueue and/or dequeue, and may run a periodic update. An Aqm may split the queue into
// several sub-queues (DualPI2: L and C) and then also picks which one to serve.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "core/rate.h"
#include "core/time.h"
#include "emulator/engine/packet.h"

namespace gw {

enum class AqmVerdict : std::uint8_t { kPass, kMark, kDrop };

// A queue delay in seconds, the unit of the PI controllers' gains (RFC 8033 §4.2, RFC 9332 §A.1).
inline double in_seconds(Duration d) {
  return static_cast<double>(d.count()) * 1e-9;
}

// The queue as the AQM sees it, before the packet in question joins (enqueue) or after it
// left (dequeue). Index 0 is the only queue of a single-queue AQM; DualPI2 uses 0 = C, 1 = L.
struct QueueView {
  static constexpr int kMaxQueues = 2;
  std::array<std::uint64_t, kMaxQueues> bytes{};
  std::array<std::uint64_t, kMaxQueues> packets{};
  // Sojourn time of each sub-queue's head packet at `now` (0 when empty).
  std::array<Duration, kMaxQueues> head_sojourn{};
  BitRate rate{};  // the queue's drain rate (0 = unlimited)
};

class Aqm {
 public:
  virtual ~Aqm() = default;

  // Number of sub-queues and which one a packet joins.
  virtual int queues() const { return 1; }
  virtual int classify(const Packet& /*p*/) const { return 0; }
  // Which non-empty sub-queue to serve next. `head_enqueue[i]` is the enqueue instant of
  // sub-queue i's head, kNever when it is empty; at least one is non-empty.
  virtual int pick(const std::array<Instant, QueueView::kMaxQueues>& /*head_enqueue*/, Instant /*now*/) {
    return 0;
  }

  // Called when `p` arrives at `now`, before it joins sub-queue `classify(p)`.
  virtual AqmVerdict on_enqueue(const Packet& p, const QueueView& q, Instant now) = 0;
  // Called when `p` reaches the head and is about to be sent at `now` after `sojourn` in queue.
  virtual AqmVerdict on_dequeue(const Packet& p, Duration sojourn, const QueueView& q, Instant now) = 0;

  // True when the AQM decides only at enqueue: a single queue, no timer, and on_dequeue()
  // always passes and looks only at whether the queue behind the packet is empty. A FIFO
  // bottleneck may then compute a packet's departure when it arrives (queue_stage.h,
  // "scheduling at admission") and report afterwards, in order, through on_queue_empty().
  virtual bool decides_at_enqueue() const { return false; }
  // For such an AQM, instead of on_dequeue(): a packet started service at `now` and left the
  // queue empty behind it (on_dequeue() with q.packets[0] == 0).
  virtual void on_queue_empty(Instant /*now*/) {}

  // Periodic work (PIE and DualPI2 probability updates). kNever when there is none.
  virtual Instant next_timer() const { return kNever; }
  virtual void on_timer(const QueueView& /*q*/, Instant /*now*/) {}

  virtual std::string name() const = 0;
};

}  // namespace gw
