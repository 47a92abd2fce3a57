#include "emulator/fabric/network.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <stdexcept>

#include "core/errors.h"
#include "core/rng.h"
#include "emulator/fabric/path_ports.h"

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
      : engine(profile, dir),
        timer(*net.loop_, *this),
        sink(net, index),
        from_region(from),
        to_region(to),
        profile_(profile),
        dir_(dir) {
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
  // The direction in force at `now`: the profile's, or its last phase's since.
  const DirectionSpec& in_force(Instant now) const {
    const DirectionSpec* d = &direction_of(profile_, dir_);
    for (const PhaseSpec& phase : profile_.phases) {
      if (kEpoch + phase.at <= now) {
        d = &direction_of(phase, dir_);
      }
    }
    return *d;
  }
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

 private:
  Profile profile_;
  Direction dir_;
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
  paths_.assign(static_cast<std::size_t>(n) * n, {});
  for (std::size_t i = 0; i < spec_.routes.size(); ++i) {
    const RouteSpec& route = spec_.routes[i];
    if (!route.paths.empty()) {
      add_paths(i, route);
      continue;
    }
    const std::string path = "$.topology.routes[" + std::to_string(i) + "]";
    std::vector<std::uint32_t> chain;
    try {
      chain.push_back(region_index(route.from));
      for (const std::string& v : route.via) {
        chain.push_back(region_index(v));
      }
      chain.push_back(region_index(route.to));
    } catch (const std::out_of_range& e) {
      throw InputError("scenario", path, std::string(e.what()).replace(0, 3, "names no "));
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

// A route's paths, and the same reversed for the way back unless a route gives that itself.
void Network::add_paths(std::size_t i, const RouteSpec& route) {
  const auto n = static_cast<std::uint32_t>(spec_.regions.size());
  const std::string path = "$.topology.routes[" + std::to_string(i) + "]";
  if (route.paths.size() > kMaxPaths) {
    throw InputError("scenario", path + ".paths", "at most " + std::to_string(kMaxPaths) + " paths");
  }
  std::vector<std::vector<std::uint32_t>> chains;
  for (std::size_t k = 0; k < route.paths.size(); ++k) {
    const std::string at = path + ".paths[" + std::to_string(k) + "].via";
    std::vector<std::uint32_t> chain;
    try {
      chain.push_back(region_index(route.from));
      for (const std::string& v : route.paths[k]) {
        chain.push_back(region_index(v));
      }
      chain.push_back(region_index(route.to));
    } catch (const std::out_of_range& e) {
      throw InputError("scenario", at, std::string(e.what()).replace(0, 3, "names no "));
    }
    for (std::size_t a = 0; a < chain.size(); ++a) {
      for (std::size_t b = 0; b < a; ++b) {
        if (chain[a] == chain[b]) {
          throw InputError("scenario", at, "goes through " + spec_.regions[chain[a]].name + " twice");
        }
      }
      if (a > 0 && spec_.regions[chain[a]].hosts > 0 && a + 1 < chain.size()) {
        throw InputError("scenario", at,
                         spec_.regions[chain[a]].name + " is a region with hosts, not a relay");
      }
    }
    for (std::size_t k2 = 0; k2 + 1 < chain.size(); ++k2) {
      if (wan_[chain[k2] * n + chain[k2 + 1]] == kNone) {
        throw InputError("scenario", at,
                         "no WAN link between " + spec_.regions[chain[k2]].name + " and " +
                             spec_.regions[chain[k2 + 1]].name);
      }
    }
    chains.push_back(std::move(chain));
  }
  const std::uint32_t a = chains.front().front();
  const std::uint32_t b = chains.front().back();
  if (!paths_[a * n + b].empty()) {
    throw InputError("scenario", path, "a second route from " + route.from + " to " + route.to);
  }
  paths_[a * n + b] = chains;
  multipath_ = true;
  next_region_[a * n + b] = chains.front()[1];
  bool reverse_given = false;
  for (const RouteSpec& r : spec_.routes) {
    reverse_given = reverse_given || (r.from == route.to && r.to == route.from);
  }
  if (!reverse_given) {
    for (auto& c : chains) {
      std::reverse(c.begin(), c.end());
    }
    paths_[b * n + a] = std::move(chains);
    next_region_[b * n + a] = paths_[b * n + a].front()[1];
  }
}

std::uint32_t Network::path_count(std::uint32_t from, std::uint32_t to) const {
  const auto& p = paths_[from * spec_.regions.size() + to];
  return p.empty() ? 1 : static_cast<std::uint32_t>(p.size());
}

std::vector<std::uint32_t> Network::chain(std::uint32_t from, std::uint32_t to, std::uint32_t path) const {
  const auto n = static_cast<std::uint32_t>(spec_.regions.size());
  const auto& p = paths_[from * n + to];
  if (!p.empty()) {
    return p[std::min<std::size_t>(path, p.size() - 1)];
  }
  std::vector<std::uint32_t> c{from};
  for (std::uint32_t here = from; here != to;) {
    here = next_region_[here * n + to];
    c.push_back(here);
  }
  return c;
}

std::vector<std::string> Network::path_via(std::uint32_t from, std::uint32_t to, std::uint32_t path) const {
  const std::vector<std::uint32_t> c = chain(from, to, path);
  std::vector<std::string> via;
  for (std::size_t k = 1; k + 1 < c.size(); ++k) {
    via.push_back(spec_.regions[c[k]].name);
  }
  return via;
}

std::vector<std::size_t> Network::wan_hops(std::uint32_t from, std::uint32_t to, std::uint32_t path) const {
  const auto n = static_cast<std::uint32_t>(spec_.regions.size());
  const std::vector<std::uint32_t> c = chain(from, to, path);
  std::vector<std::size_t> hops;
  for (std::size_t k = 0; k + 1 < c.size(); ++k) {
    hops.push_back(wan_[c[k] * n + c[k + 1]]);
  }
  return hops;
}

PipelineCounters Network::hop_counters(std::size_t hop) const {
  return hops_[hop]->engine.totals();
}

std::uint64_t Network::hop_queue_bytes(std::size_t hop) const {
  return hops_[hop]->queue_bytes();
}

Duration Network::hop_base_delay(std::size_t hop) const {
  return hops_[hop]->base_delay;
}

BitRate Network::hop_rate_at(std::size_t hop, Instant now) const {
  const DirectionSpec& d = hops_[hop]->in_force(now);
  return d.rate ? d.rate->rate : BitRate{};
}

bool Network::hop_up_at(std::size_t hop, Instant now) const {
  const DirectionSpec& d = hops_[hop]->in_force(now);
  return !(d.loss && d.loss->model == LossModel::kRandom && d.loss->p >= 1 && !d.loss->ecn);
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
  HostId from;
  if (multipath_ && host_of(p.headers.src, from)) {
    const auto& paths = paths_[from.region * n + to.region];
    if (!paths.empty()) {
      const auto& c = paths[std::min<std::size_t>(path_of_port(p.headers.src_port), paths.size() - 1)];
      const auto at = std::find(c.begin(), c.end(), here);
      if (at != c.end() && at + 1 != c.end()) {
        return wan_[here * n + *(at + 1)];
      }
    }
  }
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

std::vector<std::string> Network::route_names(std::uint32_t from, std::uint32_t to,
                                              std::uint32_t path) const {
  std::vector<std::string> names;
  if (from == to) {
    names.push_back(hops_[downlink_[to]]->stats.name);
    return names;
  }
  names.push_back(hops_[uplink_[from]]->stats.name);
  for (std::size_t h : wan_hops(from, to, path)) {
    names.push_back(hops_[h]->stats.name);
  }
  names.push_back(hops_[downlink_[to]]->stats.name);
  return names;
}

Duration Network::base_delay(std::uint32_t from, std::uint32_t to, std::uint32_t path) const {
  Duration total{0};
  for (const std::string& name : route_names(from, to, path)) {
    for (const auto& h : hops_) {
      if (h->stats.name == name) {
        total += h->base_delay;
      }
    }
  }
  return total;
}

BitRate Network::bottleneck_rate(std::uint32_t from, std::uint32_t to, std::uint32_t path) const {
  BitRate slowest = std::min(spec_.regions[from].nic_rate, spec_.regions[to].nic_rate,
                             [](BitRate a, BitRate b) { return a.bps < b.bps; });
  for (const std::string& name : route_names(from, to, path)) {
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
