#include "generators/transport/queue_pair.h"

#include <algorithm>
#include <utility>

namespace gw::transport {
namespace {

// Validates everything before the halves are built; hands the controller through.
std::unique_ptr<cc::CongestionControl> checked(const TransportConfig& cfg, std::uint32_t local_qp,
                                               std::uint32_t remote_qp,
                                               std::unique_ptr<cc::CongestionControl> cc) {
  validate(cfg);
  if (local_qp > kPsnMask || remote_qp > kPsnMask) {
    throw TransportConfigError{"qp numbers must be 24-bit values"};
  }
  if (!cc) {
    throw TransportConfigError{"a queue pair needs a congestion controller"};
  }
  return cc;
}

}  // namespace

QueuePair::QueuePair(const TransportConfig& cfg, std::uint32_t local_qp, std::uint32_t remote_qp,
                     std::unique_ptr<cc::CongestionControl> cc)
    : local_qp_(local_qp),
      remote_qp_(remote_qp),
      sender_(cfg, local_qp, remote_qp, checked(cfg, local_qp, remote_qp, std::move(cc))),
      receiver_(cfg, local_qp, remote_qp) {}

void QueuePair::post_message(Instant now, std::uint64_t msg_id, std::uint64_t bytes) {
  last_now_ = std::max(last_now_, now);
  sender_.post(now, msg_id, bytes);
}

void QueuePair::on_segment(Instant now, const Segment& s) {
  last_now_ = std::max(last_now_, now);
  if (s.dst_qp != local_qp_) {
    ++out_.stats.invalid_segments;
    return;
  }
  switch (s.kind) {
    case SegmentKind::kData:
      receiver_.on_data(now, s, out_);
      break;
    case SegmentKind::kAck:
    case SegmentKind::kNak:
      sender_.on_ack(now, s, out_);
      break;
    case SegmentKind::kCnp:
      sender_.on_cnp(now, out_);
      break;
  }
}

Instant QueuePair::next_wakeup() const {
  if (!out_.control.empty()) {
    return last_now_;
  }
  return std::min(receiver_.next_timer(), sender_.next_wakeup());
}

std::optional<Segment> QueuePair::poll(Instant now) {
  last_now_ = std::max(last_now_, now);
  sender_.on_timers(now, out_);
  receiver_.on_timer(now, out_);
  if (!out_.control.empty()) {
    Segment s = out_.control.pop_front();
    switch (s.kind) {
      case SegmentKind::kAck:
        ++out_.stats.acks_sent;
        break;
      case SegmentKind::kNak:
        ++out_.stats.naks_sent;
        break;
      case SegmentKind::kCnp:
        ++out_.stats.cnps_sent;
        break;
      case SegmentKind::kData:
        break;
    }
    return s;
  }
  return sender_.poll_data(now, out_);
}

}  // namespace gw::transport
