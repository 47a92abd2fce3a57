#include "harness/run/steering.h"

#include <algorithm>
#include <limits>

namespace gw {

Steering::Steering(const fabric::Network& net, const steering::Settings& settings, PathMeter& meter)
    : net_(&net), settings_(settings), meter_(&meter) {
  result_.policy = settings.policy;
  result_.interval = settings.interval;
  const std::uint32_t n = net.region_count();
  for (std::uint32_t a = 0; a < n; ++a) {
    for (std::uint32_t b = 0; b < n; ++b) {
      if (a == b || net.region(a).hosts == 0 || net.region(b).hosts == 0 || net.path_count(a, b) < 2) {
        continue;
      }
      Pair& p = pairs_.emplace_back();
      p.from = a;
      p.to = b;
      p.controller = steering::make_path_controller(settings, net.path_count(a, b));
      p.first_result = result_.paths.size();
      for (std::uint32_t k = 0; k < net.path_count(a, b); ++k) {
        p.hops.push_back(net.wan_hops(a, b, k));
        steering::PathSample s;
        for (std::size_t h : p.hops.back()) {
          s.up = s.up && net.hop_up_at(h, kEpoch);
          s.base_delay += net.hop_base_delay(h);
          const BitRate r = net.hop_rate_at(h, kEpoch);
          if (!r.unlimited() && (s.capacity.unlimited() || r.bps < s.capacity.bps)) {
            s.capacity = r;
          }
        }
        p.granted_at.push_back(kEpoch);
        p.provision.emplace_back(0);
        for (const steering::Standby& st : settings.standby) {
          const bool ours = (st.from == net.region(a).name && st.to == net.region(b).name) ||
                            (st.to == net.region(a).name && st.from == net.region(b).name);
          if (ours && st.path == k) {
            p.granted_at.back() = kNever;
            p.provision.back() = st.provision;
            s.up = false;
          }
        }
        p.samples.push_back(s);
        RoutePathResult& out = result_.paths.emplace_back();
        out.from = net.region(a).name;
        out.to = net.region(b).name;
        out.index = k;
        out.via = net.path_via(a, b, k);
        const std::vector<std::string> names = net.route_names(a, b, k);
        out.hops.assign(names.begin() + 1, names.end() - 1);  // without the uplink and downlink
        out.capacity_bps = s.capacity.bps;
      }
    }
  }
}

const Steering::Pair* Steering::pair_of(std::uint32_t from_region, std::uint32_t to_region) const {
  for (const Pair& p : pairs_) {
    if (p.from == from_region && p.to == to_region) {
      return &p;
    }
  }
  return nullptr;
}

// Smooth weighted round robin (as nginx's upstream balancing): every path gains its weight,
// the one with most credit sends and pays the total, so the choices follow the weights
// closely and evenly spaced.
std::uint32_t Steering::spray(std::uint32_t from_region, std::uint32_t to_region,
                              std::vector<double>& credit) const {
  const Pair& pair = *pair_of(from_region, to_region);
  const std::vector<double>& w = pair.weights;
  credit.resize(w.size(), 0);
  double total = 0;
  std::uint32_t best = 0;
  bool found = false;
  for (std::uint32_t k = 0; k < w.size(); ++k) {
    if (pair.samples[k].down() || w[k] <= 0) {
      continue;
    }
    credit[k] += w[k];
    total += w[k];
    if (!found || credit[k] > credit[best]) {
      best = k;
      found = true;
    }
  }
  if (!found) {
    return widest_up(pair);
  }
  credit[best] -= total;
  return best;
}

Duration Steering::spread(std::uint32_t from_region, std::uint32_t to_region) const {
  const Pair& pair = *pair_of(from_region, to_region);
  const steering::PathSample* fastest = nullptr;
  const steering::PathSample* slowest = nullptr;
  for (const steering::PathSample& s : pair.samples) {
    if (s.down()) {
      continue;
    }
    fastest = fastest == nullptr || s.delay() < fastest->delay() ? &s : fastest;
    slowest = slowest == nullptr || s.delay() > slowest->delay() ? &s : slowest;
  }
  return fastest == nullptr ? Duration{0} : steering::lag_after_move(*slowest, *fastest);
}

bool Steering::steered(std::uint32_t from_region, std::uint32_t to_region) const {
  return std::any_of(pairs_.begin(), pairs_.end(),
                     [&](const Pair& p) { return p.from == from_region && p.to == to_region; });
}

std::uint32_t Steering::open(std::uint32_t flow, std::uint32_t from_region, std::uint32_t to_region,
                             std::uint64_t entropy, bool data) {
  for (Pair& p : pairs_) {
    if (p.from != from_region || p.to != to_region) {
      continue;
    }
    if (!data) {
      p.light.push_back(flow);
      p.light_paths.push_back(widest_up(p));
      return p.light_paths.back();
    }
    steering::QpSample q;
    q.entropy = entropy;
    const std::uint32_t path = p.controller->place(q, p.samples, p.paths);
    p.weights = p.controller->weights();
    p.flows.push_back(flow);
    p.paths.push_back(path);
    p.entropy.push_back(entropy);
    p.last.emplace_back();
    return path;
  }
  return 0;
}

std::uint32_t Steering::widest_up(const Pair& pair) const {
  const std::vector<double> w = pair.controller->weights();
  std::uint32_t best = 0;
  bool best_up = false;
  for (std::uint32_t k = 0; k < pair.samples.size(); ++k) {
    const bool up = !pair.samples[k].down();
    if ((up && !best_up) || (up == best_up && w[k] > w[best] + 1e-9)) {
      best = k;
      best_up = up;
    }
  }
  return best;
}

// Each path's signals over the interval: what the meter measured (packets, loss, utilization,
// backlog), with the base delay, rate and state in force from the network model.
void Steering::measure(Pair& pair, Instant now, double seconds) {
  readings_.clear();
  for (std::uint32_t k = 0; k < pair.hops.size(); ++k) {
    const PathReading r = meter_->read(pair.from, pair.to, k, now, seconds);
    readings_.push_back(r);
    steering::PathSample s;
    s.packets = r.packets;
    s.loss = r.loss;
    s.utilization = r.utilization;
    s.queue_delay = r.queue_delay;
    s.up = now >= pair.granted_at[k];
    for (std::size_t h : pair.hops[k]) {
      s.base_delay += net_->hop_base_delay(h);
      const BitRate rate = net_->hop_rate_at(h, now);
      if (!rate.unlimited() && (s.capacity.unlimited() || rate.bps < s.capacity.bps)) {
        s.capacity = rate;
      }
      s.up = s.up && net_->hop_up_at(h, now);
    }
    pair.samples[k] = s;
  }
}

// The pair's first standby path not yet asked for is granted `provision` from now, in both
// directions (a light path is a link); the request is an event whose reaction is the time
// until the path carries traffic.
void Steering::request_capacity(Pair& pair, Instant now) {
  for (std::uint32_t k = 0; k < pair.granted_at.size(); ++k) {
    if (pair.granted_at[k] != kNever) {
      continue;
    }
    for (Pair& other : pairs_) {
      if (&other == &pair || (other.from == pair.to && other.to == pair.from)) {
        other.granted_at[k] = now + pair.provision[k];
      }
    }
    SteeringEvent e;
    e.t_ns = ns_of(now);
    e.from = net_->region(pair.from).name;
    e.to = net_->region(pair.to).name;
    e.index = k;
    e.kind = "requested";
    e.capacity_bps = pair.samples[k].capacity.bps;
    pair.open_events.push_back(result_.events.size());
    result_.events.push_back(std::move(e));
    return;
  }
}

// A link that came up or went down, or a rate that changed since the last interval.
void Steering::note_events(Pair& pair, const std::vector<steering::PathSample>& before, Instant now) {
  for (std::uint32_t k = 0; k < pair.samples.size(); ++k) {
    const steering::PathSample& was = before[k];
    const steering::PathSample& is = pair.samples[k];
    const char* kind = was.up != is.up                       ? (is.up ? "up" : "down")
                       : was.capacity.bps != is.capacity.bps ? "capacity"
                                                             : nullptr;
    if (kind == nullptr) {
      continue;
    }
    SteeringEvent e;
    e.t_ns = ns_of(now);
    e.from = net_->region(pair.from).name;
    e.to = net_->region(pair.to).name;
    e.index = k;
    e.kind = kind;
    e.capacity_bps = is.capacity.bps;
    pair.open_events.push_back(result_.events.size());
    result_.events.push_back(std::move(e));
    pair.last_move_ns = 0;
  }
}

// The reaction to each open event, judged on this interval's outcome (result_.paths filled).
void Steering::close_events(Pair& pair, bool moved, Instant now) {
  std::erase_if(pair.open_events, [&](std::size_t i) {
    SteeringEvent& e = result_.events[i];
    const RoutePathResult& path = result_.paths[pair.first_result + e.index];
    const std::int64_t since = ns_of(now) - e.t_ns;
    if ((e.kind == "up" || e.kind == "requested") && path.queue_pairs.back() > 0 &&
        path.rate_bps.back() > 0) {
      e.reaction_ns = since;
    } else if (e.kind == "down" && path.queue_pairs.back() == 0) {
      e.reaction_ns = since;
    } else if (e.kind == "capacity") {
      if (moved) {
        pair.last_move_ns = since;
        return false;
      }
      e.reaction_ns = pair.last_move_ns;
    }
    return e.reaction_ns >= 0;
  });
}

std::vector<Steering::Move> Steering::tick(Instant now,
                                           const std::function<QpTotals(std::uint32_t)>& totals) {
  std::vector<Move> moves;
  const double seconds = std::max(1e-9, static_cast<double>((now - last_tick_).count()) * 1e-9);
  result_.t_ns.push_back(ns_of(now));
  for (Pair& pair : pairs_) {
    const std::vector<steering::PathSample> before = pair.samples;
    measure(pair, now, seconds);
    note_events(pair, before, now);
    std::vector<steering::QpSample> qps;
    for (std::size_t i = 0; i < pair.flows.size(); ++i) {
      const QpTotals t = totals(pair.flows[i]);
      const QpTotals& was = pair.last[i];
      qps.push_back({pair.paths[i], t.packets_received - was.packets_received, t.ce_marked - was.ce_marked,
                     t.retransmits - was.retransmits, t.timeouts - was.timeouts, pair.entropy[i]});
      pair.last[i] = t;
    }
    const std::vector<std::uint32_t> to = pair.controller->steer(now, pair.samples, qps);
    SteeringDecision d;
    d.t_ns = ns_of(now);
    d.from = net_->region(pair.from).name;
    d.to = net_->region(pair.to).name;
    pair.weights = pair.controller->weights();
    d.weights = pair.weights;
    for (std::size_t i = 0; i < to.size(); ++i) {
      if (to[i] == pair.paths[i]) {
        continue;
      }
      const Duration lag = steering::lag_after_move(pair.samples[pair.paths[i]], pair.samples[to[i]]);
      moves.push_back({pair.flows[i], to[i], lag});
      d.moves.push_back({pair.flows[i], pair.paths[i], to[i], ns_of(lag)});
      pair.paths[i] = to[i];
    }
    const std::uint32_t widest = widest_up(pair);
    for (std::size_t i = 0; i < pair.light.size(); ++i) {
      if (pair.light_paths[i] != widest) {
        const Duration lag =
            steering::lag_after_move(pair.samples[pair.light_paths[i]], pair.samples[widest]);
        moves.push_back({pair.light[i], widest, lag});
        pair.light_paths[i] = widest;
      }
    }
    for (std::size_t k = 0; k < pair.hops.size(); ++k) {
      RoutePathResult& out = result_.paths[pair.first_result + k];
      const std::uint64_t bytes = readings_[k].bytes_delivered;
      out.bytes += bytes;
      out.rate_bps.push_back(static_cast<std::uint64_t>(static_cast<double>(bytes) * 8 / seconds));
      out.utilization.push_back(pair.samples[k].utilization);
      out.weight.push_back(k < d.weights.size() ? d.weights[k] : 0);
      out.queue_pairs.push_back(
          static_cast<std::uint32_t>(std::count(pair.paths.begin(), pair.paths.end(), k)));
    }
    if (pair.controller->wants_capacity()) {
      request_capacity(pair, now);
    }
    close_events(pair, !d.moves.empty(), now);
    if (!d.moves.empty()) {
      result_.moves += d.moves.size();
      result_.decisions.push_back(std::move(d));
    }
  }
  meter_->next_interval();
  last_tick_ = now;
  return moves;
}

}  // namespace gw
