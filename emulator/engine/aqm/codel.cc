#include "emulator/engine/aqm/codel.h"

#include <cmath>

namespace gw {

AqmVerdict CodelAqm::on_enqueue(const Packet& /*p*/, const QueueView& /*q*/, Instant /*now*/) {
  return AqmVerdict::kPass;
}

AqmVerdict CodelAqm::on_dequeue(const Packet& p, Duration sojourn, const QueueView& q, Instant now) {
  const Resume resume = resume_at_ == now ? resume_ : Resume::kNone;
  resume_ = Resume::kNone;
  const bool ok = ok_to_drop(sojourn, q, now);

  switch (resume) {
    case Resume::kAfterEntryDrop:
      // RFC: the packet dequeued after the drop that entered the dropping state is returned,
      // whatever dodequeue() said of it.
      return AqmVerdict::kPass;
    case Resume::kAfterLoopDrop:
      if (!ok) {
        dropping_ = false;
        return AqmVerdict::kPass;
      }
      drop_next_ = control_law(drop_next_);
      return drop_if_due(p, now);
    case Resume::kNone:
      break;
  }

  if (dropping_) {
    if (!ok) {
      dropping_ = false;  // sojourn went below target: leave the dropping state
      return AqmVerdict::kPass;
    }
    return drop_if_due(p, now);
  }
  return ok ? enter_dropping(p, now) : AqmVerdict::kPass;
}

bool CodelAqm::ok_to_drop(Duration sojourn, const QueueView& q, Instant now) {
  // `q` is the queue after p left, as the RFC's bytes() after queue_t::dequeue().
  if (sojourn < s_.target || q.bytes[0] <= kMaxPacketBytes) {
    first_above_time_.reset();
    return false;
  }
  if (!first_above_time_) {
    first_above_time_ = now + s_.interval;
    return false;
  }
  return now >= *first_above_time_;
}

AqmVerdict CodelAqm::enter_dropping(const Packet& p, Instant now) {
  dropping_ = true;
  // RFC 8289 §5 dequeue(), the Linux rule it adopts: re-entering soon after the last episode
  // resumes at the drop rate that controlled the queue then.
  const std::uint32_t delta = count_ - lastcount_;
  count_ = 1;
  if (delta > 1 && now - drop_next_ < 16 * s_.interval) {
    count_ = delta;
  }
  drop_next_ = control_law(now);
  lastcount_ = count_;
  if (s_.ecn && ecn_capable(p.headers.ecn)) {
    return AqmVerdict::kMark;
  }
  return drop(now, Resume::kAfterEntryDrop);
}

AqmVerdict CodelAqm::drop_if_due(const Packet& p, Instant now) {
  // The body of the RFC's `while (now >= drop_next_ && dropping_)`.
  if (now < drop_next_) {
    return AqmVerdict::kPass;
  }
  ++count_;
  if (s_.ecn && ecn_capable(p.headers.ecn)) {
    drop_next_ = control_law(drop_next_);  // the marked packet is sent: the loop ends here
    return AqmVerdict::kMark;
  }
  return drop(now, Resume::kAfterLoopDrop);
}

AqmVerdict CodelAqm::drop(Instant now, Resume then) {
  // A dropped packet was above target with more than maxpacket bytes behind it, so there is a
  // next head: the RFC loop goes on with it in our next on_dequeue() call.
  resume_ = then;
  resume_at_ = now;
  return AqmVerdict::kDrop;
}

Instant CodelAqm::control_law(Instant t) const {
  // RFC 8289 §5 control_law(), truncated to whole nanoseconds as with the RFC's integer time.
  const double step = static_cast<double>(s_.interval.count()) / std::sqrt(static_cast<double>(count_));
  return t + Duration{static_cast<std::int64_t>(step)};
}

}  // namespace gw
