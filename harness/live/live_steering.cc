#include "harness/live/live_steering.h"

#include <algorithm>
#include <stdexcept>

#include "harness/live/live_profile.h"

namespace gw {

namespace {

std::uint64_t dropped_total(const nlohmann::json& c) {
  std::uint64_t n = 0;
  const nlohmann::json dropped = c.value("dropped", nlohmann::json::object());
  for (const auto& [cause, count] : dropped.items()) {
    n += count.get<std::uint64_t>();
  }
  return n;
}

const nlohmann::json& class_of(const nlohmann::json& stats, std::uint32_t from, std::uint32_t path) {
  static const nlohmann::json kNone = nlohmann::json::object();
  const char* dir = from == 0 ? "a_to_b" : "b_to_a";
  if (!stats.contains(dir) || !stats[dir].contains("classes")) {
    return kNone;
  }
  const nlohmann::json& classes = stats[dir]["classes"];
  const auto it = classes.find(path_class_name(path));
  return it == classes.end() ? kNone : *it;
}

// A queue pair's entry in an endpoint's stats message.
const nlohmann::json* qp_stats(const nlohmann::json& stats, std::uint32_t qp) {
  if (!stats.contains("qps")) {
    return nullptr;
  }
  for (const nlohmann::json& q : stats["qps"]) {
    if (q.value("qp", std::uint32_t{0}) == qp) {
      return &q;
    }
  }
  return nullptr;
}

std::uint64_t stat(const nlohmann::json* q, const char* key) {
  return q == nullptr ? 0 : q->value("stats", nlohmann::json::object()).value(key, std::uint64_t{0});
}

}  // namespace

PathReading EmuClassMeter::read(std::uint32_t from, std::uint32_t to, std::uint32_t path, Instant now,
                                double seconds) {
  const nlohmann::json& c = class_of(now_, from, path);
  const nlohmann::json& was = class_of(last_, from, path);
  const auto delta = [&](const char* key) {
    const std::uint64_t a = c.value(key, std::uint64_t{0});
    const std::uint64_t b = was.value(key, std::uint64_t{0});
    return a >= b ? a - b : a;  // a restarted emulator counts from 0 again
  };
  PathReading r;
  r.packets = delta("packets_in");
  r.bytes_delivered = delta("bytes_delivered");
  const std::uint64_t dropped_now = dropped_total(c);
  const std::uint64_t dropped_was = dropped_total(was);
  const std::uint64_t dropped = dropped_now >= dropped_was ? dropped_now - dropped_was : dropped_now;
  r.loss = r.packets == 0 ? 0 : std::min(1.0, static_cast<double>(dropped) / static_cast<double>(r.packets));
  // The class is the path's links in series: its rate is the slowest hop's in force.
  BitRate slowest{};
  for (std::size_t h : net_->wan_hops(from, to, path)) {
    const BitRate rate = net_->hop_rate_at(h, now);
    if (!rate.unlimited() && (slowest.unlimited() || rate.bps < slowest.bps)) {
      slowest = rate;
    }
  }
  if (!slowest.unlimited()) {
    r.queue_delay = slowest.transmit_time(c.value("queue_bytes", std::uint64_t{0}));
    r.utilization = static_cast<double>(r.bytes_delivered) * 8 / (static_cast<double>(slowest.bps) * seconds);
  }
  return r;
}

void LiveSteering::NoPackets::receive(Instant, Packet&&) {
  throw std::logic_error("live steering: its network model carries no packets");
}

void LiveSteering::NoPackets::dropped(Instant, Packet&&, DropCause, const std::string&) {
  throw std::logic_error("live steering: its network model carries no packets");
}

LiveSteering::LiveSteering(const Scenario& s)
    : net_(loop_, s.topology, s.seed, no_packets_), meter_(net_), steering_(net_, s.controller, meter_) {}

std::int32_t LiveSteering::open(std::uint32_t side, std::uint32_t qp, bool data) {
  const std::uint32_t peer = 1 - side;
  if (!steering_.steered(side, peer)) {
    return -1;
  }
  // The 5-tuple's entropy as the simulator takes it (one host per side here).
  const std::uint64_t entropy = (std::uint64_t{side} << 56) ^ (std::uint64_t{peer} << 32) ^ qp;
  const auto flow = static_cast<std::uint32_t>(flows_.size());
  flows_.emplace_back(side, qp);
  return static_cast<std::int32_t>(steering_.open(flow, side, peer, entropy, data));
}

std::vector<LiveSteering::Move> LiveSteering::tick(Instant now, nlohmann::json emu_stats,
                                                   const std::array<nlohmann::json, 2>& endpoints) {
  meter_.update(std::move(emu_stats));
  const auto totals = [&](std::uint32_t flow) {
    const auto [side, qp] = flows_[flow];
    const nlohmann::json* sender = qp_stats(endpoints[side], qp);
    const nlohmann::json* receiver = qp_stats(endpoints[1 - side], qp + 1);
    return Steering::QpTotals{stat(receiver, "data_packets_received"), stat(receiver, "ce_packets_received"),
                              stat(sender, "retransmitted_packets"), stat(sender, "timeouts")};
  };
  std::vector<Move> moves;
  for (const Steering::Move& m : steering_.tick(now, totals)) {
    const auto [side, qp] = flows_[m.flow];
    moves.push_back({side, qp, static_cast<std::int32_t>(m.path), m.lag});
  }
  return moves;
}

}  // namespace gw
