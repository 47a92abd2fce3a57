#include "emulator/fabric/network.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <stdexcept>

#include "core/errors.h"
#include "core/rng.h"

namespace gw::fabric {

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
constexpr std::uint32_t kNoRegion = std::numeric_limits<std::uint32_t>::max();

IpAddress v4(std::uint32_t addr) {
  IpAddress a;
  a.bytes[10] = 0xff;
  a.bytes[11] = 0xff;
  a.bytes[12] = static_cast<std::uint8_t>(addr >> 24);
  a.bytes[13] = static_cast<std::uint8_t>(addr >> 16);
  a.bytes[14] = static_cast<std::uint8_t>(addr >> 8);
  a.bytes[15] = static_cast<std::uint8_t>(addr);
  return a;
}

std::uint32_t v4_of(const IpAddress& a) {
  return (std::uint32_t{a.bytes[12]} << 24) | (std::uint32_t{a.bytes[13]} << 16) |
         (std::uint32_t{a.bytes[14]} << 8) | std::uint32_t{a.bytes[15]};
}

// 10.R.x.y with x.y = index + 1: 10.R.0.1 .. 10.R.255.255 (scenario.cc allows 65,535 hosts
// per region). Until 2026-12-03 the low byte was index % 256 + 1 OR'ed over index / 256, so
// index 511 (and 1023, ...) carried index 255's address: packets for one host went to the
// other, in regions of 512 hosts or more.
std::uint32_t host_v4(HostId h) {
  return (10U << 24) | (h.region << 16) | ((h.index + 1) & 0xffffU);
}

// The region's link toward the WAN: a FIFO at the uplink rate with the region's buffer, then
// the region's latency.
DirectionSpec uplink_spec(const RegionSpec& r) {
  DirectionSpec d;
  if (!r.uplink_rate.unlimited()) {
    d.rate = RateSettings{};
    d.rate->rate = r.uplink_rate;
    d.queue = QueueSettings{};
    d.queue->limit_bytes = r.buffer_bytes;
  }
  d.delay = DelaySettings{};
  d.delay->delay = r.latency;
  d.delay->reorder_policy = ReorderPolicy::kPreserve;
  return d;
}

// Toward the region's hosts: the latency, then one egress port per host at its NIC rate,
// sharing the region's buffer under Dynamic Threshold.
DirectionSpec downlink_spec(const RegionSpec& r, std::uint32_t region, std::uint32_t hosts) {
  DirectionSpec d;
  d.delay = DelaySettings{};
  d.delay->delay = r.latency;
  d.delay->reorder_policy = ReorderPolicy::kPreserve;
  d.incast = IncastSettings{};
  d.incast->buffer_bytes = r.buffer_bytes;
  d.incast->alpha = r.alpha;
  for (std::uint32_t i = 0; i < hosts; ++i) {
    IncastPortSettings port;
    port.match.address = v4(host_v4(HostId{region, i}));
    port.match.length = 128;
    port.rate = r.nic_rate;
    d.incast->ports.push_back(port);
  }
  return d;
}

Profile single_direction_profile(const DirectionSpec& d, const std::string& name) {
  Profile p;
  p.name = name;
  p.a_to_b = d;
  p.b_to_a = d;
  return p;
}

}  // namespace

// A hop forwards what its pipeline releases to the next hop, at the release instant.
class Network::Forward final : public PacketSink {
 public:
  Forward(Network& net, std::size_t hop) : net_(&net), hop_(hop) {}
  void deliver(Packet&& p) override { net_->forward(hop_, std::move(p), p.time); }
  void dropped(Packet&& p, DropCause cause) override;
  void duplicated(Packet& copy) override { net_->receiver_->duplicated(copy); }

 private:
  Network* net_;
  std::size_t hop_;
};

class Network::Hop final : public Wakeable {
 public:
  Hop(Network& net, std::size_t index, std::string name, const Profile& profile, Direction dir, bool wan,
      std::uint32_t from, std::uint32_t to)
      : engine(profile, dir), timer(*net.loop_, *this), sink(net, index), from_region(from), to_region(to) {
    stats.name = std::move(name);
    stats.wan = wan;
    // The pipelines stay the same for the whole run (the simulator never reconfigures an
    // engine; phases patch pipelines in place), so their addresses are taken once.
    for (const auto& c : engine.classes()) {
      pipelines.push_back(c.pipeline);
    }
    const DirectionSpec& d = direction_of(profile, dir);
    if (d.rate) {
      stats.rate = d.rate->rate;
    }
    if (d.delay) {
      base_delay = d.delay->delay;
    }
  }

  void push(Packet&& p, Instant now) {
    const std::uint64_t backlog = queue_bytes();
    stats.queue_bytes.record(static_cast<std::int64_t>(backlog));
    if (!stats.rate.unlimited()) {
      stats.queue_delay_ns.record(ns_of(stats.rate.transmit_time(backlog)));
    }
    engine.push(std::move(p), now, sink);
    rearm();
  }
  void wake(Instant now) override {
    engine.advance(now, sink);
    rearm();
  }
  void rearm() { timer.arm(engine.next_wakeup()); }
  std::uint64_t queue_bytes() const {
    std::uint64_t backlog = 0;
    for (const Pipeline* p : pipelines) {
      backlog += p->queue_bytes();
    }
    return backlog;
  }

  DirectionEngine engine;
  std::vector<const Pipeline*> pipelines;
  Timer timer;
  Forward sink;
  HopStats stats;
  std::uint32_t from_region;
  std::uint32_t to_region;
  Duration base_delay{0};
  std::uint64_t in = 0;
  std::uint64_t out = 0;
};

void Network::Forward::dropped(Packet&& p, DropCause cause) {
  Hop& h = *net_->hops_[hop_];
  if (p.synthetic) {
    return;
  }
  ++h.out;
  net_->receiver_->dropped(net_->loop_->now(), std::move(p), cause, h.stats.name);
}

Network::Network(EventLoop& loop, const TopologySpec& spec, std::uint64_t seed, Receiver& receiver)
    : loop_(&loop), spec_(spec), receiver_(&receiver) {
  const auto regions = static_cast<std::uint32_t>(spec_.regions.size());
  uplink_.assign(regions, kNone);
  downlink_.assign(regions, kNone);
  wan_.assign(static_cast<std::size_t>(regions) * regions, kNone);
  auto add_hop = [&](const std::string& name, Profile profile, Direction dir, bool wan, std::uint32_t from,
                     std::uint32_t to) {
    profile.seed = seed ^ hash_name(name);
    carries_int_ = carries_int_ || stamps_int(profile, dir);
    hops_.push_back(std::make_unique<Hop>(*this, hops_.size(), name, profile, dir, wan, from, to));
    return hops_.size() - 1;
  };
  for (std::uint32_t r = 0; r < regions; ++r) {
    const RegionSpec& reg = spec_.regions[r];
    if (reg.hosts == 0) {
      continue;
    }
    uplink_[r] = add_hop("uplink " + reg.name, single_direction_profile(uplink_spec(reg), ""),
                         Direction::kAToB, false, r, r);
    downlink_[r] =
        add_hop("downlink " + reg.name, single_direction_profile(downlink_spec(reg, r, reg.hosts), ""),
                Direction::kAToB, false, r, r);
    for (std::uint32_t i = 0; i < reg.hosts; ++i) {
      hosts_by_v4_[host_v4(HostId{r, i})] = HostId{r, i};
    }
  }
  // Flat tables with the map's contents (a later host with the same address wins in both).
  bool flat = true;
  for (const auto& [addr, host] : hosts_by_v4_) {
    flat = flat && (addr >> 24) == 10 && ((addr >> 16) & 0xff) == host.region;
  }
  if (flat) {
    by_v4_.resize(regions);
    for (const auto& [addr, host] : hosts_by_v4_) {
      std::vector<std::uint32_t>& t = by_v4_[host.region];
      const std::uint32_t low = addr & 0xffff;
      if (t.size() <= low) {
        t.resize(low + 1, kNoHost);
      }
      t[low] = host.index;
    }
  }
  for (std::size_t w = 0; w < spec_.wan.size(); ++w) {
    const WanLinkSpec& link = spec_.wan[w];
    const std::string path = "$.topology.wan[" + std::to_string(w) + "].between";
    std::uint32_t a = 0;
    std::uint32_t b = 0;
    try {
      a = region_index(link.a);
      b = region_index(link.b);
    } catch (const std::out_of_range&) {
      throw InputError("scenario", path, "names a region or relay that is not in the topology");
    }
    if (a == b || wan_[a * regions + b] != kNone) {
      throw InputError(
          "scenario", path,
          a == b ? "a link needs two different ends" : "a second link between " + link.a + " and " + link.b);
    }
    wan_[a * regions + b] =
        add_hop("wan " + link.a + "->" + link.b, link.profile, Direction::kAToB, true, a, b);
    wan_[b * regions + a] =
        add_hop("wan " + link.b + "->" + link.a, link.profile, Direction::kBToA, true, b, a);
  }
  build_routes();
}

Network::~Network() = default;

std::uint32_t Network::region_index(const std::string& name) const {
  for (std::uint32_t r = 0; r < spec_.regions.size(); ++r) {
    if (spec_.regions[r].name == name) {
      return r;
    }
  }
  throw std::out_of_range("no region " + name);
}

void Network::build_routes() {
  const auto n = static_cast<std::uint32_t>(spec_.regions.size());
  next_region_.assign(static_cast<std::size_t>(n) * n, kNoRegion);
  // Fewest links: a breadth-first search from each destination over reversed links, taking
  // neighbours in link order, so ties resolve the same way every run.
  for (std::uint32_t d = 0; d < n; ++d) {
    std::vector<std::uint32_t> dist(n, kNoRegion);
    std::deque<std::uint32_t> todo{d};
    dist[d] = 0;
    while (!todo.empty()) {
      const std::uint32_t y = todo.front();
      todo.pop_front();
      for (const WanLinkSpec& link : spec_.wan) {
        for (auto [x, z] : {std::pair{region_index(link.a), region_index(link.b)},
                            std::pair{region_index(link.b), region_index(link.a)}}) {
          if (z == y && dist[x] == kNoRegion) {
            dist[x] = dist[y] + 1;
            next_region_[x * n + d] = y;
            todo.push_back(x);
          }
        }
      }
    }
  }
  for (std::size_t i = 0; i < spec_.routes.size(); ++i) {
    const RouteSpec& route = spec_.routes[i];
    const std::string path = "$.topology.routes[" + std::to_string(i) + "]";
    std::vector<std::uint32_t> chain;
    try {
      chain.push_back(region_index(route.from));
      for (const std::string& v : route.via) {
        chain.push_back(region_index(v));
      }
      chain.push_back(region_index(route.to));
    } catch (const std::out_of_range& e) {
      throw InputError("scenario", path, std::string(e.what()).replace(0, 3, "names no"));
    }
    const std::uint32_t dst = chain.back();
    for (std::size_t k = 0; k + 1 < chain.size(); ++k) {
      if (wan_[chain[k] * n + chain[k + 1]] == kNone) {
        throw InputError("scenario", path,
                         "no WAN link between " + spec_.regions[chain[k]].name + " and " +
                             spec_.regions[chain[k + 1]].name);
      }
      next_region_[chain[k] * n + dst] = chain[k + 1];
    }
  }
  for (std::uint32_t a = 0; a < n; ++a) {
    for (std::uint32_t b = 0; b < n; ++b) {
      if (a != b && spec_.regions[a].hosts > 0 && spec_.regions[b].hosts > 0 &&
          next_region_[a * n + b] == kNoRegion) {
        throw InputError(
            "scenario", "$.topology.wan",
            "no route from region " + spec_.regions[a].name + " to region " + spec_.regions[b].name);
      }
    }
  }
}

IpAddress Network::address(HostId h) const {
  return v4(host_v4(h));
}

bool Network::host_of(const IpAddress& a, HostId& out) const {
  const std::uint32_t v = v4_of(a);
  if (!by_v4_.empty()) {
    const std::uint32_t r = (v >> 16) & 0xff;
    const std::uint32_t low = v & 0xffff;
    if ((v >> 24) != 10 || r >= by_v4_.size() || low >= by_v4_[r].size() || by_v4_[r][low] == kNoHost) {
      return false;
    }
    out = HostId{r, by_v4_[r][low]};
    return true;
  }
  const auto it = hosts_by_v4_.find(v);
  if (it == hosts_by_v4_.end()) {
    return false;
  }
  out = it->second;
  return true;
}

void Network::send(HostId from, Packet&& p, Instant now) {
  HostId to;
  if (!host_of(p.headers.dst, to)) {
    throw std::logic_error("fabric: a packet to an address that is no host");
  }
  const std::size_t first = to.region == from.region ? downlink_[to.region] : uplink_[from.region];
  Hop& h = *hops_[first];
  ++h.in;
  h.push(std::move(p), now);
}

std::size_t Network::next_hop(std::size_t hop, const Packet& p) const {
  const Hop& h = *hops_[hop];
  if (hop == downlink_[h.to_region]) {
    return kNone;  // the destination host
  }
  HostId to;
  host_of(p.headers.dst, to);
  const std::uint32_t here = h.to_region;
  if (here == to.region) {
    return downlink_[here];
  }
  const auto n = static_cast<std::uint32_t>(spec_.regions.size());
  return wan_[here * n + next_region_[here * n + to.region]];
}

void Network::forward(std::size_t hop, Packet&& p, Instant now) {
  Hop& h = *hops_[hop];
  if (p.synthetic) {
    return;  // cross traffic made inside the hop ends there
  }
  ++h.out;
  h.stats.sojourn_ns.record(ns_of(p.time - p.arrival));
  // What the live data plane writes into the IP header on the way out, the next hop reads:
  // a CE mark becomes the packet's ECN field (so it is counted once, where it was made).
  if (p.ce_marked) {
    p.headers.ecn = Ecn::kCe;
    p.ce_marked = false;
  }
  const std::size_t next = next_hop(hop, p);
  if (next == kNone) {
    receiver_->receive(now, std::move(p));
    return;
  }
  Hop& n = *hops_[next];
  ++n.in;
  n.push(std::move(p), now);
}

std::vector<std::string> Network::route_names(std::uint32_t from, std::uint32_t to) const {
  std::vector<std::string> names;
  if (from == to) {
    names.push_back(hops_[downlink_[to]]->stats.name);
    return names;
  }
  const auto n = static_cast<std::uint32_t>(spec_.regions.size());
  names.push_back(hops_[uplink_[from]]->stats.name);
  for (std::uint32_t here = from; here != to;) {
    const std::uint32_t next = next_region_[here * n + to];
    names.push_back(hops_[wan_[here * n + next]]->stats.name);
    here = next;
  }
  names.push_back(hops_[downlink_[to]]->stats.name);
  return names;
}

Duration Network::base_delay(std::uint32_t from, std::uint32_t to) const {
  Duration total{0};
  for (const std::string& name : route_names(from, to)) {
    for (const auto& h : hops_) {
      if (h->stats.name == name) {
        total += h->base_delay;
      }
    }
  }
  return total;
}

BitRate Network::bottleneck_rate(std::uint32_t from, std::uint32_t to) const {
  BitRate slowest = std::min(spec_.regions[from].nic_rate, spec_.regions[to].nic_rate,
                             [](BitRate a, BitRate b) { return a.bps < b.bps; });
  for (const std::string& name : route_names(from, to)) {
    for (const auto& h : hops_) {
      if (h->stats.name == name && !h->stats.rate.unlimited() && h->stats.rate.bps < slowest.bps) {
        slowest = h->stats.rate;
      }
    }
  }
  return slowest;
}

std::vector<HopStats> Network::hop_stats() const {
  std::vector<HopStats> out;
  out.reserve(hops_.size());
  for (const auto& h : hops_) {
    HopStats s = h->stats;
    s.counters = h->engine.totals();
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::uint64_t> Network::queue_bytes_now() const {
  std::vector<std::uint64_t> out;
  out.reserve(hops_.size());
  for (const auto& h : hops_) {
    out.push_back(h->queue_bytes());
  }
  return out;
}

std::uint64_t Network::in_flight() const {
  std::uint64_t n = 0;
  for (const auto& h : hops_) {
    n += h->engine.held_packets();
  }
  return n;
}

}  // namespace gw::fabric
