#include "generators/transport/receiver.h"

#include <algorithm>

namespace gw::transport {

Receiver::Receiver(const TransportConfig& cfg, std::uint32_t local_qp, std::uint32_t remote_qp)
    : cfg_(cfg), local_qp_(local_qp), remote_qp_(remote_qp), rcv_nxt_(kPsnBase + cfg.initial_psn) {}

void Receiver::on_data(Instant now, const Segment& s, QpOutputs& out) {
  QpStats& st = out.stats;
  ++st.data_packets_received;
  const std::uint64_t psn = unwrap_psn(rcv_nxt_, s.psn);
  trigger_ =
      Trigger{psn, s.sent, now, s.ce, false, std::min<std::uint8_t>(s.hop_count, kMaxIntHops), s.int_hops};
  if (s.ce) {
    ++st.ce_packets_received;
    ce_bytes_ += s.wire_bytes();
    maybe_cnp(now, out);
  }

  if (psn < rcv_nxt_) {  // a duplicate: re-acknowledge, the earlier ACK may have been lost
    ++st.duplicates_received;
    trigger_.duplicate = true;
    push_ack(now, SegmentKind::kAck, out);
    return;
  }
  const std::uint64_t ahead = psn - rcv_nxt_;
  if (ahead > 0) {
    if (cfg_.recovery == Recovery::kGoBackN || ahead >= cfg_.max_outstanding_packets) {
      ++st.out_of_order_discarded;
      if (cfg_.recovery == Recovery::kGoBackN && !nak_outstanding_) {
        nak_outstanding_ = true;  // one NAK per gap (IBA §9.7.5.2.1)
        push_ack(now, SegmentKind::kNak, out);
      }
      return;
    }
    while (ooo_.size() <= ahead) {
      ooo_.push_back(Slot{});
    }
    Slot& slot = ooo_[ahead];
    if (slot.present) {
      ++st.duplicates_received;
      trigger_.duplicate = true;
    } else {
      ++st.out_of_order_buffered;
      slot = Slot{true, s.last, s.payload_bytes, s.msg_id, s.msg_offset, s.msg_posted};
    }
    push_ack(now, SegmentKind::kAck, out);
    return;
  }

  // In order.
  nak_outstanding_ = false;
  const bool filled_hole = !ooo_.empty();
  if (filled_hole) {
    ooo_.pop_discard();  // this packet's own (empty) slot
  }
  deliver(now, s.last, s.msg_id, s.msg_offset, s.payload_bytes, s.msg_posted, out);
  bool message_end = s.last;
  while (!ooo_.empty() && ooo_.front().present) {
    const Slot slot = ooo_.pop_front();
    deliver(now, slot.last, slot.msg_id, slot.msg_offset, slot.payload, slot.posted, out);
    message_end = message_end || slot.last;
  }
  ++unacked_;
  if (unacked_ >= cfg_.ack_every_packets || message_end || s.ack_req || filled_hole || !ooo_.empty() ||
      cfg_.ack_delay.count() == 0) {
    push_ack(now, SegmentKind::kAck, out);
  } else if (ack_deadline_ == kNever) {
    ack_deadline_ = now + cfg_.ack_delay;
  }
}

void Receiver::on_timer(Instant now, QpOutputs& out) {
  if (now >= ack_deadline_) {
    push_ack(now, SegmentKind::kAck, out);
  }
}

void Receiver::deliver(Instant now, bool last, std::uint64_t msg_id, std::uint64_t offset,
                       std::uint32_t payload, Instant posted, QpOutputs& out) {
  ++rcv_nxt_;
  out.stats.payload_bytes_received += payload;
  if (last) {
    msn_ = (msn_ + 1) & kPsnMask;
    ++out.stats.messages_received;
    out.completions.push_back(Completion{CompletionKind::kReceived, msg_id, offset + payload, posted, now});
  }
}

void Receiver::push_ack(Instant now, SegmentKind kind, QpOutputs& out) {
  Segment& a = out.control.push_slot();
  a = Segment{};
  a.kind = kind;
  a.opcode = opcode::kAcknowledge;
  a.src_qp = local_qp_;
  a.dst_qp = remote_qp_;
  a.psn = wire_psn(kind == SegmentKind::kNak ? rcv_nxt_ : rcv_nxt_ - 1);
  a.msn = msn_;
  a.echo_psn = wire_psn(trigger_.psn);
  a.echo_sent = trigger_.sent;
  a.echo_arrival = trigger_.arrival;
  a.ce_echo = trigger_.ce;
  a.dsack = trigger_.duplicate;
  a.ce_bytes = ce_bytes_;
  a.hop_count = trigger_.hop_count;
  a.int_hops = trigger_.hops;
  a.sent = now;
  if (!ooo_.empty()) {
    // 64 PSNs ending at the trigger when it was out of order, else at the highest PSN
    // buffered: as TCP's first SACK block reports the most recent arrivals (RFC 2018 §4), so
    // that an ACK lost while a hole is filled cannot hide those arrivals from the sender.
    const std::uint64_t top = trigger_.psn > rcv_nxt_ ? trigger_.psn : rcv_nxt_ + ooo_.size() - 1;
    const std::uint64_t base = sack_base(top);
    a.sack_valid = true;
    a.sack_base = wire_psn(base);
    a.sack_bitmap = sack_bitmap(base);
    if (last_top_ < base || last_top_ > top) {  // the previous ACK reported another region
      other_top_ = last_top_;
    }
    last_top_ = top;
    if (other_top_ > rcv_nxt_ && (other_top_ < base || other_top_ > top)) {
      const std::uint64_t base2 = sack_base(other_top_);
      a.sack2_base = wire_psn(base2);
      a.sack2_bitmap = sack_bitmap(base2);
    }
  }
  unacked_ = 0;
  ack_deadline_ = kNever;
}

// The first PSN of a 64-PSN SACK block ending at `top`, never below the hole.
std::uint64_t Receiver::sack_base(std::uint64_t top) const {
  const std::uint64_t lo = rcv_nxt_ + 1;
  return top > lo + 63 ? top - 63 : lo;
}

// Bit i: PSN base + i is buffered.
std::uint64_t Receiver::sack_bitmap(std::uint64_t base) const {
  std::uint64_t bitmap = 0;
  for (std::uint64_t i = 0; i < 64 && base + i - rcv_nxt_ < ooo_.size(); ++i) {
    if (ooo_[base + i - rcv_nxt_].present) {
      bitmap |= std::uint64_t{1} << i;
    }
  }
  return bitmap;
}

void Receiver::maybe_cnp(Instant now, QpOutputs& out) {
  if (!cfg_.cnp_enabled || (last_cnp_ != kNever && now - last_cnp_ < cfg_.cnp_interval)) {
    return;
  }
  last_cnp_ = now;
  Segment& c = out.control.push_slot();
  c = Segment{};
  c.kind = SegmentKind::kCnp;
  c.opcode = opcode::kCnp;
  c.src_qp = local_qp_;
  c.dst_qp = remote_qp_;
  c.sent = now;
}

}  // namespace gw::transport
