// One endpoint of a reliable connection (an RC queue pair): both ends are QueuePairs, each
// sending its own messages and acknowledging the other's. RoCEv2 semantics (IBA §9.7):
// 24-bit PSNs, ACK/NAK in the AETH, CNPs for ECN (DCQCN); loss recovery go-back-N or
// selective repeat, RTO per RFC 6298; pacing and window from a CongestionControl.
//
// Driving it (simulator or live endpoint; the QP never reads a clock or does I/O):
//   qp.post_message(now, id, bytes);          // any time
//   qp.on_segment(now, seg);                  // for each arriving segment
//   while (auto s = qp.poll(now)) send(*s);   // after any of the above, and at wakeups
//   wait until max(now, qp.next_wakeup())     // kNever: idle until the next event
// `now` must never decrease across calls.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/time.h"
#include "generators/cc/congestion_control.h"
#include "generators/transport/qp_types.h"
#include "generators/transport/receiver.h"
#include "generators/transport/segment.h"
#include "generators/transport/sender.h"
#include "generators/transport/transport_config.h"

namespace gw::transport {

class QueuePair {
 public:
  // Validates `cfg` (throws TransportConfigError). `cc` must not be null.
  QueuePair(const TransportConfig& cfg, std::uint32_t local_qp, std::uint32_t remote_qp,
            std::unique_ptr<cc::CongestionControl> cc);

  // Queues a message of `bytes` payload bytes (0 allowed: one empty packet) for sending.
  void post_message(Instant now, std::uint64_t msg_id, std::uint64_t bytes);
  // A segment arrived for this QP (data for the receiving half; ACK/NAK/CNP for the sending
  // half). Segments for another QP number are counted in invalid_segments and ignored.
  void on_segment(Instant now, const Segment& s);
  // The earliest time at which poll() could emit a segment or fire a timer (RTO, ACK
  // coalescing, the controller's timer); kNever when idle. May be earlier than the last
  // `now` passed in (something is due already): treat it as "now".
  Instant next_wakeup() const;
  // Fires due timers, then returns at most one segment due at `now`: control (ACK, NAK,
  // CNP) first, then retransmissions, then new data, within window and pacing.
  std::optional<Segment> poll(Instant now);

  // The sending half now goes over another network path, `lag` shorter (Sender::path_changed).
  void path_changed(Instant now, Duration lag) { sender_.path_changed(now, lag); }
  // Its packets are sprayed over paths up to `spread` apart (Sender::set_reorder_allowance).
  void set_reorder_allowance(Duration spread) { sender_.set_reorder_allowance(spread); }

  // Completions since the last clear_completions(), in the order they happened.
  const std::vector<Completion>& completions() const { return out_.completions; }
  void clear_completions() { out_.completions.clear(); }

  const QpStats& stats() const { return out_.stats; }
  // For sampling time series: the controller's state (cwnd, pacing rate, phase) and ours.
  const cc::CongestionControl& congestion_control() const { return sender_.cc(); }
  std::uint64_t bytes_in_flight() const { return sender_.bytes_in_flight(); }
  std::uint64_t unsent_bytes() const { return sender_.unsent_bytes(); }
  Duration srtt() const { return sender_.rtt().srtt(); }
  Duration rto() const { return sender_.rtt().rto(); }
  // Where the sending half's time went up to `now` (qp_types.h).
  SendChrono send_chrono(Instant now) const { return sender_.chrono(now); }
  std::uint32_t local_qp() const { return local_qp_; }
  std::uint32_t remote_qp() const { return remote_qp_; }

 private:
  std::uint32_t local_qp_;
  std::uint32_t remote_qp_;
  Sender sender_;
  Receiver receiver_;
  QpOutputs out_;
  Instant last_now_ = kEpoch;
};

}  // namespace gw::transport
