#include "generators/transport/sender.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "core/rate.h"

namespace gw::transport {
namespace {

std::uint8_t data_opcode(Verb verb, bool first, bool last) {
  if (verb == Verb::kWrite) {
    return first ? (last ? opcode::kWriteOnly : opcode::kWriteFirst)
                 : (last ? opcode::kWriteLast : opcode::kWriteMiddle);
  }
  return first ? (last ? opcode::kSendOnly : opcode::kSendFirst)
               : (last ? opcode::kSendLast : opcode::kSendMiddle);
}

Ecn ecn_of(cc::CongestionControl::EcnMode m) {
  switch (m) {
    case cc::CongestionControl::EcnMode::kNone:
      return Ecn::kNotEct;
    case cc::CongestionControl::EcnMode::kEct0:
      return Ecn::kEct0;
    case cc::CongestionControl::EcnMode::kEct1:
      return Ecn::kEct1;
  }
  return Ecn::kNotEct;
}

}  // namespace

Sender::Sender(const TransportConfig& cfg, std::uint32_t local_qp, std::uint32_t remote_qp,
               std::unique_ptr<cc::CongestionControl> cc)
    : cfg_(cfg),
      local_qp_(local_qp),
      remote_qp_(remote_qp),
      cc_(std::move(cc)),
      rtt_(cfg.initial_rto, cfg.min_rto, cfg.max_rto),
      snd_una_(kPsnBase + cfg.initial_psn),
      snd_max_(kPsnBase + cfg.initial_psn) {}

void Sender::post(Instant now, std::uint64_t msg_id, std::uint64_t bytes) {
  msgs_.push_back(OutMessage{msg_id, bytes, now, 0});
  settle(now);
}

std::uint64_t Sender::unsent_bytes() const {
  std::uint64_t n = 0;
  for (std::size_t i = seg_msg_; i < msgs_.size(); ++i) {
    n += msgs_[i].bytes - msgs_[i].segmented;
  }
  return n;
}

SendChrono Sender::chrono(Instant now) const {
  SendChrono c = chrono_;
  if (now > state_since_) {
    c[state_] += now - state_since_;
  }
  return c;
}

void Sender::account(Instant now) {
  if (now > state_since_) {
    const Duration d = now - state_since_;
    chrono_[state_] += d;
    since_progress_[static_cast<std::size_t>(state_)] += d;
    state_since_ = now;
  }
}

void Sender::settle(Instant now) {
  account(now);
  state_ = classify(now);
}

SendState Sender::classify(Instant now) {
  if (snd_una_ == snd_max_ && seg_msg_ >= msgs_.size()) {
    return SendState::kIdle;
  }
  if (!rtx_.empty() || in_recovery()) {
    return SendState::kRecovery;
  }
  if (cut_cwnd_ != 0 && cc_->cwnd_bytes() >= cut_cwnd_) {
    cut_cwnd_ = 0;
  }
  const BitRate rate = cc_->pacing_rate();
  if (cut_rate_ != 0 && (rate.unlimited() || rate.bps >= cut_rate_)) {
    cut_rate_ = 0;
  }
  if (cut_cwnd_ == 0 && cut_rate_ == 0) {
    cut_by_loss_ = false;
  }
  const std::uint32_t wire = next_new_wire();
  if (wire == 0) {
    return SendState::kBusy;  // draining: everything sent, waiting for acknowledgements
  }
  const bool cut = cut_cwnd_ != 0 || cut_rate_ != 0;
  const SendState held = !cut           ? SendState::kCwndLimited
                         : cut_by_loss_ ? SendState::kRecovery
                                        : SendState::kCcLimited;
  if (!window_allows(wire)) {
    return held;
  }
  return cut && now < next_send_ ? held : SendState::kBusy;
}

// The standing queue as CoDel sees it (RFC 8289 §3.1: the minimum sojourn over an interval):
// per round (one SRTT), the least queueing delay any sample saw, counted once per sample. A
// step's own burst queues behind itself (its serialization, which the model has) and its
// first packets see none; a queue that persists through a round is one every packet waits in.
void Sender::note_queueing(Instant now, Duration rtt) {
  if (now >= queue_round_end_ && queue_round_samples_ > 0) {
    chrono_.rtt_queueing += queue_round_min_ * static_cast<std::int64_t>(queue_round_samples_);
    chrono_.rtt_base += rtt_.min_rtt() * static_cast<std::int64_t>(queue_round_samples_);
    queue_round_samples_ = 0;
  }
  if (queue_round_samples_ == 0) {
    queue_round_end_ = now + rtt_.srtt();
    queue_round_min_ = rtt - rtt_.min_rtt();
  }
  queue_round_min_ = std::min(queue_round_min_, rtt - rtt_.min_rtt());
  ++queue_round_samples_;
}

void Sender::note_cut(std::uint64_t cwnd_before, BitRate rate_before, bool rate_cut_counts, bool loss) {
  bool cut = false;
  if (cc_->cwnd_bytes() < cwnd_before) {
    cut_cwnd_ = std::max(cut_cwnd_, cwnd_before);
    cut = true;
  }
  const BitRate rate = cc_->pacing_rate();
  if (rate_cut_counts && !rate.unlimited() && (rate_before.unlimited() || rate.bps < rate_before.bps)) {
    cut_rate_ = std::max(cut_rate_, rate_before.unlimited() ? UINT64_MAX : rate_before.bps);
    cut = true;
  }
  if (cut && loss) {
    cut_by_loss_ = true;  // a loss's cut and any pending one: the regrowth is the loss's
  } else if (cut && !loss) {
    ++chrono_.cc_cuts;
  }
}

std::optional<Sender::SentPacket> Sender::peek_new() const {
  if (seg_msg_ >= msgs_.size() || snd_max_ - snd_una_ >= cfg_.max_outstanding_packets) {
    return std::nullopt;
  }
  const OutMessage& m = msgs_[seg_msg_];
  SentPacket p;
  p.msg_id = m.id;
  p.msg_offset = m.segmented;
  p.posted = m.posted;
  p.payload = static_cast<std::uint32_t>(std::min<std::uint64_t>(cfg_.mtu_bytes, m.bytes - m.segmented));
  p.last = m.segmented + p.payload == m.bytes;
  p.opcode = data_opcode(cfg_.verb, m.segmented == 0, p.last);
  p.wire = data_wire_bytes(p.opcode, p.payload);
  return p;
}

std::uint32_t Sender::next_new_wire() const {
  if (seg_msg_ >= msgs_.size() || snd_max_ - snd_una_ >= cfg_.max_outstanding_packets) {
    return 0;
  }
  const OutMessage& m = msgs_[seg_msg_];
  const auto payload =
      static_cast<std::uint32_t>(std::min<std::uint64_t>(cfg_.mtu_bytes, m.bytes - m.segmented));
  const bool last = m.segmented + payload == m.bytes;
  return data_wire_bytes(data_opcode(cfg_.verb, m.segmented == 0, last), payload);
}

bool Sender::window_allows(std::uint32_t wire) const {
  // One packet may always be in flight, so that a window below one packet cannot deadlock.
  return in_flight_ == 0 || in_flight_ + wire <= cc_->cwnd_bytes();
}

std::optional<Segment> Sender::poll_data(Instant now, QpOutputs& out) {
  std::optional<Segment> s = next_data(now, out);
  settle(now);
  return s;
}

std::optional<Segment> Sender::next_data(Instant now, QpOutputs& out) {
  // A tail loss probe goes at once, beyond the window and the pacing (RFC 8985 §7.3).
  if (probe_psn_) {
    const std::uint64_t psn = *probe_psn_;
    probe_psn_.reset();
    if (psn >= snd_una_ && psn < snd_max_ && !sent_[psn - snd_una_].sacked) {
      ++out.stats.loss_probes;
      return transmit(now, psn, true, out);
    }
  }
  const bool probe = std::exchange(probe_new_, false);
  if (!probe && now < next_send_) {
    return std::nullopt;
  }
  clean_rtx_front();
  if (!rtx_.empty()) {
    const std::uint64_t psn = rtx_.front();
    if (!probe && !window_allows(sent_[psn - snd_una_].wire)) {
      return std::nullopt;
    }
    rtx_.pop_discard();
    return transmit(now, psn, true, out);
  }
  const std::optional<SentPacket> p = peek_new();
  if (!p) {
    if (seg_msg_ >= msgs_.size()) {  // nothing to send: samples from now on are app-limited
      app_limited_until_ = std::max<std::uint64_t>(delivered_ + in_flight_, 1);
    }
    return std::nullopt;
  }
  if (!probe && !window_allows(p->wire)) {
    return std::nullopt;
  }
  OutMessage& m = msgs_[seg_msg_];
  m.segmented += p->payload;
  if (p->last) {
    ++seg_msg_;
  }
  sent_.push_back(*p);
  if (probe) {
    ++out.stats.loss_probes;
  }
  Segment s = transmit(now, snd_max_++, false, out);
  arm_pto(now);  // §7.2: after new data is sent
  return s;
}

Segment Sender::transmit(Instant now, std::uint64_t psn, bool retransmission, QpOutputs& out) {
  SentPacket& p = sent_[psn - snd_una_];
  if (in_flight_ == 0) {  // draft-cheng §3.2: start a new sampling interval
    first_sent_time_ = now;
    delivered_time_ = now;
  }
  p.sent_time = now;
  p.first_sent_time = first_sent_time_;
  p.delivered_time = delivered_time_;
  p.delivered = delivered_;
  p.app_limited = app_limited_until_ != 0;
  p.tx_seq = ++tx_seq_;
  p.tx_count = static_cast<std::uint8_t>(std::min(255, p.tx_count + 1));
  if (!p.in_flight) {  // a probe may resend a packet still in flight
    p.in_flight = true;
    in_flight_ += p.wire;
  }
  p.lost = false;
  if (cfg_.recovery == Recovery::kSelectiveRepeat) {
    tx_order_.push_back(TxRecord{psn, p.tx_seq});
  }

  // Pacing: the next data packet leaves wire*8/rate after this one, carrying the remainder
  // so that a run of back-to-back packets keeps the exact long-run rate.
  const BitRate rate = cc_->pacing_rate();
  if (rate.unlimited()) {
    next_send_ = now;
    pace_rem_ = 0;
  } else {
    if (rate.bps != pace_rate_ || now != next_send_) {
      pace_rem_ = 0;
    }
    pace_rate_ = rate.bps;
    const u128 num = static_cast<u128>(p.wire) * 8'000'000'000ULL + pace_rem_;
    next_send_ = now + Duration{static_cast<std::int64_t>(num / rate.bps)};
    pace_rem_ = static_cast<std::uint64_t>(num % rate.bps);
  }
  if (rto_deadline_ == kNever) {  // RFC 6298 §5.1
    rto_deadline_ = now + rtt_.rto();
  }

  QpStats& st = out.stats;
  ++st.data_packets_sent;
  st.data_bytes_sent += p.wire;
  if (retransmission) {
    ++st.retransmitted_packets;
    st.retransmitted_bytes += p.wire;
    if (undo_armed_) {
      ++undo_retrans_;
    }
  }
  cc_->on_packet_sent(cc::SentEvent{now, p.wire, in_flight_, retransmission});

  Segment s;
  s.kind = SegmentKind::kData;
  s.opcode = p.opcode;
  s.ecn = ecn_of(cc_->ecn_mode());
  s.last = p.last;
  s.ack_req = p.last;
  s.src_qp = local_qp_;
  s.dst_qp = remote_qp_;
  s.psn = wire_psn(psn);
  s.payload_bytes = p.payload;
  s.msg_id = p.msg_id;
  s.msg_offset = p.msg_offset;
  s.msg_posted = p.posted;
  s.sent = now;
  return s;
}

void Sender::mark_delivered(SentPacket& p, QpOutputs& out) {
  if (p.in_flight) {
    p.in_flight = false;
    in_flight_ -= p.wire;
  }
  p.lost = false;
  delivered_ += p.wire;
  out.stats.bytes_delivered += p.payload;
}

void Sender::rack_update(Instant now, std::uint64_t psn, const SentPacket& p, bool trigger,
                         Instant echo_sent) {
  // §6.2 step 3: the trigger itself arrived after a higher PSN, and was sent once.
  if (psn > rack_fack_) {
    rack_fack_ = psn;
  } else if (trigger && p.tx_count == 1) {
    reordering_seen_ = true;
  }
  // Step 2: a retransmitted packet's delivery may be the original's. The trigger's echoed send
  // time tells; for the others, a delivery sooner than min_RTT after the resend is the original.
  if (p.tx_count > 1) {
    if (trigger ? echo_sent != p.sent_time : now - p.sent_time < rtt_.min_rtt()) {
      return;
    }
  }
  if (p.tx_seq > rack_tx_seq_) {
    rack_tx_seq_ = p.tx_seq;
    rack_xmit_ = p.sent_time;
    rack_rtt_ = now - p.sent_time;
  }
}

// §6.2 step 4 (RACK_update_reo_wnd's result).
Duration Sender::reo_wnd() const {
  if (!reordering_seen_ && (in_recovery() || sacked_ >= cfg_.reorder_threshold)) {
    return Duration{0};
  }
  return std::min(rtt_.min_rtt() / 4 * reo_wnd_mult_, rtt_.srtt());
}

// §7.2: PTO = 2 SRTT (+ the receiver's ACK delay when one packet is out), at least min_pto;
// none before an RTT sample, while a probe is unanswered, or while resends wait.
void Sender::arm_pto(Instant now) {
  pto_deadline_ = kNever;
  if (cfg_.recovery != Recovery::kSelectiveRepeat || tlp_out_ || snd_una_ == snd_max_ ||
      rtt_.samples() == 0 || !rtx_.empty()) {
    return;
  }
  Duration pto = 2 * rtt_.srtt();
  if (snd_max_ - snd_una_ == 1) {
    pto += cfg_.ack_delay;
  }
  pto = std::max(pto, cfg_.min_pto);
  if (now + pto < rto_deadline_) {
    pto_deadline_ = now + pto;
  }
}

void Sender::on_ack(Instant now, const Segment& s, QpOutputs& out) {
  account(now);
  ack(now, s, out);
  settle(now);
}

void Sender::ack(Instant now, const Segment& s, QpOutputs& out) {
  QpStats& st = out.stats;
  const bool nak = s.kind == SegmentKind::kNak;
  std::uint64_t acked_to = unwrap_psn(snd_una_, s.psn) + (nak ? 0 : 1);
  if (acked_to > snd_max_) {  // acknowledges PSNs never sent: corrupt or misdirected
    ++st.invalid_segments;
    return;
  }
  ++(nak ? st.naks_received : st.acks_received);
  acked_to = std::max(acked_to, snd_una_);
  if (s.ce_bytes > ce_seen_) {
    ce_pending_ += s.ce_bytes - ce_seen_;
    ce_seen_ = s.ce_bytes;
  }

  // RTT sample from the triggering packet, only if it was sent once (Karn's rule).
  Duration rtt{0};
  const std::uint64_t echo = unwrap_psn(snd_una_, s.echo_psn);
  if (echo >= snd_una_ && echo < snd_max_) {
    const SentPacket& p = sent_[echo - snd_una_];
    if (p.tx_count == 1 && p.sent_time == s.echo_sent && now >= p.sent_time) {
      rtt = now - p.sent_time;
    }
  }

  // Newly delivered packets: cumulatively acknowledged ones, then SACKed ones. `newest` is
  // the most recently sent of them, the packet the delivery-rate sample is taken from.
  const std::uint64_t delivered_before = delivered_;
  std::optional<SentPacket> newest;
  auto note = [&newest](const SentPacket& p) {
    if (!newest || p.tx_seq > newest->tx_seq) {
      newest = p;
    }
  };
  const bool sr = cfg_.recovery == Recovery::kSelectiveRepeat;
  const bool was_in_recovery = in_recovery();
  while (snd_una_ < acked_to) {
    SentPacket& p = sent_.front();
    if (p.sacked) {
      --sacked_;
    } else {
      mark_delivered(p, out);
      note(p);
      if (sr) {
        rack_update(now, snd_una_, p, snd_una_ == echo, s.echo_sent);
      }
    }
    if (p.last) {
      const OutMessage m = msgs_.pop_front();
      --seg_msg_;
      ++st.messages_sent;
      out.completions.push_back(Completion{CompletionKind::kSent, m.id, m.bytes, m.posted, now});
    }
    sent_.pop_discard();
    ++snd_una_;
  }
  auto sack_block = [&](std::uint32_t base24, std::uint64_t bitmap) {
    const std::uint64_t base = unwrap_psn(snd_una_, base24);
    for (std::uint64_t bits = bitmap; bits != 0; bits &= bits - 1) {
      const std::uint64_t psn = base + static_cast<std::uint64_t>(std::countr_zero(bits));
      if (psn >= snd_una_ && psn < snd_max_ && !sent_[psn - snd_una_].sacked) {
        SentPacket& p = sent_[psn - snd_una_];
        p.sacked = true;
        ++sacked_;
        mark_delivered(p, out);
        note(p);
        rack_update(now, psn, p, psn == echo, s.echo_sent);
      }
    }
  };
  if (s.sack_valid && sr) {
    sack_block(s.sack_base, s.sack_bitmap);
    sack_block(s.sack2_base, s.sack2_bitmap);
  }
  if (sr) {  // RFC 8985 §6.2 step 4: D-SACK rounds widen the reordering window
    if (dsack_round_ != 0 && snd_una_ >= dsack_round_) {
      dsack_round_ = 0;
    }
    if (s.dsack) {
      ++st.dsacks_received;
      reordering_seen_ = true;  // a resend was not needed: the original came late (Linux too)
      if (undo_armed_ && undo_retrans_ > 0 && --undo_retrans_ == 0) {
        undo_armed_ = false;
        ++st.loss_undos;
        cc_->on_loss_undone(now);
      }
      if (dsack_round_ == 0) {
        reo_wnd_mult_ = std::min<std::uint32_t>(reo_wnd_mult_ + 1, 64);
        dsack_round_ = snd_max_;
        reo_wnd_persist_ = 16;
      }
    } else if (was_in_recovery && !in_recovery() && reo_wnd_persist_ > 0 && --reo_wnd_persist_ == 0) {
      reo_wnd_mult_ = 1;
    }
  }

  // The episode is over once everything outstanding at its losses is acknowledged. No resend
  // outstanding then (none was needed: each "lost" packet arrived before its resend went out,
  // or every resend was D-SACKed) means no loss at all: undo (Linux's tcp_may_undo with
  // undo_retrans 0). With resends outstanding it stays armed: their D-SACKs come a round trip
  // after them, and the next loss starts a new episode anyway.
  if (undo_armed_ && snd_una_ >= undo_end_ && undo_retrans_ == 0) {
    undo_armed_ = false;
    ++st.loss_undos;
    cc_->on_loss_undone(now);
  }
  const std::uint64_t acked = delivered_ - delivered_before;
  if (acked > 0) {
    if (rtt.count() > 0) {
      rtt_.on_sample(rtt);
      ++st.rtt_samples;
      note_queueing(now, rtt);
    }
    since_progress_ = {};
    cc::AckEvent e;
    e.now = now;
    e.acked_bytes = acked;
    e.bytes_in_flight = in_flight_;
    e.rtt = rtt;
    e.min_rtt = rtt_.min_rtt();
    e.one_way_delay = s.echo_arrival >= s.echo_sent ? s.echo_arrival - s.echo_sent : Duration{0};
    e.ce_bytes = std::min(ce_pending_, acked);
    ce_pending_ -= e.ce_bytes;
    delivered_time_ = now;
    e.delivered_bytes = delivered_;
    // draft-cheng §3.3. Only a packet sent after the last sample's packet makes a sample, as
    // Linux's tcp_rate_skb_delivered() does: a packet delivered late by reordering would set
    // first_sent_time back, and every sample after it would span too long a send interval
    // (BBR then sees a fraction of the delivery rate and never leaves startup).
    if (newest && newest->sent_time >= first_sent_time_) {
      const Duration send_elapsed = newest->sent_time - newest->first_sent_time;
      const Duration ack_elapsed = delivered_time_ - newest->delivered_time;
      first_sent_time_ = newest->sent_time;
      e.sample_delivered = delivered_ - newest->delivered;
      e.sample_interval = std::max(send_elapsed, ack_elapsed);
      e.app_limited = newest->app_limited;
    }
    if (app_limited_until_ != 0 && delivered_ > app_limited_until_) {
      app_limited_until_ = 0;
    }
    e.int_hops = s.hops();
    chrono_.ce_bytes += e.ce_bytes;
    const std::uint64_t cwnd_before = cc_->cwnd_bytes();
    cc_->on_ack(e);
    note_cut(cwnd_before, BitRate{}, false, false);
    rto_deadline_ = snd_una_ < snd_max_ ? now + rtt_.rto() : kNever;  // RFC 6298 §5.2, §5.3
    tlp_out_ = false;
    arm_pto(now);  // RFC 8985 §7.2: on an ACK of new data
  }

  if (nak && acked_to < snd_max_) {
    // Stale if the NAKed packet was resent after the NAK's trigger left the sender.
    if (sent_.front().sent_time > s.echo_sent) {
      ++st.stale_naks_ignored;
    } else {
      rewind(now, acked_to, false, out);
    }
  }
  if (sr) {
    detect_reorder_losses(now, out);
  }
  clean_rtx_front();
}

void Sender::on_cnp(Instant now, QpOutputs& out) {
  account(now);
  ++out.stats.cnps_received;
  const std::uint64_t cwnd_before = cc_->cwnd_bytes();
  const BitRate rate_before = cc_->pacing_rate();
  cc_->on_cnp(now);
  note_cut(cwnd_before, rate_before, true, false);
  settle(now);
}

void Sender::declare_lost(SentPacket& p, std::uint64_t psn, std::uint64_t& lost_bytes, QpOutputs& out) {
  if (p.in_flight) {
    p.in_flight = false;
    in_flight_ -= p.wire;
    lost_bytes += p.wire;
  }
  if (!p.lost) {
    ++out.stats.packets_declared_lost;
  }
  p.lost = true;
  rtx_.push_back(psn);
  if (!in_recovery()) {
    recovery_end_ = snd_max_;
  }
  pto_deadline_ = kNever;
}

// Every unacknowledged, unSACKed packet from `from` on is lost (NAK or RTO); resent in order.
void Sender::rewind(Instant now, std::uint64_t from, bool timeout, QpOutputs& out) {
  rtx_.clear();
  tx_order_.clear();
  reo_timer_ = kNever;
  std::uint64_t lost_bytes = 0;
  for (std::uint64_t psn = from; psn < snd_max_; ++psn) {
    SentPacket& p = sent_[psn - snd_una_];
    if (!p.sacked) {
      declare_lost(p, psn, lost_bytes, out);
    }
  }
  if (lost_bytes > 0 || timeout) {
    const bool start = arm_undo(timeout);
    cc_->on_loss(cc::LossEvent{now, lost_bytes, in_flight_, timeout, start});
    cut_cwnd_ = 0;  // a loss supersedes: the regrowth from here is recovery and window
    cut_rate_ = 0;
  }
}

// A new episode arms the undo (true: this loss starts it); a loss while an episode's data is
// still outstanding joins it, so one undo restores the window from before its first reduction.
// An RTO disarms it (after a timeout the window restarts from one packet whatever the D-SACKs
// say, as without F-RTO).
bool Sender::arm_undo(bool timeout) {
  if (timeout) {
    undo_armed_ = false;
    undo_retrans_ = 0;
    return false;
  }
  if (!undo_armed_ || snd_una_ >= undo_end_) {  // not armed, or the last episode's data all acknowledged
    undo_armed_ = true;
    undo_retrans_ = 0;
    undo_end_ = snd_max_;
    return true;
  }
  undo_end_ = snd_max_;
  return false;
}

// RFC 8985 §6.2 step 5 over the transmissions in order: those sent before the RACK packet
// are lost once their deadline has passed; the first one still inside it sets the timer.
void Sender::detect_reorder_losses(Instant now, QpOutputs& out) {
  reo_timer_ = kNever;
  const Duration wnd = reo_wnd();
  std::uint64_t lost_bytes = 0;
  while (!tx_order_.empty()) {
    const TxRecord r = tx_order_.front();
    if (r.psn < snd_una_) {
      tx_order_.pop_discard();
      continue;
    }
    SentPacket& p = sent_[r.psn - snd_una_];
    if (p.tx_seq != r.tx_seq || p.sacked || p.lost) {  // resent since, delivered, or judged
      tx_order_.pop_discard();
      continue;
    }
    if (r.tx_seq >= rack_tx_seq_) {
      break;
    }
    const Instant deadline =
        p.sent_time + rack_rtt_ + wnd + spread_ + (p.sent_time <= moved_at_ ? move_lag_ : Duration{0});
    if (now < deadline) {
      reo_timer_ = deadline;
      break;
    }
    declare_lost(p, r.psn, lost_bytes, out);
    tx_order_.pop_discard();
  }
  if (lost_bytes > 0) {
    const bool start = arm_undo(false);
    const std::uint64_t cwnd_before = cc_->cwnd_bytes();
    const BitRate rate_before = cc_->pacing_rate();
    cc_->on_loss(cc::LossEvent{now, lost_bytes, in_flight_, false, start});
    note_cut(cwnd_before, rate_before, true, true);
  }
}

void Sender::path_changed(Instant now, Duration lag) {
  moved_at_ = now;
  move_lag_ = std::max(lag, Duration{0});
}

void Sender::clean_rtx_front() {
  while (!rtx_.empty()) {
    const std::uint64_t psn = rtx_.front();
    if (psn >= snd_una_ && sent_[psn - snd_una_].lost) {
      break;
    }
    rtx_.pop_discard();
  }
}

void Sender::on_timers(Instant now, QpOutputs& out) {
  account(now);
  fire_timers(now, out);
  settle(now);
}

void Sender::fire_timers(Instant now, QpOutputs& out) {
  if (now >= reo_timer_) {
    detect_reorder_losses(now, out);
  }
  if (now >= pto_deadline_) {  // RFC 8985 §7.3: new data if there is any, else the last packet
    pto_deadline_ = kNever;
    if (snd_una_ < snd_max_ && !tlp_out_ && rtx_.empty()) {
      tlp_out_ = true;
      if (peek_new()) {
        probe_new_ = true;
      } else {
        std::uint64_t psn = snd_max_ - 1;
        while (psn > snd_una_ && sent_[psn - snd_una_].sacked) {
          --psn;
        }
        probe_psn_ = psn;
      }
      rto_deadline_ = now + rtt_.rto();
    }
  }
  if (now >= rto_deadline_) {
    if (snd_una_ == snd_max_) {
      rto_deadline_ = kNever;
    } else {
      ++out.stats.timeouts;
      // The time since the last acknowledgement of new data went on waiting for this timer.
      for (std::size_t i = 0; i < kSendStates; ++i) {
        if (static_cast<SendState>(i) != SendState::kIdle &&
            static_cast<SendState>(i) != SendState::kRecovery) {
          chrono_.time[i] -= since_progress_[i];
          chrono_[SendState::kRecovery] += since_progress_[i];
        }
      }
      since_progress_ = {};
      rtt_.on_timeout();
      rto_deadline_ = now + rtt_.rto();  // §5.6
      rewind(now, snd_una_, true, out);
    }
  }
  if (cc_->next_timer() <= now) {
    cc_->on_timer(now);
  }
}

Instant Sender::next_wakeup() const {
  if (probe_psn_ || probe_new_) {
    return kEpoch;  // due now
  }
  Instant t = std::min({rto_deadline_, cc_->next_timer(), reo_timer_, pto_deadline_});
  std::uint32_t wire = 0;
  if (!rtx_.empty()) {
    wire = sent_[rtx_.front() - snd_una_].wire;
  } else if ((wire = next_new_wire()) == 0) {
    return t;  // nothing to send
  }
  return window_allows(wire) ? std::min(t, next_send_) : t;
}

}  // namespace gw::transport
