// The emulated network in virtual time (docs/architecture.md "Key shapes"): regions of hosts
// joined by WAN links, built from the engine's own pipelines, so the simulator impairs
// packets with exactly the code the live emulator runs.
//
//   host --(owner's NIC)--> region uplink --> WAN link(s) --> region downlink --> host
//                           rate, buffer,     DirectionEngine   latency, one egress port per
//                           latency           of a profile      host sharing one buffer by
//                                                               Dynamic Threshold (incast)
//
// Traffic inside a region goes straight to that region's downlink. Relay POPs are regions
// without hosts: a route A -> POP -> B crosses two WAN links. Routes between regions are
// fewest WAN links (ties: the links' order in the topology) unless the topology names the
// relays to go through.
//
// The owner (the simulator's hosts) serializes packets on its NICs and calls send() when a
// packet has left the NIC; the network calls the Receiver when it reaches the destination
// host or is dropped. Every packet sent is either received or dropped with a cause and the
// name of the hop: nothing disappears.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/event_loop.h"
#include "core/histogram.h"
#include "emulator/engine/engine.h"
#include "emulator/engine/packet.h"
#include "emulator/engine/spec.h"

namespace gw::fabric {

struct RegionSpec {
  std::string name;
  std::uint32_t hosts = 0;  // 0: a relay POP
  BitRate nic_rate{};
  BitRate uplink_rate{};                  // the region's link toward the WAN; 0 = unlimited
  Duration latency{2'000};                // one-way, host to the region's WAN edge
  std::uint64_t buffer_bytes = 16 << 20;  // shared by the downlink's egress ports
  double alpha = 1.0;                     // Dynamic Threshold factor of the downlink ports
};

struct WanLinkSpec {
  std::string a;  // region or relay names; a_to_b of the profile carries a -> b
  std::string b;
  Profile profile;
};

struct RouteSpec {
  std::string from;
  std::string to;
  std::vector<std::string> via;  // relays (or regions) in order
  // Several paths (each its relays in order; {} is the direct link): a packet takes the one its
  // UDP source port names (path_ports.h). The reverse direction takes the same paths reversed
  // unless a route of its own is given. Empty: the one path `via`.
  std::vector<std::vector<std::string>> paths;
};

struct TopologySpec {
  std::vector<RegionSpec> regions;
  std::vector<WanLinkSpec> wan;
  std::vector<RouteSpec> routes;
  // `intra_region: "analytic"`: ring collectives time their hops inside a region with the α-β
  // model instead of sending them (the simulator's driver; the WAN stays packet-level).
  bool intra_region_analytic = false;
};

struct HostId {
  std::uint32_t region = 0;
  std::uint32_t index = 0;
  friend constexpr bool operator==(HostId, HostId) = default;
};

class Receiver {
 public:
  virtual ~Receiver() = default;
  // p reached its destination host at `now` (== p.time).
  virtual void receive(Instant now, Packet&& p) = 0;
  // p was dropped at hop `hop` (e.g. "wan a->b") for `cause`.
  virtual void dropped(Instant now, Packet&& p, DropCause cause, const std::string& hop) = 0;
  // A hop made an extra copy of a packet (same `handle`, same `telemetry`); it arrives or is
  // dropped on its own. As PacketSink::duplicated: the copy gets its own telemetry stack
  // here, or by default none.
  virtual void duplicated(Packet& copy) { copy.telemetry = nullptr; }
};

// One hop of the network: a pipeline (uplink/downlink) or a WAN direction, with what the
// reports need: packets in/out and drops by cause (the engine's counters), the queue a packet
// found on entry, and its time inside.
struct HopStats {
  std::string name;  // "uplink a", "wan a->b", "downlink b"
  bool wan = false;
  BitRate rate{};  // the bottleneck rate at the start (for queue delay), 0 = none
  PipelineCounters counters;
  LogHistogram queue_bytes;     // bottleneck backlog seen by each packet on entry
  LogHistogram queue_delay_ns;  // that backlog at the bottleneck rate
  LogHistogram sojourn_ns;      // time from entry to release, delivered packets
};

class Network {
 public:
  // Throws InputError (file "scenario", path under $.topology) for a topology that cannot be
  // routed: unknown names, a region pair with no route.
  Network(EventLoop& loop, const TopologySpec& spec, std::uint64_t seed, Receiver& receiver);
  ~Network();
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  std::uint32_t region_index(const std::string& name) const;  // throws std::out_of_range
  const RegionSpec& region(std::uint32_t r) const { return spec_.regions[r]; }
  std::uint32_t region_count() const { return static_cast<std::uint32_t>(spec_.regions.size()); }
  // 10.R.H/256.H%256+1 for host H of region R (IPv4-mapped form).
  IpAddress address(HostId h) const;
  // The host owning an address, if any.
  bool host_of(const IpAddress& a, HostId& out) const;

  // p left `from`'s NIC at `now`; p.headers.dst names the destination host.
  void send(HostId from, Packet&& p, Instant now);

  // Hop names of the route from one region to another, in order (for reports); with several
  // paths, of path `path`.
  std::vector<std::string> route_names(std::uint32_t from, std::uint32_t to, std::uint32_t path = 0) const;
  // The route's one-way delay without queueing or jitter (the base delays of its hops), and
  // its slowest rate (the NICs included), for models such as α-β.
  Duration base_delay(std::uint32_t from, std::uint32_t to, std::uint32_t path = 0) const;
  BitRate bottleneck_rate(std::uint32_t from, std::uint32_t to, std::uint32_t path = 0) const;
  // The paths from one region to another: 1 unless a route gives several.
  std::uint32_t path_count(std::uint32_t from, std::uint32_t to) const;
  // The relays path `path` goes through, in order (names).
  std::vector<std::string> path_via(std::uint32_t from, std::uint32_t to, std::uint32_t path) const;
  // The WAN hops of a path, as indices into hop_stats().
  std::vector<std::size_t> wan_hops(std::uint32_t from, std::uint32_t to, std::uint32_t path) const;
  // One hop's counters, backlog at its bottleneck, base delay, and bottleneck rate in force at
  // `now` (its profile's phases applied; 0 = unlimited).
  PipelineCounters hop_counters(std::size_t hop) const;
  std::uint64_t hop_queue_bytes(std::size_t hop) const;
  Duration hop_base_delay(std::size_t hop) const;
  BitRate hop_rate_at(std::size_t hop, Instant now) const;
  // The hop's link is up at `now`: its profile in force does not drop every packet (a
  // `loss 100%` phase is how a scenario fails a link).
  bool hop_up_at(std::size_t hop, Instant now) const;
  // Every hop's statistics (counters refreshed on each call).
  std::vector<HopStats> hop_stats() const;
  // Bytes queued now at each hop's bottleneck, in hop_stats() order.
  std::vector<std::uint64_t> queue_bytes_now() const;
  // Packets inside the network now (sent, not yet received or dropped).
  std::uint64_t in_flight() const;
  // Some hop's queue stamps INT (profile `queue.int`): packets sent need a telemetry stack
  // (Packet::telemetry); without one nothing is stamped.
  bool carries_int() const { return carries_int_; }

 private:
  class Hop;
  class Forward;
  void forward(std::size_t hop, Packet&& p, Instant now);
  std::size_t next_hop(std::size_t hop, const Packet& p) const;
  void build_routes();
  void add_paths(std::size_t route, const RouteSpec& r);
  // The regions a packet crosses from `from` to `to` (both included).
  std::vector<std::uint32_t> chain(std::uint32_t from, std::uint32_t to, std::uint32_t path) const;

  EventLoop* loop_;
  TopologySpec spec_;
  Receiver* receiver_;
  std::vector<std::unique_ptr<Hop>> hops_;
  bool carries_int_ = false;
  std::vector<std::size_t> uplink_;    // per region (relays: none)
  std::vector<std::size_t> downlink_;  // per region
  // wan_[a * R + b]: the hop carrying a -> b over a direct WAN link, or npos.
  std::vector<std::size_t> wan_;
  // next_region_[a * R + d]: the region after a on the route from a to d.
  std::vector<std::uint32_t> next_region_;
  // paths_[a * R + b]: the region chains of a pair with several paths (empty: one path, by
  // next_region_).
  std::vector<std::vector<std::vector<std::uint32_t>>> paths_;
  bool multipath_ = false;
  std::map<std::uint32_t, HostId> hosts_by_v4_;  // key: the IPv4 address as an integer
  // The same map as flat tables, looked up per packet: when every host address is 10.X.Y.Z,
  // by_v4_[X][Y * 256 + Z] is the host's index in region X (kNoHost: none). Empty otherwise
  // (then the map answers).
  static constexpr std::uint32_t kNoHost = 0xffffffff;
  std::vector<std::vector<std::uint32_t>> by_v4_;
};

}  // namespace gw::fabric
