// Incast at the receiving side: egress ports, one per destination address or prefix, that
// share one packet buffer under Dynamic Threshold admission (Choudhury & Hahne, "Dynamic
// Queue Length Thresholds for Shared-Memory Packet Switches", IEEE/ACM ToN 1998): a port may
// queue at most alpha * (buffer - total occupancy), so many-to-one traffic overflows where a
// shallow-buffer switch's port would. Synthetic incast bursts (N virtual senders each sending
// S bytes toward one destination at once, once or periodically) collide with real traffic.
// Packets toward no listed port pass straight through.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <string>
#include <vector>

#include "core/ring.h"
#include "emulator/engine/spec.h"
#include "emulator/engine/stage.h"

namespace gw {

struct IncastPortStats {
  std::uint64_t packets_out = 0;
  std::uint64_t dropped = 0;
  std::uint64_t max_queue_bytes = 0;
};

class IncastStage final : public Stage {
 public:
  IncastStage(const IncastSettings& s, std::uint64_t seed, const std::string& stream);

  void set_settings(const IncastSettings& s);

  void push(Packet&& p, Instant now, StageOutput& out) override;
  Instant next_wakeup() const override;
  void pull(Instant now, StageOutput& out) override;
  std::uint64_t held_packets() const override;
  std::uint64_t held_bytes() const override { return occupancy_; }
  std::string name() const override { return "incast"; }

  const std::vector<IncastPortStats>& port_stats() const { return stats_; }
  std::uint64_t synthetic_bytes_in() const { return synthetic_bytes_in_; }

 private:
  struct Port {
    Ring<Packet> queue;       // while busy, the front is the packet on the wire
    std::uint64_t bytes = 0;  // queued, excluding the packet on the wire
    bool busy = false;
    Instant wire_done = kNever;
  };
  struct BurstState {
    Instant next_start = kNever;
    std::uint64_t bytes_left_each = 0;  // per sender, of the burst in progress
    Instant next_round = kNever;        // when each sender's next packet arrives
  };

  int port_of(const IpAddress& dst) const;
  void admit(Packet&& p, std::size_t port, Instant now, StageOutput& out);
  void start(std::size_t port, Instant now);
  void inject(std::size_t i, Instant now, StageOutput& out);
  Instant first_start(const IncastBurstSettings& b, Instant after) const;

  IncastSettings s_;
  std::vector<Port> ports_;
  // Busy ports by the instant their packet leaves the wire (then port index), so that a
  // switch with hundreds of ports costs O(log ports) per packet, not a scan. A binary heap
  // on a vector: a port is in it at most once, so (instant, port) keys are unique and the
  // order is that of a sorted set, without a node allocation per packet.
  using WireEnd = std::pair<Instant, std::size_t>;
  std::priority_queue<WireEnd, std::vector<WireEnd>, std::greater<>> on_wire_;
  // Ports whose match is one whole address, by that address (the common case: one port per
  // receiver), in an open-addressing table (linear probing, at most half full) of the
  // address's two 64-bit halves; the other ports are tried in order. First match in profile
  // order wins.
  struct ExactSlot {
    std::uint64_t hi = 0;
    std::uint64_t lo = 0;
    std::size_t port = kNoPort;
  };
  static constexpr std::size_t kNoPort = static_cast<std::size_t>(-1);
  std::size_t exact_port(const IpAddress& a) const;
  std::vector<ExactSlot> exact_;
  std::size_t exact_mask_ = 0;
  std::vector<std::size_t> prefixed_;
  std::vector<BurstState> bursts_;
  std::vector<IncastPortStats> stats_;
  std::uint64_t occupancy_ = 0;  // bytes queued over all ports (excluding those on the wire)
  std::uint64_t synthetic_bytes_in_ = 0;
};

}  // namespace gw
