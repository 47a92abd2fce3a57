#include "emulator/engine/incast_stage.h"

#include <algorithm>

#include "emulator/engine/profile.h"

namespace gw {

IncastStage::IncastStage(const IncastSettings& s, std::uint64_t /*seed*/, const std::string& /*stream*/) {
  // No random draws: bursts are deterministic in time. (The seed is taken for symmetry with
  // the other stages, so jittered bursts can be added without changing the constructor.)
  set_settings(s);
}

void IncastStage::set_settings(const IncastSettings& s) {
  s_ = s;
  exact_.clear();
  prefixed_.clear();
  for (std::size_t i = 0; i < s_.ports.size(); ++i) {
    if (s_.ports[i].match.length == 128) {
      exact_.emplace(s_.ports[i].match.address, i);  // keeps the first of duplicates
    } else {
      prefixed_.push_back(i);
    }
  }
  ports_.resize(std::max(ports_.size(), s_.ports.size()));
  stats_.resize(ports_.size());
  bursts_.resize(s_.bursts.size());
  for (std::size_t i = 0; i < s_.bursts.size(); ++i) {
    if (bursts_[i].next_start == kNever && bursts_[i].next_round == kNever) {
      bursts_[i].next_start = first_start(s_.bursts[i], kEpoch);
    }
  }
}

Instant IncastStage::first_start(const IncastBurstSettings& b, Instant after) const {
  Instant t = kEpoch + b.start;
  if (t >= after) {
    return t;
  }
  if (b.period.count() <= 0) {
    return kNever;
  }
  const std::int64_t k = ((after - t).count() + b.period.count() - 1) / b.period.count();
  return t + b.period * k;
}

std::size_t IncastStage::AddressHash::operator()(const IpAddress& a) const {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (const std::uint8_t b : a.bytes) {
    h = (h ^ b) * 1099511628211ULL;
  }
  return static_cast<std::size_t>(h);
}

int IncastStage::port_of(const IpAddress& dst) const {
  const auto it = exact_.find(dst);
  const std::size_t exact = it == exact_.end() ? s_.ports.size() : it->second;
  for (const std::size_t i : prefixed_) {
    if (i > exact) {
      break;
    }
    if (prefix_contains(s_.ports[i].match, dst)) {
      return static_cast<int>(i);
    }
  }
  return exact < s_.ports.size() ? static_cast<int>(exact) : -1;
}

void IncastStage::push(Packet&& p, Instant now, StageOutput& out) {
  const int port = p.headers.valid_l3 ? port_of(p.headers.dst) : -1;
  if (port < 0) {
    out.emit(std::move(p));
    return;
  }
  admit(std::move(p), static_cast<std::size_t>(port), now, out);
}

void IncastStage::admit(Packet&& p, std::size_t port, Instant now, StageOutput& out) {
  Port& pt = ports_[port];
  const std::uint64_t free_bytes = s_.buffer_bytes - std::min(occupancy_, s_.buffer_bytes);
  const double threshold = s_.alpha * static_cast<double>(free_bytes);
  if (occupancy_ + p.size_bytes > s_.buffer_bytes ||
      static_cast<double>(pt.bytes + p.size_bytes) > threshold) {
    ++stats_[port].dropped;
    out.drop(std::move(p), DropCause::kIncastBuffer);
    return;
  }
  pt.bytes += p.size_bytes;
  occupancy_ += p.size_bytes;
  stats_[port].max_queue_bytes = std::max(stats_[port].max_queue_bytes, pt.bytes);
  pt.queue.push_back(std::move(p));
  if (!pt.busy) {
    start(port, now);
  }
}

void IncastStage::start(std::size_t port, Instant now) {
  Port& pt = ports_[port];
  if (pt.queue.empty()) {
    pt.busy = false;
    pt.wire_done = kNever;
    return;
  }
  pt.on_wire = std::move(pt.queue.front());
  pt.queue.pop_discard();
  pt.bytes -= pt.on_wire.size_bytes;
  occupancy_ -= pt.on_wire.size_bytes;
  pt.busy = true;
  const BitRate rate = port < s_.ports.size() ? s_.ports[port].rate : BitRate{};
  pt.wire_done = now + rate.transmit_time(pt.on_wire.size_bytes);
  on_wire_.emplace(pt.wire_done, port);
}

void IncastStage::inject(std::size_t i, Instant now, StageOutput& out) {
  const IncastBurstSettings& b = s_.bursts[i];
  BurstState& st = bursts_[i];
  if (st.next_start == now) {
    st.bytes_left_each += b.bytes_each;
    st.next_round = now;
    st.next_start = b.period.count() > 0 ? now + b.period : kNever;
  }
  const int port = port_of(b.to.address);
  while (st.next_round == now && st.bytes_left_each > 0) {
    const auto size = static_cast<std::uint32_t>(std::min<std::uint64_t>(st.bytes_left_each, b.packet_bytes));
    st.bytes_left_each -= size;
    // One packet from each virtual sender arrives in this round.
    for (std::uint32_t k = 0; k < b.senders; ++k) {
      Packet p;
      p.synthetic = true;
      p.size_bytes = size;
      p.arrival = now;
      p.time = now;
      p.headers.valid_l3 = true;
      p.headers.dst = b.to.address;
      synthetic_bytes_in_ += size;
      out.injected(p);
      if (port >= 0) {
        admit(std::move(p), static_cast<std::size_t>(port), now, out);
      }
    }
    if (st.bytes_left_each == 0) {
      st.next_round = kNever;
    } else if (!b.sender_rate.unlimited()) {
      st.next_round = now + b.sender_rate.transmit_time(size);
    }
  }
}

Instant IncastStage::next_wakeup() const {
  Instant t = on_wire_.empty() ? kNever : on_wire_.top().first;
  for (const BurstState& b : bursts_) {
    t = std::min({t, b.next_start, b.next_round});
  }
  return t;
}

void IncastStage::pull(Instant now, StageOutput& out) {
  while (!on_wire_.empty() && on_wire_.top().first <= now) {
    const std::size_t i = on_wire_.top().second;
    on_wire_.pop();
    Port& pt = ports_[i];
    Packet p = std::move(pt.on_wire);
    p.time = pt.wire_done;
    ++stats_[i].packets_out;
    start(i, now);
    if (!p.synthetic) {
      out.emit(std::move(p));
    }
  }
  for (std::size_t i = 0; i < bursts_.size(); ++i) {
    if (bursts_[i].next_start <= now || bursts_[i].next_round <= now) {
      inject(i, now, out);
    }
  }
}

std::uint64_t IncastStage::held_packets() const {
  std::uint64_t n = 0;
  for (const Port& p : ports_) {
    n += p.queue.size() + (p.busy ? 1 : 0);
  }
  return n;
}

}  // namespace gw
