#include "harness/live/endpoints/qp_driver.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <tuple>

#include "harness/live/endpoints/wire.h"

namespace gw::endpoints {

namespace {

constexpr int kPollsPerQp = 64;  // segments one QP may emit per round (fairness)
// How far behind a late QP may be polled: a stall up to this long (an endpoint waiting for a
// CPU on a loaded host) costs no rate, it leaves as a burst afterwards (at 45 Mbit/s, 20 ms is
// 77 packets of 1.4 KB, which the emulator's queue smooths); a longer one loses the rest.
constexpr Duration kCatchUp{20'000'000};

}  // namespace

std::string peer_text(const PeerAddress& peer) {
  in_addr a{};
  a.s_addr = peer.ip;
  std::array<char, INET_ADDRSTRLEN> text{};
  inet_ntop(AF_INET, &a, text.data(), text.size());
  return std::string(text.data()) + ":" + std::to_string(ntohs(peer.port));
}

QpDriver::QpDriver(QpSettings settings, SegmentWire& wire, EndpointCounters& counters)
    : settings_(std::move(settings)), wire_(wire), counters_(counters) {}

void QpDriver::require_sending_qp(std::uint32_t qp) {
  if (qp % 2 != 0) {
    throw std::invalid_argument("endpoint: sending QP numbers are even, got " + std::to_string(qp));
  }
}

const PeerAddress* QpDriver::peer(std::uint32_t qp) const {
  const auto it = slots_.find(qp);
  return it == slots_.end() ? nullptr : &it->second.peer;
}

QpDriver::Slot& QpDriver::open(std::uint32_t qp, const PeerAddress& peer, bool sending, std::int32_t path) {
  Slot slot;
  cc::CcContext ctx = settings_.cc_context;
  ctx.mss_bytes = settings_.transport.mtu_bytes;
  std::string name = sending ? settings_.cc : "fixed";
  cc::CcParams params = sending ? settings_.cc_params : cc::CcParams{};
  if (const auto own = controllers_.find(qp); sending && own != controllers_.end()) {
    std::tie(name, params) = own->second;
  }
  slot.qp = std::make_unique<transport::QueuePair>(settings_.transport, qp, sending ? qp + 1 : qp - 1,
                                                   cc::make_congestion_control(name, ctx, params));
  slot.peer = peer;
  slot.sending = sending;
  slot.path = path;
  Lane& l = lane(slot);
  slot.turn = l.scheduler.add();
  l.qp_of.push_back(qp);
  return slots_.emplace(qp, std::move(slot)).first->second;
}

void QpDriver::set_controller(std::uint32_t qp, std::string cc, cc::CcParams params) {
  require_sending_qp(qp);
  controllers_[qp] = {std::move(cc), std::move(params)};
}

void QpDriver::post(std::uint32_t qp, const PeerAddress& to, std::uint64_t msg_id, std::uint64_t bytes,
                    Instant now, std::int32_t path) {
  auto it = slots_.find(qp);
  Slot& slot = it == slots_.end() ? open(qp, to, true, path) : it->second;
  slot.last_now = std::max(slot.last_now, now);
  slot.qp->post_message(slot.last_now, msg_id, bytes);
  touch(slot, now);
}

bool QpDriver::move(std::uint32_t qp, std::int32_t path, Duration lag, Instant now) {
  const auto it = slots_.find(qp);
  if (it == slots_.end() || !it->second.sending) {
    return false;
  }
  Slot& slot = it->second;
  slot.path = path;
  slot.last_now = std::max(slot.last_now, now);
  slot.qp->path_changed(slot.last_now, lag);
  touch(slot, now);
  return true;
}

void QpDriver::touch(Slot& slot, Instant now) {
  lane(slot).scheduler.touch(slot.turn, slot.qp->next_wakeup(), now);
}

void QpDriver::collect(Slot& slot, std::uint32_t qp) {
  for (const transport::Completion& c : slot.qp->completions()) {
    if (c.kind == transport::CompletionKind::kReceived) {
      deliveries_.push_back(Delivery{qp, c.msg_id, c.bytes, c.posted, c.completed});
    }
  }
  slot.qp->clear_completions();
}

std::optional<Duration> QpDriver::on_datagram(std::span<const std::uint8_t> data, std::uint8_t tos,
                                              const PeerAddress& from, bool remote, Instant now,
                                              std::int32_t path) {
  ++counters_.datagrams_received;
  counters_.bytes_received += data.size();
  const auto ecn = static_cast<transport::Ecn>(tos & 0x3);
  std::optional<transport::Segment> s = decode_segment(data, 0, ecn);
  if (!s) {
    ++counters_.undecodable;
    return std::nullopt;
  }
  auto it = slots_.find(s->dst_qp);
  Slot* slot = nullptr;
  if (it != slots_.end()) {
    slot = &it->second;
  } else if (s->kind == transport::SegmentKind::kData && s->dst_qp % 2 == 1) {
    slot = &open(s->dst_qp, from, false, path);  // replies go back where the data came from
    ++counters_.receiving_qps_opened;
  } else {
    ++counters_.unknown_qp;
    return std::nullopt;
  }
  if (!slot->sending && s->kind == transport::SegmentKind::kData) {
    slot->path = path;  // a receiver answers on the path its sender is on now
  }
  s->src_qp = slot->qp->remote_qp();
  if (slot->sending && lane(*slot).scheduler.due(slot->turn) <= now) {
    // What the QP should have sent before this arrival leaves first, at its own instants.
    // Fed the arrival first, the QP's clock would jump to the arrival time and every packet
    // due before it would be paced from there: each late wakeup would cost its lateness and
    // the long-run rate would fall short of the pacing rate (by ~30 % at 45 Mbit/s on UDP).
    emit(*slot, s->dst_qp, now);
  }
  // `now` is the arrival time (read after now was); the QP must never see its time go back.
  const Instant qp_now = std::max(slot->last_now, now);
  slot->last_now = qp_now;
  std::optional<Duration> owd;
  if (s->kind == transport::SegmentKind::kData && now >= s->sent) {
    owd = now - s->sent;
    const std::int64_t us = ns_of(*owd) / 1000;
    ++owd_us_[us];
    if (remote) {
      ++owd_remote_us_[us];
    }
  }
  slot->qp->on_segment(qp_now, *s);
  collect(*slot, s->dst_qp);
  touch(*slot, qp_now);
  return owd;
}

bool QpDriver::send_due(Instant now, bool receivers_only) {
  bool sent = run_turns(receivers_, now);
  if (!receivers_only) {
    sent = run_turns(senders_, now) || sent;
  }
  wire_.flush();
  return sent;
}

bool QpDriver::run_turns(Lane& l, Instant now) {
  bool sent = false;
  const QpScheduler::Round round = l.scheduler.begin_round();
  while (const std::optional<QpScheduler::Slot> turn = l.scheduler.next_due(now, round)) {
    const std::uint32_t qp = l.qp_of[*turn];
    Slot& slot = slots_.at(qp);
    const int emitted = emit(slot, qp, now);
    l.scheduler.polled(*turn, emitted > 0, slot.qp->next_wakeup(), now);
    sent = sent || emitted > 0;
  }
  return sent;
}

int QpDriver::emit(Slot& slot, std::uint32_t qp, Instant now) {
  // Late wakeups (a timer, a descheduled process) must not slow the pacing down: the QP
  // paces each packet from the instant it is polled, so a QP that wanted to run at `due`
  // is polled at the instants it asked for, up to kCatchUp in the past, and the packets
  // that fell due meanwhile leave now as a burst. They carry those instants as their send
  // time, so the one-way delays and RTTs measured include the lateness.
  Instant t = std::max({lane(slot).scheduler.due(slot.turn), slot.last_now, now - kCatchUp});
  int emitted = 0;
  while (emitted < kPollsPerQp) {
    std::optional<transport::Segment> s = slot.qp->poll(t);
    slot.last_now = t;
    if (s) {
      ++emitted;
      wire_.transmit(*s, slot.peer, slot.path);
    }
    const Instant next = slot.qp->next_wakeup();
    if (next > now || (next <= t && !s)) {
      break;  // nothing due before the real time, or due but nothing to send (closed window)
    }
    t = std::max(t, next);
  }
  collect(slot, qp);
  return emitted;
}

std::vector<Delivery> QpDriver::take_deliveries() {
  std::vector<Delivery> out;
  out.swap(deliveries_);
  return out;
}

std::vector<QpView> QpDriver::queue_pairs() const {
  std::vector<QpView> out;
  for (const auto& [qp, slot] : slots_) {
    out.push_back(QpView{qp, slot.sending, peer_text(slot.peer), slot.path, slot.qp.get()});
  }
  return out;
}

}  // namespace gw::endpoints
