// What the inline emulator did, per direction, counted by the owner of the mbufs (the
// forwarder), so that every mbuf that came in is accounted for exactly once:
//   received + duplicates = sent + dropped (all causes) + held
// `held` is what is still inside at the moment of counting (0 after shutdown, which drains
// or drops everything: forwarder.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "emulator/engine/packet.h"

namespace gw {

// How late frames left against their intended release instant (actual - intended: the TSC
// read just before the tx burst minus the engine's p.time), in fixed buckets so the data
// plane only increments an integer. Upper bounds in ns; the last bucket is +Inf.
struct DelayErrorHistogram {
  static constexpr std::array<std::int64_t, 16> kUpperNs{
      100,    250,     500,     1'000,   2'000,     5'000,     10'000,    20'000,
      50'000, 100'000, 200'000, 500'000, 1'000'000, 2'000'000, 5'000'000, 10'000'000};
  std::array<std::uint64_t, kUpperNs.size() + 1> counts{};  // not cumulative; [16] = over 10 ms
  std::uint64_t samples = 0;
  std::int64_t sum_ns = 0;

  void add(std::int64_t error_ns, std::uint64_t frames = 1) {
    // The bucket is the number of bounds below the error, counted without branches: a scan
    // that stops at the bucket costs a loop of ~13 steps and a mispredicted exit per frame
    // when the data plane runs behind (ms-scale errors), which is when it needs speed most.
    std::size_t i = 0;
    for (const std::int64_t bound : kUpperNs) {
      i += error_ns > bound ? 1 : 0;
    }
    counts[i] += frames;
    samples += frames;
    sum_ns += error_ns * static_cast<std::int64_t>(frames);
  }
  // The upper bound (ns) of the bucket holding quantile q in [0, 1]; -1 when empty or above
  // the last finite bound.
  std::int64_t quantile_upper_ns(double q) const;
};

// One traffic class of the profile ("default" for the default pipeline), as the engine counts
// it: what entered that class's pipeline and what came out of it.
struct ClassStats {
  std::string name;
  std::uint64_t packets_in = 0;
  std::uint64_t bytes_in = 0;
  std::uint64_t delivered = 0;
  std::uint64_t bytes_delivered = 0;
  std::array<std::uint64_t, static_cast<std::size_t>(DropCause::kCount)> dropped{};
  std::uint64_t duplicated = 0;
  std::uint64_t corrupted = 0;
  std::uint64_t marked_ce = 0;
  std::uint64_t queue_bytes = 0;  // its bottleneck's backlog when published
  // Cross traffic the engine made (microbursts, incast bursts): packets, and those dropped.
  // Synthetic: never received nor sent, so outside the accounting. With --queues, queue 0 makes
  // a shared bottleneck's microbursts.
  std::uint64_t cross_traffic_packets = 0;
  std::uint64_t cross_traffic_dropped = 0;
  // Per-flow streams (flow_streams.h): flows with an entry, and packets whose flow found the
  // table full and drew from the stage's stream. Both 0 with per-queue streams.
  std::uint64_t flows = 0;
  std::uint64_t flow_table_misses = 0;
};

struct DirectionStats {
  std::uint64_t received = 0;  // frames taken from the ingress port's rx queue
  std::uint64_t received_bytes = 0;
  std::uint64_t duplicates = 0;  // extra copies the duplicate stage made
  std::uint64_t sent = 0;        // frames the egress port's tx queue accepted
  std::uint64_t sent_bytes = 0;
  // Engine drop causes; kShutdown = held when the drain window after stop ran out.
  std::array<std::uint64_t, static_cast<std::size_t>(DropCause::kCount)> dropped{};
  std::uint64_t tx_full = 0;  // the egress tx queue refused the frame
  std::uint64_t no_mbuf = 0;  // no mbuf left for a duplicate's private copy or a held copy's release
  std::uint64_t held = 0;
  std::uint64_t marked_ce = 0;  // CE applied to the bytes
  std::uint64_t corrupted = 0;  // a bit flipped in the bytes
  // INT stamping into the bytes (int_stamp.h), for frames the engine stamped telemetry on:
  std::uint64_t int_stamped = 0;     // hop entries inserted
  std::uint64_t int_exceeded = 0;    // remaining hop count was 0: E bit set
  std::uint64_t int_malformed = 0;   // INT DSCP but no valid INT-MD v2 shim/header
  std::uint64_t int_no_room = 0;     // no headroom (or length field room) for the entries
  std::uint64_t multi_segment = 0;   // frames received in chained mbufs (headers read across)
  std::uint64_t held_as_copies = 0;  // small frames held as copies, their mbufs freed on entry
  DelayErrorHistogram delay_error;   // one sample per frame sent
  std::vector<ClassStats> classes;   // the engine's per-class counters (filled when published)

  std::uint64_t dropped_total() const;
  // Adds another lane's counters of the same direction (classes matched by name): a direction
  // spread over rx queues is the sum of its lanes. A class's queue_bytes is the larger: the
  // lanes share its bottleneck (shared_wire.h), each reports its backlog.
  void add(const DirectionStats& o);
  // Empty when received + duplicates = sent + dropped + held, else what is off.
  std::string accounting_error() const;
};

// What a port's driver counted (rte_eth_stats), read before the port is closed. A frame the
// driver could not take for want of an mbuf shows in rx_nombuf, never in a DirectionStats.
struct PortStats {
  std::string name;
  std::uint64_t ipackets = 0;
  std::uint64_t opackets = 0;
  std::uint64_t imissed = 0;  // af_packet never counts ring overflow here (docs/bench-machine.md)
  std::uint64_t ierrors = 0;
  std::uint64_t oerrors = 0;
  std::uint64_t rx_nombuf = 0;
};

// What one forwarding lcore's loop did: iterations, naps (idle sleeps) and the time spent in
// them, and its last estimate of how late a nap ends (forwarder.cc, IdleNap).
struct LcoreStats {
  unsigned lcore = 0;  // the EAL lcore id
  std::string lanes;   // the lanes it ran, e.g. "a_to_b/q0 b_to_a/q0"
  std::uint64_t loops = 0;
  std::uint64_t naps = 0;
  std::int64_t nap_ns = 0;
  std::int64_t nap_guard_ns = 0;
  // Releases sent ahead: the engines advanced to a release just before it was due, then the
  // lcore spun until it was (forwarder.cc, release_ahead); _late: the advance ran past it.
  std::uint64_t ahead = 0;
  std::uint64_t ahead_late = 0;
  bool realtime = false;  // running SCHED_FIFO (--rt-priority)
};

// One lane: a direction's share of one rx queue pair (forwarder.h), on one lcore.
struct QueueLaneStats {
  std::uint16_t queue = 0;
  unsigned lcore = 0;
  DirectionStats stats;
};

struct EmuStats {
  DirectionStats a_to_b;  // the sum of its queues' lanes
  DirectionStats b_to_a;
  std::vector<QueueLaneStats> a_to_b_queues;  // by queue; one entry with a single queue
  std::vector<QueueLaneStats> b_to_a_queues;
  PortStats port_a;
  PortStats port_b;
  double seconds = 0;              // forwarding time, first loop to end of drain
  std::vector<LcoreStats> lcores;  // main lcore first
  std::uint32_t pool_size = 0;
  std::uint32_t pool_available = 0;  // at exit, after the ports were closed
};

nlohmann::json to_json(const DelayErrorHistogram& h);
nlohmann::json to_json(const ClassStats& s);
nlohmann::json to_json(const DirectionStats& s);
nlohmann::json to_json(const PortStats& s);
nlohmann::json to_json(const QueueLaneStats& s);
nlohmann::json to_json(const EmuStats& s);
std::string to_table(const EmuStats& s);

}  // namespace gw
