#include "harness/run/nccl_transport.h"

#include <algorithm>
#include <stdexcept>

namespace gw {

NcclTransport::NcclTransport(MessageService& net, coll::NcclConfig config) : net_(&net), config_(config) {
  config_.steps = std::max<std::uint32_t>(1, config_.steps);
  config_.qps_per_connection = std::max<std::uint32_t>(1, config_.qps_per_connection);
}

std::uint32_t NcclTransport::wire_channel(std::uint32_t channel, std::uint32_t qp) const {
  return channel * (config_.qps_per_connection + 1) + qp;
}

std::uint64_t NcclTransport::send(std::uint32_t src, std::uint32_t dst, std::uint32_t channel,
                                  std::uint64_t bytes, bool p2p, Instant now) {
  const Key key{src, dst, channel};
  auto it = connection_of_.find(key);
  if (it == connection_of_.end()) {
    Connection c;
    c.key = key;
    c.free_slots = config_.steps;
    connections_.push_back(std::move(c));
    it = connection_of_.emplace(key, connections_.size() - 1).first;
  }
  const std::uint64_t id = next_send_++;
  const std::uint64_t slot = p2p ? config_.p2p_slot_data_bytes() : config_.slot_data_bytes();
  Connection& c = connections_[it->second];
  std::uint64_t left = bytes;
  std::uint64_t slots = 0;
  do {  // a zero-byte send still takes one (empty) slot: the receiver must hear of it
    const std::uint64_t n = std::min(left, slot);
    c.waiting.push_back(Slot{id, n});
    left -= n;
    ++slots;
  } while (left > 0);
  sends_.put(id, SendState{slots});
  pump(it->second, now);
  return id;
}

void NcclTransport::track(std::uint64_t message, Message m) {
  messages_.put(message, m);
  ++in_flight_messages_;
}

void NcclTransport::pump(std::size_t connection, Instant now) {
  while (connections_[connection].free_slots > 0 && !connections_[connection].waiting.empty()) {
    Connection& c = connections_[connection];
    const Slot s = c.waiting.front();
    c.waiting.pop_front();
    --c.free_slots;
    std::size_t slot = 0;
    if (!free_in_flight_.empty()) {
      slot = free_in_flight_.back();
      free_in_flight_.pop_back();
    } else {
      slot = in_flight_.size();
      in_flight_.emplace_back();
    }
    // Wire bytes: the protocol's lines around the data (LL: twice the data).
    const auto wire = static_cast<std::uint64_t>(
        static_cast<double>(s.data_bytes) / coll::protocol_efficiency(config_.protocol) + 0.5);
    const auto [src, dst, channel] = c.key;
    const std::uint32_t qps = config_.qps_per_connection;
    const std::uint32_t parts = config_.split_data_on_qps ? qps : 1;
    in_flight_[slot] = InFlight{connection, s.send, parts};
    for (std::uint32_t q = 0; q < parts; ++q) {
      const std::uint32_t qp = config_.split_data_on_qps ? q : c.next_qp;
      const std::uint64_t part = wire / parts + (q < wire % parts ? 1 : 0);
      const std::uint64_t message =
          net_->send(src, dst, wire_channel(channel, qp), part, Traffic::kData, now);
      track(message, Message{false, connection, slot});
    }
    if (!config_.split_data_on_qps) {
      c.next_qp = (c.next_qp + 1) % qps;
    }
  }
}

std::optional<std::uint64_t> NcclTransport::delivered(std::uint64_t message, Instant now) {
  const Message* held = messages_.find(message);
  if (held == nullptr) {
    throw std::logic_error("nccl transport: a message it never sent");
  }
  const Message m = *held;
  messages_.erase(message);
  --in_flight_messages_;
  if (m.credit) {
    ++connections_[m.connection].free_slots;
    pump(m.connection, now);
    return std::nullopt;
  }
  InFlight& f = in_flight_[m.slot];
  if (--f.parts_left > 0) {
    return std::nullopt;
  }
  const std::uint64_t send = f.send;
  free_in_flight_.push_back(m.slot);
  // The receiver frees the slot and says so on the reverse path.
  const auto [src, dst, channel] = connections_[m.connection].key;
  const std::uint64_t credit = net_->send(dst, src, wire_channel(channel, config_.qps_per_connection),
                                          config_.credit_bytes, Traffic::kControl, now);
  track(credit, Message{true, m.connection, 0});
  SendState* st = sends_.find(send);
  if (--st->slots_left == 0) {
    sends_.erase(send);
    return send;
  }
  return std::nullopt;
}

}  // namespace gw
