#include "emulator/dpdk/stats.h"

#include <sstream>

namespace gw {

std::uint64_t DirectionStats::dropped_total() const {
  std::uint64_t n = tx_full + no_mbuf;
  for (const std::uint64_t d : dropped) {
    n += d;
  }
  return n;
}

std::string DirectionStats::accounting_error() const {
  const std::uint64_t in = received + duplicates;
  const std::uint64_t out = sent + dropped_total() + held;
  if (in == out) {
    return {};
  }
  return "received " + std::to_string(received) + " + duplicates " + std::to_string(duplicates) + " = " +
         std::to_string(in) + ", but sent " + std::to_string(sent) + " + dropped " +
         std::to_string(dropped_total()) + " + held " + std::to_string(held) + " = " + std::to_string(out);
}

nlohmann::json to_json(const DirectionStats& s) {
  nlohmann::json dropped = nlohmann::json::object();
  for (std::size_t i = 0; i < s.dropped.size(); ++i) {
    dropped[drop_cause_name(static_cast<DropCause>(i))] = s.dropped[i];
  }
  dropped["tx_full"] = s.tx_full;
  dropped["no_mbuf"] = s.no_mbuf;
  return {{"received", s.received},
          {"received_bytes", s.received_bytes},
          {"duplicates", s.duplicates},
          {"sent", s.sent},
          {"sent_bytes", s.sent_bytes},
          {"dropped", dropped},
          {"dropped_total", s.dropped_total()},
          {"held", s.held},
          {"marked_ce", s.marked_ce},
          {"corrupted", s.corrupted},
          {"balanced", s.accounting_error().empty()}};
}

nlohmann::json to_json(const PortStats& s) {
  return {{"name", s.name},       {"ipackets", s.ipackets}, {"opackets", s.opackets},  {"imissed", s.imissed},
          {"ierrors", s.ierrors}, {"oerrors", s.oerrors},   {"rx_nombuf", s.rx_nombuf}};
}

nlohmann::json to_json(const EmuStats& s) {
  return {{"a_to_b", to_json(s.a_to_b)},
          {"b_to_a", to_json(s.b_to_a)},
          {"ports", {{"a", to_json(s.port_a)}, {"b", to_json(s.port_b)}}},
          {"seconds", s.seconds},
          {"mempool", {{"size", s.pool_size}, {"available", s.pool_available}}},
          {"all_mbufs_returned", s.pool_size == s.pool_available}};
}

std::string to_table(const EmuStats& s) {
  std::ostringstream os;
  const auto direction = [&](const char* name, const DirectionStats& d) {
    os << name << "\n  received " << d.received << " (" << d.received_bytes << " bytes), duplicates "
       << d.duplicates << "\n  sent     " << d.sent << " (" << d.sent_bytes << " bytes)\n  dropped  "
       << d.dropped_total();
    for (std::size_t i = 0; i < d.dropped.size(); ++i) {
      if (d.dropped[i] > 0) {
        os << ", " << drop_cause_name(static_cast<DropCause>(i)) << " " << d.dropped[i];
      }
    }
    if (d.tx_full > 0) {
      os << ", tx_full " << d.tx_full;
    }
    if (d.no_mbuf > 0) {
      os << ", no_mbuf " << d.no_mbuf;
    }
    os << "\n  held     " << d.held << "\n  CE marked " << d.marked_ce << ", corrupted " << d.corrupted
       << "\n";
    const std::string err = d.accounting_error();
    os << "  received + duplicates = sent + dropped + held: " << (err.empty() ? "yes" : "NO: " + err) << "\n";
  };
  direction("a_to_b (port A -> port B)", s.a_to_b);
  direction("b_to_a (port B -> port A)", s.b_to_a);
  for (const PortStats* p : {&s.port_a, &s.port_b}) {
    os << p->name << ": in " << p->ipackets << ", out " << p->opackets << ", missed " << p->imissed
       << ", rx errors " << p->ierrors << ", tx errors " << p->oerrors << ", no mbuf " << p->rx_nombuf
       << "\n";
  }
  os << "mbufs back in the pool: " << s.pool_available << " of " << s.pool_size
     << (s.pool_available == s.pool_size ? "" : "  (LEAK)") << "\n";
  return os.str();
}

}  // namespace gw
