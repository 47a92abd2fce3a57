// What a queue pair reports: message completions and counters. Shared by its send and
// receive halves (sender.h, receiver.h), which append to one QpOutputs owned by the QueuePair.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/ring.h"
#include "core/time.h"
#include "generators/transport/rocev2.h"
#include "generators/transport/segment.h"

namespace gw::transport {

// A message finished. kSent: every byte was acknowledged (cumulatively). kReceived: every
// byte arrived and all earlier messages of the connection had arrived (in-order delivery).
enum class CompletionKind : std::uint8_t { kSent, kReceived };
struct Completion {
  CompletionKind kind = CompletionKind::kSent;
  std::uint64_t msg_id = 0;
  std::uint64_t bytes = 0;  // message payload bytes
  Instant posted{};         // post_message time at the sender (carried by the data packets)
  Instant completed{};
};

struct QpStats {
  // Sending side. Byte counts of packets are wire bytes (Segment::wire_bytes); "delivered" is
  // payload bytes the peer confirmed for the first time (cumulative ACK or SACK).
  std::uint64_t data_packets_sent = 0;  // including retransmissions
  std::uint64_t data_bytes_sent = 0;
  std::uint64_t retransmitted_packets = 0;
  std::uint64_t retransmitted_bytes = 0;
  std::uint64_t bytes_delivered = 0;
  std::uint64_t packets_declared_lost = 0;  // by NAK, SACK reordering threshold or RTO
  std::uint64_t timeouts = 0;
  std::uint64_t loss_probes = 0;      // tail loss probes sent (RFC 8985 §7), new data or a resend
  std::uint64_t dsacks_received = 0;  // ACKs flagging a duplicate: a resend that was not needed
  std::uint64_t loss_undos = 0;       // loss episodes undone: every resend was spurious
  std::uint64_t acks_received = 0;
  std::uint64_t naks_received = 0;
  std::uint64_t stale_naks_ignored = 0;  // NAKs for a PSN already resent after the NAK's trigger
  std::uint64_t cnps_received = 0;
  std::uint64_t rtt_samples = 0;
  std::uint64_t invalid_segments = 0;  // wrong QP, or acknowledging PSNs never sent
  std::uint64_t messages_sent = 0;     // sender completions
  // Receiving side.
  std::uint64_t data_packets_received = 0;
  std::uint64_t duplicates_received = 0;     // PSN already received
  std::uint64_t out_of_order_discarded = 0;  // go-back-N, or beyond the window
  std::uint64_t out_of_order_buffered = 0;   // selective repeat
  std::uint64_t ce_packets_received = 0;
  std::uint64_t payload_bytes_received = 0;  // in order, each byte once
  std::uint64_t messages_received = 0;
  std::uint64_t acks_sent = 0;
  std::uint64_t naks_sent = 0;
  std::uint64_t cnps_sent = 0;
};

// Where a sender's time went, the idea of Linux's TCP_CHRONO (tcp_chrono_start() in
// net/ipv4/tcp_output.c: busy, rwnd-limited, sndbuf-limited), with the states a collective's
// time is attributed to (docs/reports.md "Where the time went"). At every instant a sender is
// in exactly one state:
//  - kIdle: nothing unacknowledged and nothing to send;
//  - kBusy: packets in flight or being sent, nothing holding the next one back but the NIC
//    or pacing at the controller's own rate (the network at work: propagation, serialization,
//    queueing);
//  - kCwndLimited: new data waiting, the congestion window full;
//  - kCcLimited: the same, or pacing holding it, while the window (or, after a CNP, the rate)
//    is still below its level before the controller's last cut on a congestion signal other
//    than loss (CE marks, delay, INT, CNP);
//  - kRecovery: lost packets waiting to be resent, a loss episode unfinished, or new data held
//    by a window (or rate) still below its level before a loss cut it; when an RTO fires, the
//    time since the last acknowledgement of new data moves here too (it was spent waiting for
//    the timer).
enum class SendState : std::uint8_t { kIdle, kBusy, kCwndLimited, kCcLimited, kRecovery };
inline constexpr std::size_t kSendStates = 5;

struct SendChrono {
  std::array<Duration, kSendStates> time{};
  // The standing queue (RFC 8289's minimum over an interval): per round of one SRTT, the least
  // (RTT sample - min RTT) of the round, summed once per sample of the round; and the min RTT,
  // summed likewise. Their ratio is the path's latency inflation by queues that persist.
  Duration rtt_queueing{0};
  Duration rtt_base{0};
  std::uint64_t cc_cuts = 0;   // window or rate reductions on a signal other than loss
  std::uint64_t ce_bytes = 0;  // acknowledged bytes the peer saw CE-marked
  Duration& operator[](SendState s) { return time[static_cast<std::size_t>(s)]; }
  Duration operator[](SendState s) const { return time[static_cast<std::size_t>(s)]; }
  SendChrono& operator+=(const SendChrono& o) {
    for (std::size_t i = 0; i < kSendStates; ++i) {
      time[i] += o.time[i];
    }
    rtt_queueing += o.rtt_queueing;
    rtt_base += o.rtt_base;
    cc_cuts += o.cc_cuts;
    ce_bytes += o.ce_bytes;
    return *this;
  }
  SendChrono& operator-=(const SendChrono& o) {
    for (std::size_t i = 0; i < kSendStates; ++i) {
      time[i] -= o.time[i];
    }
    rtt_queueing -= o.rtt_queueing;
    rtt_base -= o.rtt_base;
    cc_cuts -= o.cc_cuts;
    ce_bytes -= o.ce_bytes;
    return *this;
  }
};

// Where both halves put what they produce; the QueuePair drains `control` first in poll().
struct QpOutputs {
  Ring<Segment> control;
  std::vector<Completion> completions;
  QpStats stats;
};

// 24-bit PSNs are kept internally as 64-bit counters that start at 2^24 + initial PSN, so
// that "one before the first" never underflows. unwrap() maps a 24-bit PSN to the 64-bit
// value nearest `ref` (within +-2^23), as IBA's PSN comparisons do (§9.7.1).
inline constexpr std::uint64_t kPsnBase = std::uint64_t{1} << 24;
constexpr std::uint64_t unwrap_psn(std::uint64_t ref, std::uint32_t psn24) {
  const std::uint32_t fwd = (psn24 - static_cast<std::uint32_t>(ref)) & kPsnMask;
  if (fwd < (1U << 23)) {
    return ref + fwd;
  }
  return ref - ((std::uint64_t{1} << 24) - fwd);
}
constexpr std::uint32_t wire_psn(std::uint64_t psn) {
  return static_cast<std::uint32_t>(psn) & kPsnMask;
}

}  // namespace gw::transport
