// The sending half of a queue pair: segments posted messages into MTU-sized packets, sends
// them within the controller's window and at its pacing rate, processes ACKs/NAKs/CNPs,
// detects losses and retransmits, and feeds the congestion controller.
//
// Per-packet state lives in a ring indexed by PSN (slot i = PSN snd_una_ + i), so an ACK
// touches only the packets it newly acknowledges: nothing is scanned per ACK. Losses:
//  - NAK (go-back-N): every unacknowledged packet from the NAKed PSN on is lost and resent,
//    unless the NAKed PSN was already resent after the NAK's triggering packet left (a stale
//    or duplicated NAK), so one gap causes one rewind.
//  - SACK (selective repeat): RACK-TLP, RFC 8985. A packet is lost once a packet sent after
//    it has been delivered and a reordering window has passed since: now >= its send time +
//    RACK.rtt + RACK.reo_wnd (§6.2), checked on every ACK and by a reordering timer. The
//    window is 0 until reordering has been seen (while >= DupThresh packets are SACKed or in
//    recovery), else min_RTT/4, widened by each round with a D-SACK (the receiver flags a
//    duplicate) and reset after 16 recoveries without one. A delivery of a retransmitted
//    packet that came sooner than min_RTT is the original's (§6.2 step 2), so a lost ACK or
//    a late original never makes later transmissions look lost. Transmissions are kept in
//    order in a FIFO, so each is examined once; retransmissions are covered too. A tail loss
//    probe (§7) fires 2 SRTT (at least min_pto) after the last send or ACK: it sends new data,
//    else the last packet again, so that a lost tail is found by RACK instead of the RTO.
//  - RTO (RFC 6298 §5): everything unacknowledged and not SACKed is lost; the RTO backs off.
// Delivery-rate samples follow draft-cheng-iccrg-delivery-rate-estimation-02 §3.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>

#include "core/ring.h"
#include "core/time.h"
#include "generators/cc/congestion_control.h"
#include "generators/transport/qp_types.h"
#include "generators/transport/rtt_estimator.h"
#include "generators/transport/segment.h"
#include "generators/transport/transport_config.h"

namespace gw::transport {

class Sender {
 public:
  Sender(const TransportConfig& cfg, std::uint32_t local_qp, std::uint32_t remote_qp,
         std::unique_ptr<cc::CongestionControl> cc);

  void post(Instant now, std::uint64_t msg_id, std::uint64_t bytes);
  void on_ack(Instant now, const Segment& s, QpOutputs& out);  // ACK or NAK
  void on_cnp(Instant now, QpOutputs& out);
  // Fires the RTO and the controller's timer when due.
  void on_timers(Instant now, QpOutputs& out);
  // One data packet if one is due at `now` (retransmissions first) and the window allows.
  std::optional<Segment> poll_data(Instant now, QpOutputs& out);
  // The earliest time poll_data or on_timers could act; may lie before the caller's `now`.
  Instant next_wakeup() const;
  // The queue pair was moved to another network path at `now`, whose one-way delay is `lag`
  // shorter: packets sent before may arrive after later ones, so RACK gives them `lag` more
  // before judging them lost (generators/steering, docs/steering.md "Moves without reordering").
  void path_changed(Instant now, Duration lag);
  // Packets of this queue pair are sprayed over paths whose one-way delays differ by up to
  // `spread`: RACK gives every packet that much more before judging it lost (0: none).
  void set_reorder_allowance(Duration spread) { spread_ = std::max(spread, Duration{0}); }

  const cc::CongestionControl& cc() const { return *cc_; }
  const RttEstimator& rtt() const { return rtt_; }
  std::uint64_t bytes_in_flight() const { return in_flight_; }
  // Payload bytes posted and not yet cut into packets: what the sender could still send new.
  std::uint64_t unsent_bytes() const;
  // Where this sender's time went up to `now` (qp_types.h SendChrono).
  SendChrono chrono(Instant now) const;

 private:
  struct OutMessage {
    std::uint64_t id = 0;
    std::uint64_t bytes = 0;
    Instant posted{};
    std::uint64_t segmented = 0;  // bytes already cut into packets
  };
  struct SentPacket {
    std::uint64_t msg_id = 0;
    std::uint64_t msg_offset = 0;
    Instant posted{};
    Instant sent_time{};        // of the latest transmission
    Instant first_sent_time{};  // delivery-rate state at that transmission (draft §3.2)
    Instant delivered_time{};
    std::uint64_t delivered = 0;
    std::uint64_t tx_seq = 0;  // transmission-order number of the latest transmission
    std::uint32_t payload = 0;
    std::uint32_t wire = 0;
    std::uint8_t opcode = 0;
    std::uint8_t tx_count = 0;  // saturates at 255
    bool last = false;
    bool app_limited = false;
    bool in_flight = false;
    bool sacked = false;
    bool lost = false;  // waiting in rtx_ for retransmission
  };
  struct TxRecord {
    std::uint64_t psn = 0;
    std::uint64_t tx_seq = 0;
  };

  std::optional<Segment> next_data(Instant now, QpOutputs& out);
  void ack(Instant now, const Segment& s, QpOutputs& out);
  void fire_timers(Instant now, QpOutputs& out);
  std::optional<SentPacket> peek_new() const;
  // The wire bytes of the packet peek_new() would cut, or 0 when it would cut none.
  std::uint32_t next_new_wire() const;
  bool window_allows(std::uint32_t wire) const;
  // RFC 8985 §6.2: RACK's view of a packet this ACK delivered (`trigger`: the one it echoes).
  void rack_update(Instant now, std::uint64_t psn, const SentPacket& p, bool trigger, Instant echo_sent);
  Duration reo_wnd() const;
  void arm_pto(Instant now);
  bool in_recovery() const { return recovery_end_ > snd_una_; }
  Segment transmit(Instant now, std::uint64_t psn, bool retransmission, QpOutputs& out);
  void mark_delivered(SentPacket& p, QpOutputs& out);
  void declare_lost(SentPacket& p, std::uint64_t psn, std::uint64_t& lost_bytes, QpOutputs& out);
  void rewind(Instant now, std::uint64_t from, bool timeout, QpOutputs& out);
  bool arm_undo(bool timeout);
  void detect_reorder_losses(Instant now, QpOutputs& out);
  void clean_rtx_front();
  // Charges the time since the last call to the state held since; settle() also finds the
  // state from `now` on. Every entry point settles before it returns.
  void account(Instant now);
  void settle(Instant now);
  SendState classify(Instant now);
  // The controller reacted to a loss (`loss`) or another signal: a cut if its window (or, with
  // `rate_cut_counts`, its rate) is now lower, pending until it is back to the level before.
  void note_queueing(Instant now, Duration rtt);
  void note_cut(std::uint64_t cwnd_before, BitRate rate_before, bool rate_cut_counts, bool loss);

  TransportConfig cfg_;
  std::uint32_t local_qp_;
  std::uint32_t remote_qp_;
  std::unique_ptr<cc::CongestionControl> cc_;
  RttEstimator rtt_;

  Ring<OutMessage> msgs_;    // front: oldest message not yet completely acknowledged
  std::size_t seg_msg_ = 0;  // index in msgs_ of the message being segmented
  Ring<SentPacket> sent_;    // slot i: PSN snd_una_ + i
  std::uint64_t snd_una_;    // oldest unacknowledged PSN
  std::uint64_t snd_max_;    // next new PSN
  Ring<std::uint64_t> rtx_;  // PSNs to resend, in order
  Ring<TxRecord> tx_order_;  // selective repeat: transmissions not yet judged
  std::uint64_t tx_seq_ = 0;
  // RACK (RFC 8985 §6.1): the most recently sent packet known delivered, its RTT, the highest
  // PSN delivered, and the reordering window's state.
  std::uint64_t rack_tx_seq_ = 0;
  Instant rack_xmit_ = kEpoch;
  Duration rack_rtt_{0};
  std::uint64_t rack_fack_ = 0;
  bool reordering_seen_ = false;
  // The last path change: when, and by how much the old path lags the new one.
  Instant moved_at_ = kEpoch - Duration{1};
  Duration move_lag_{0};
  Duration spread_{0};  // set_reorder_allowance
  std::uint32_t reo_wnd_mult_ = 1;
  std::uint32_t reo_wnd_persist_ = 0;
  std::uint64_t dsack_round_ = 0;  // 0: none; else the PSN whose acknowledgement ends the round
  // Undo of a loss episode whose resends were all spurious (Linux's undo_marker/undo_retrans):
  // armed when a loss (not an RTO) is declared outside an armed episode, counting its resends;
  // each D-SACK takes one off, and at zero the controller's reduction is undone; so is an
  // episode that ends (everything outstanding at its losses acknowledged) with none left.
  bool undo_armed_ = false;
  std::uint64_t undo_retrans_ = 0;
  std::uint64_t undo_end_ = 0;      // snd_max when the episode began
  std::uint64_t recovery_end_ = 0;  // in recovery while snd_una_ < this
  std::uint64_t sacked_ = 0;        // packets above snd_una_ SACKed
  Instant reo_timer_ = kNever;
  Instant pto_deadline_ = kNever;
  bool tlp_out_ = false;                    // a probe is out, unanswered by new data acknowledged
  std::optional<std::uint64_t> probe_psn_;  // the packet the probe resends, when not new data
  bool probe_new_ = false;                  // the probe sends new data
  std::uint64_t in_flight_ = 0;             // wire bytes sent, not delivered, not declared lost

  Instant next_send_ = kEpoch;  // pacing: earliest time of the next data packet
  std::uint64_t pace_rem_ = 0;  // sub-nanosecond remainder, in bit-ns units of pace_rate_
  std::uint64_t pace_rate_ = 0;
  Instant rto_deadline_ = kNever;

  std::uint64_t delivered_ = 0;  // draft-cheng C.delivered, wire bytes
  Instant delivered_time_ = kEpoch;
  Instant first_sent_time_ = kEpoch;
  std::uint64_t app_limited_until_ = 0;  // C.app_limited: 0 = not app-limited

  SendChrono chrono_;
  SendState state_ = SendState::kIdle;
  Instant state_since_ = kEpoch;
  std::array<Duration, kSendStates> since_progress_{};  // charged since the last ACK of new data
  std::uint64_t cut_cwnd_ = 0;                          // the window before a cut not yet made good; 0: none
  std::uint64_t cut_rate_ = 0;        // the same for the pacing rate after a CNP or loss, bit/s
  bool cut_by_loss_ = false;          // the pending cut includes a loss's
  Instant queue_round_end_ = kEpoch;  // note_queueing's round
  Duration queue_round_min_{0};
  std::uint64_t queue_round_samples_ = 0;

  std::uint64_t ce_seen_ = 0;     // the peer's cumulative CE byte count, as last seen
  std::uint64_t ce_pending_ = 0;  // CE bytes reported but not yet attributed to acked bytes
};

}  // namespace gw::transport
