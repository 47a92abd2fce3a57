// The receiving half of a queue pair: accepts data packets, delivers messages in order,
// and produces ACKs, NAKs and CNPs (IBA §9.7.5 responder behaviour, DCQCN §3.1 for CNPs).
//
//  - Go-back-N: an out-of-order packet is discarded; the first one after a gap produces one
//    NAK (PSN sequence error) and no further NAK until the expected PSN arrives.
//  - Selective repeat: out-of-order packets are buffered (up to max_outstanding_packets
//    ahead) and acknowledged at once with a 64-PSN SACK bitmap ending at the packet (an
//    in-order packet's ACK: at the highest PSN buffered), and a second bitmap ending at the
//    previous region's latest arrival: as TCP repeats its recent SACK blocks (RFC 2018 §4),
//    so that a lost ACK does not hide an isolated arrival (a retransmission) from the sender.
//  - In-order packets are acknowledged every `ack_every_packets`, at a message's last packet,
//    when the sender asks (AckReq), when a hole is filled, or after `ack_delay` at the latest.
//    Duplicates are acknowledged at once (the earlier ACK may have been lost), flagged as
//    such (RFC 2883 D-SACK's signal: the sender widens its reordering window).
//  - ACKs echo the triggering packet's PSN, send time, arrival time, CE mark and INT hops, and
//    the cumulative count of CE-marked wire bytes received (QUIC ACK-frame style ECN counts,
//    RFC 9000 §19.3.2: robust to lost ACKs).
//  - A CE-marked arrival produces a CNP unless one was sent less than `cnp_interval` ago.
// Every operation is O(1) per packet except the SACK bitmap (64 slots per ACK).
#pragma once

#include <cstdint>

#include "core/ring.h"
#include "core/time.h"
#include "generators/transport/qp_types.h"
#include "generators/transport/segment.h"
#include "generators/transport/transport_config.h"

namespace gw::transport {

class Receiver {
 public:
  Receiver(const TransportConfig& cfg, std::uint32_t local_qp, std::uint32_t remote_qp);

  void on_data(Instant now, const Segment& s, QpOutputs& out);
  // The ACK-coalescing deadline; kNever when no ACK is being held.
  Instant next_timer() const { return ack_deadline_; }
  void on_timer(Instant now, QpOutputs& out);

 private:
  // A buffered out-of-order packet (selective repeat); slot i holds PSN rcv_nxt_ + i.
  struct Slot {
    bool present = false;
    bool last = false;
    std::uint32_t payload = 0;
    std::uint64_t msg_id = 0;
    std::uint64_t msg_offset = 0;
    Instant posted{};
  };
  // What the next ACK echoes: the latest data packet that arrived.
  struct Trigger {
    std::uint64_t psn = 0;
    Instant sent{};
    Instant arrival{};
    bool ce = false;
    bool duplicate = false;  // had arrived before (echoed as the D-SACK flag)
    std::uint8_t hop_count = 0;
    std::array<cc::IntHopEcho, kMaxIntHops> hops{};
  };

  void deliver(Instant now, bool last, std::uint64_t msg_id, std::uint64_t offset, std::uint32_t payload,
               Instant posted, QpOutputs& out);
  void push_ack(Instant now, SegmentKind kind, QpOutputs& out);
  void maybe_cnp(Instant now, QpOutputs& out);
  std::uint64_t sack_base(std::uint64_t top) const;
  std::uint64_t sack_bitmap(std::uint64_t base) const;

  TransportConfig cfg_;
  std::uint32_t local_qp_;
  std::uint32_t remote_qp_;
  std::uint64_t rcv_nxt_;  // the next PSN expected in order (64-bit, see unwrap_psn)
  std::uint32_t msn_ = 0;  // messages delivered (AETH MSN)
  Ring<Slot> ooo_;         // selective repeat only
  bool nak_outstanding_ = false;
  std::uint32_t unacked_ = 0;  // in-order packets not yet acknowledged
  Instant ack_deadline_ = kNever;
  Trigger trigger_;
  std::uint64_t ce_bytes_ = 0;
  std::uint64_t last_top_ = 0;   // where the previous ACK's SACK bitmap ended
  std::uint64_t other_top_ = 0;  // where the second SACK block ends (the region before)
  Instant last_cnp_ = kNever;    // kNever: none sent yet
};

}  // namespace gw::transport
