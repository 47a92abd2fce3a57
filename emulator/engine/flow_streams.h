// Random streams per flow (a profile's "streams": "per_flow", docs/profiles.md "Determinism").
//
// By default a stage draws from one stream: the k-th packet into the stage meets the k-th
// draw, as in netem. A flow's fate then depends on every other packet that went through the
// stage before it, and so on how the emulator spread the traffic over rx queues (each queue's
// engine has streams of its own). With per-flow streams a stage keeps one stream, and the
// state that goes with it (a correlated draw's last value, a loss model's state), per flow:
// the n-th packet of a flow meets the n-th draw of the stream named by the stage, the seed and
// the flow's 5-tuple, whatever else crossed the stage and whichever queue carried it. RSS puts
// a flow on one queue, so a flow's table entry lives in one engine and nothing is shared.
//
// A flow's entry starts over (its stream from the first draw) when it has been idle longer
// than `idle`, measured on packet arrival times, so the table does not grow without bound on
// a long run with new connections; an idle flow's entry is reclaimed when the table is full.
// When `max_flows` flows are active at once, further flows draw from the stage's own stream
// and are counted (FlowTable::full_misses); their draws then depend on the traffic again.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "core/rng.h"
#include "core/time.h"
#include "emulator/engine/packet.h"
#include "emulator/engine/spec.h"

namespace gw {

// A stable, non-zero 64-bit key of p's flow: addresses, protocol and ports (RoCE v2's UDP
// source port carries the QP's entropy, so a QP is a flow). Frames that are not IP share one key.
inline std::uint64_t flow_key(const PacketHeaders& h) {
  if (!h.valid_l3) {
    return 1;
  }
  // Eight address bytes as one word, the same on any host (read little-endian).
  const auto word = [](const IpAddress& a, std::size_t at) {
    std::uint64_t w = 0;
    std::memcpy(&w, a.bytes.data() + at, sizeof w);
    if constexpr (std::endian::native == std::endian::big) {
      w = __builtin_bswap64(w);
    }
    return w;
  };
  // Each word times its own odd constant (a bijection of the word; the five products are
  // independent, so they run in parallel), rotated apart and folded, then the splitmix64
  // finalizer. Flows that differ in one word only (the ports, or one IPv4 address) always
  // differ before the finalizer.
  const std::uint64_t ports =
      (std::uint64_t{h.protocol} << 32) | (std::uint64_t{h.src_port} << 16) | h.dst_port;
  const std::uint64_t x = (word(h.src, 0) * 0x9e3779b97f4a7c15ULL) ^ (word(h.dst, 0) * 0xc2b2ae3d27d4eb4fULL);
  const std::uint64_t y = (word(h.src, 8) * 0x165667b19e3779f9ULL) ^ (word(h.dst, 8) * 0xd6e8feb86659fd93ULL);
  const std::uint64_t z = ports * 0xff51afd7ed558ccdULL;
  std::uint64_t k = x ^ std::rotl(y, 21) ^ std::rotl(z, 43);
  k = (k ^ (k >> 30)) * 0xbf58476d1ce4e5b9ULL;
  k = (k ^ (k >> 27)) * 0x94d049bb133111ebULL;
  k ^= k >> 31;
  return k == 0 ? 1 : k;
}

// Open addressing on the key with linear probing; entries are never removed one by one, so a
// key always sits before the first empty slot of its probe run. The table doubles while it
// holds fewer than max_flows entries (load at most 1/2); at max_flows it is rebuilt without
// the idle entries before a flow is refused, unless no entry can be idle yet (a flood of new
// flows while the table is full of active ones costs a failed probe each, not a rebuild).
template <typename S>
class FlowTable {
 public:
  FlowTable(std::uint64_t max_flows, Duration idle) : max_flows_(max_flows), idle_(idle) {
    slots_.resize(64);
  }

  // The entry of flow `key` (non-zero) for a packet that arrived at `t`. `fresh` is set when the
  // entry is new or the flow was idle longer than `idle`: the caller (re)initialises it.
  // nullptr when max_flows flows are active.
  S* find(std::uint64_t key, Instant t, bool& fresh) {
    std::size_t i = index(key);
    for (;; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (s.key == key) {
        fresh = t - s.seen > idle_;
        s.seen = t;
        return &s.state;
      }
      if (s.key == 0) {
        break;
      }
    }
    if (size_ >= max_flows_ && !sweep(t)) {
      ++full_misses_;
      return nullptr;
    }
    if (2 * (size_ + 1) > slots_.size()) {
      rebuild(slots_.size() * 2, t, false);
    }
    i = index(key);
    while (slots_[i].key != 0) {
      i = (i + 1) & (slots_.size() - 1);
    }
    slots_[i].key = key;
    slots_[i].seen = t;
    ++size_;
    fresh = true;
    return &slots_[i].state;
  }

  // f(S&) on every entry (a settings change that applies to every flow).
  template <typename F>
  void for_each(F&& f) {
    for (Slot& s : slots_) {
      if (s.key != 0) {
        f(s.state);
      }
    }
  }

  std::uint64_t size() const { return size_; }
  // Packets whose flow found no entry (max_flows active flows) and drew from the stage's stream.
  std::uint64_t full_misses() const { return full_misses_; }

 private:
  struct Slot {
    std::uint64_t key = 0;  // 0: empty
    Instant seen{};
    S state{};
  };

  std::size_t index(std::uint64_t key) const {
    // The key is already mixed; its high bits pick the slot (the low ones vary less for
    // keys that differ in the last step only).
    return static_cast<std::size_t>(key >> (64 - std::countr_zero(slots_.size()))) & (slots_.size() - 1);
  }
  // Drops idle entries at max_flows; true when that made room. An entry is idle once
  // t > seen + idle and `seen` only grows, so after a sweep none can be before the earliest
  // kept entry's seen + idle.
  bool sweep(Instant t) {
    if (t <= no_sweep_before_) {
      return false;
    }
    rebuild(slots_.size(), t, true);
    return size_ < max_flows_;
  }
  void rebuild(std::size_t capacity, Instant t, bool drop_idle) {
    std::vector<Slot> old(capacity);
    old.swap(slots_);
    size_ = 0;
    Instant earliest = kNever;
    for (Slot& s : old) {
      if (s.key == 0 || (drop_idle && t - s.seen > idle_)) {
        continue;
      }
      earliest = std::min(earliest, s.seen);
      std::size_t i = index(s.key);
      while (slots_[i].key != 0) {
        i = (i + 1) & (slots_.size() - 1);
      }
      slots_[i] = s;
      ++size_;
    }
    if (drop_idle) {
      no_sweep_before_ = earliest == kNever ? Instant::min() : earliest + idle_;
    }
  }

  std::vector<Slot> slots_;
  std::uint64_t size_ = 0;
  std::uint64_t max_flows_;
  Duration idle_;
  std::uint64_t full_misses_ = 0;
  Instant no_sweep_before_ = Instant::min();  // a sweep until then frees nothing
};

// A stage's draw state S (its Rng and what goes with it): the stage's own, or, with per-flow
// streams, one per flow made by `make(Rng)` on the flow's first packet.
template <typename S>
class StageDraws {
 public:
  // `own` is the stage's state. `flow_stream` names the per-flow streams: the stage's stream
  // name without the rx queue, so that a flow draws the same on any queue.
  StageDraws(S own, std::uint64_t seed, std::string_view flow_stream, const FlowStreamSettings& flows)
      : own_(std::move(own)), seed_(seed), flow_stream_(hash_name(flow_stream)) {
    if (flows.per_flow) {
      table_ = std::make_unique<FlowTable<S>>(flows.max_flows, flows.idle);
    }
  }

  S& own() { return own_; }
  const S& own() const { return own_; }

  // p's state: the stage's own unless per-flow (synthetic cross traffic always draws from the
  // stage's own, as it has no flow of the user's).
  template <typename Make>
  S& of(const Packet& p, Make&& make) {
    if (table_ == nullptr) [[likely]] {
      return own_;
    }
    return flow_state(p, make);
  }

  template <typename F>
  void for_each(F&& f) {
    f(own_);
    if (table_) {
      table_->for_each(f);
    }
  }

  std::uint64_t flows() const { return table_ ? table_->size() : 0; }
  std::uint64_t full_misses() const { return table_ ? table_->full_misses() : 0; }

 private:
  // Out of line: the per-stage path above stays a load and a branch.
  template <typename Make>
  [[gnu::noinline]] S& flow_state(const Packet& p, Make& make) {
    if (p.synthetic) {
      return own_;
    }
    const std::uint64_t key = flow_key(p.headers);
    bool fresh = false;
    S* s = table_->find(key, p.arrival, fresh);
    if (s == nullptr) {
      return own_;
    }
    if (fresh) {
      *s = make(Rng(seed_, flow_stream_, key));
    }
    return *s;
  }

  S own_;
  std::uint64_t seed_;
  std::uint64_t flow_stream_;
  std::unique_ptr<FlowTable<S>> table_;
};

}  // namespace gw
