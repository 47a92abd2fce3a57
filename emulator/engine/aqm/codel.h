// CoDel, Controlled Delay (RFC 8289 §5, its reference pseudo-code). Dequeue-side: once the
// head's sojourn time has stayed at or above `target` for a whole `interval`, CoDel drops a
// packet and enters the dropping state; it then drops at drop_next = t + interval / sqrt(count),
// counting on from the previous episode (count - lastcount) when it re-enters less than
// 16 intervals after the last drop_next, and leaves once a packet's sojourn is below target.
//
// The RFC's dequeue() drops and dequeues the next packet in one loop. Here the queue stage runs
// that loop: after kDrop it calls on_dequeue() again, at the same `now`, for the new head
// (there always is one: a packet is only dropped with more than maxpacket bytes behind it).
// CodelAqm remembers where the RFC's loop stopped between the two calls, so the verdicts are
// the ones the RFC would give. A call at a later instant is a fresh dequeue.
//
// ECN (`ecn`): an ECN-capable packet CoDel would drop is CE-marked and sent instead, which ends
// that loop turn, as Linux codel_dequeue() does.
//
// The RFC's second test in dodequeue(), bytes() <= maxpacket, keeps CoDel from draining the
// queue below one MTU-sized packet on slow links. Our sizes are Ethernet frame lengths, so
// maxpacket is 1514 B: what Linux psched_mtu() gives for a 1500 B MTU Ethernet device.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "emulator/engine/aqm/aqm.h"
#include "emulator/engine/spec.h"

namespace gw {

class CodelAqm final : public Aqm {
 public:
  static constexpr std::uint64_t kMaxPacketBytes = 1514;

  explicit CodelAqm(const CodelSettings& settings) : s_(settings) {}

  AqmVerdict on_enqueue(const Packet& p, const QueueView& q, Instant now) override;
  AqmVerdict on_dequeue(const Packet& p, Duration sojourn, const QueueView& q, Instant now) override;
  std::string name() const override { return "codel"; }

  // Running state (the RFC 8289 §5 names), for stats and tests.
  bool dropping() const { return dropping_; }
  std::uint32_t count() const { return count_; }
  Instant drop_next() const { return drop_next_; }

 private:
  // Where the RFC's dequeue loop stopped when we returned kDrop.
  enum class Resume : std::uint8_t { kNone, kAfterEntryDrop, kAfterLoopDrop };

  bool ok_to_drop(Duration sojourn, const QueueView& q, Instant now);  // RFC dodequeue()
  AqmVerdict enter_dropping(const Packet& p, Instant now);
  AqmVerdict drop_if_due(const Packet& p, Instant now);  // one turn of the RFC's drop loop
  AqmVerdict drop(Instant now, Resume then);
  Instant control_law(Instant t) const;  // t + interval / sqrt(count)

  CodelSettings s_;

  std::optional<Instant> first_above_time_;  // RFC: 0 means "not above target"
  Instant drop_next_{};
  std::uint32_t count_ = 0;
  std::uint32_t lastcount_ = 0;
  bool dropping_ = false;
  Resume resume_ = Resume::kNone;
  Instant resume_at_{};
};

}  // namespace gw
