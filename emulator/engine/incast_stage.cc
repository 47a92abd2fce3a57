#include "emulator/engine/incast_stage.h"

#include <algorithm>
#include <cstring>

#include "emulator/engine/profile.h"

namespace gw {

namespace {

// Mixes an address's two 64-bit halves (the finalizer of MurmurHash3's fmix64 over their
// combination): every input bit reaches the low bits the table indexes with.
std::size_t address_hash(std::uint64_t hi, std::uint64_t lo) {
  std::uint64_t h = hi ^ (lo * 0x9E3779B97F4A7C15ULL);
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDULL;
  h ^= h >> 33;
  return static_cast<std::size_t>(h);
}

}  // namespace

IncastStage::IncastStage(const IncastSettings& s, std::uint64_t /*seed*/, const std::string& /*stream*/) {
  // No random draws: bursts are deterministic in time. (The seed is taken for symmetry with
  // the other stages, so jittered bursts can be added without changing the constructor.)
  set_settings(s);
}

void IncastStage::set_settings(const IncastSettings& s) {
  s_ = s;
  prefixed_.clear();
  std::size_t slots = 2;
  while (slots < 2 * s_.ports.size()) {
    slots *= 2;
  }
  exact_.assign(slots, ExactSlot{});
  exact_mask_ = slots - 1;
  for (std::size_t i = 0; i < s_.ports.size(); ++i) {
    if (s_.ports[i].match.length != 128) {
      prefixed_.push_back(i);
      continue;
    }
    const IpAddress& a = s_.ports[i].match.address;
    if (exact_port(a) != kNoPort) {
      continue;  // keeps the first of duplicates
    }
    std::uint64_t hi = 0;
    std::uint64_t lo = 0;
    std::memcpy(&hi, a.bytes.data(), 8);
    std::memcpy(&lo, a.bytes.data() + 8, 8);
    std::size_t k = address_hash(hi, lo) & exact_mask_;
    while (exact_[k].port != kNoPort) {
      k = (k + 1) & exact_mask_;
    }
    exact_[k] = ExactSlot{hi, lo, i};
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

std::size_t IncastStage::exact_port(const IpAddress& a) const {
  std::uint64_t hi = 0;
  std::uint64_t lo = 0;
  std::memcpy(&hi, a.bytes.data(), 8);
  std::memcpy(&lo, a.bytes.data() + 8, 8);
  for (std::size_t k = address_hash(hi, lo) & exact_mask_;; k = (k + 1) & exact_mask_) {
    const ExactSlot& e = exact_[k];
    if (e.port == kNoPort || (e.hi == hi && e.lo == lo)) {
      return e.port;
    }
  }
}

int IncastStage::port_of(const IpAddress& dst) const {
  const std::size_t found = exact_port(dst);
  const std::size_t exact = found == kNoPort ? s_.ports.size() : found;
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

// The port's next packet (the queue's front) goes on the wire, if there is one.
void IncastStage::start(std::size_t port, Instant now) {
  Port& pt = ports_[port];
  if (pt.queue.empty()) {
    pt.busy = false;
    pt.wire_done = kNever;
    return;
  }
  const std::uint32_t size = pt.queue.front().size_bytes;
  pt.bytes -= size;
  occupancy_ -= size;
  pt.busy = true;
  const BitRate rate = port < s_.ports.size() ? s_.ports[port].rate : BitRate{};
  pt.wire_done = now + rate.transmit_time(size);
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
    Packet p = pt.queue.pop_front();
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
    n += p.queue.size();  // the packet on the wire included
  }
  return n;
}

}  // namespace gw
