#include "emulator/dpdk/stats.h"

#include <algorithm>
#include <sstream>
#include <utility>

namespace gw {

std::int64_t DelayErrorHistogram::quantile_upper_ns(double q) const {
  if (samples == 0) {
    return -1;
  }
  const auto rank = static_cast<std::uint64_t>(q * static_cast<double>(samples - 1)) + 1;
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < kUpperNs.size(); ++i) {
    seen += counts[i];
    if (seen >= rank) {
      return kUpperNs[i];
    }
  }
  return -1;
}

std::uint64_t DirectionStats::dropped_total() const {
  std::uint64_t n = tx_full + no_mbuf;
  for (const std::uint64_t d : dropped) {
    n += d;
  }
  return n;
}

void DirectionStats::add(const DirectionStats& o) {
  received += o.received;
  received_bytes += o.received_bytes;
  duplicates += o.duplicates;
  sent += o.sent;
  sent_bytes += o.sent_bytes;
  for (std::size_t i = 0; i < dropped.size(); ++i) {
    dropped[i] += o.dropped[i];
  }
  tx_full += o.tx_full;
  no_mbuf += o.no_mbuf;
  held += o.held;
  marked_ce += o.marked_ce;
  corrupted += o.corrupted;
  int_stamped += o.int_stamped;
  int_exceeded += o.int_exceeded;
  int_malformed += o.int_malformed;
  int_no_room += o.int_no_room;
  multi_segment += o.multi_segment;
  held_as_copies += o.held_as_copies;
  for (std::size_t i = 0; i < delay_error.counts.size(); ++i) {
    delay_error.counts[i] += o.delay_error.counts[i];
  }
  delay_error.samples += o.delay_error.samples;
  delay_error.sum_ns += o.delay_error.sum_ns;
  for (const ClassStats& c : o.classes) {
    const auto it =
        std::find_if(classes.begin(), classes.end(), [&c](const ClassStats& x) { return x.name == c.name; });
    if (it == classes.end()) {
      classes.push_back(c);
      continue;
    }
    it->packets_in += c.packets_in;
    it->bytes_in += c.bytes_in;
    it->delivered += c.delivered;
    it->bytes_delivered += c.bytes_delivered;
    for (std::size_t i = 0; i < it->dropped.size(); ++i) {
      it->dropped[i] += c.dropped[i];
    }
    it->duplicated += c.duplicated;
    it->corrupted += c.corrupted;
    it->marked_ce += c.marked_ce;
    it->queue_bytes = std::max(it->queue_bytes, c.queue_bytes);  // the lanes share the bottleneck
    it->cross_traffic_packets += c.cross_traffic_packets;
    it->cross_traffic_dropped += c.cross_traffic_dropped;
    it->flows += c.flows;  // RSS puts a flow on one lane
    it->flow_table_misses += c.flow_table_misses;
  }
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

namespace {
nlohmann::json causes_json(const std::array<std::uint64_t, static_cast<std::size_t>(DropCause::kCount)>& d) {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t i = 0; i < d.size(); ++i) {
    j[drop_cause_name(static_cast<DropCause>(i))] = d[i];
  }
  return j;
}
}  // namespace

nlohmann::json to_json(const DelayErrorHistogram& h) {
  nlohmann::json buckets = nlohmann::json::array();
  for (std::size_t i = 0; i < h.counts.size(); ++i) {
    buckets.push_back(
        {{"le_ns", i < h.kUpperNs.size() ? nlohmann::json(h.kUpperNs[i]) : nlohmann::json("inf")},
         {"count", h.counts[i]}});
  }
  const auto q = [&](double p) {
    const std::int64_t v = h.quantile_upper_ns(p);
    return v < 0 ? nlohmann::json(nullptr) : nlohmann::json(v);
  };
  return {{"samples", h.samples},
          {"sum_ns", h.sum_ns},
          {"p50_at_most_ns", q(0.5)},
          {"p99_at_most_ns", q(0.99)},
          {"buckets", buckets}};
}

nlohmann::json to_json(const ClassStats& s) {
  return {{"packets_in", s.packets_in},
          {"bytes_in", s.bytes_in},
          {"delivered", s.delivered},
          {"bytes_delivered", s.bytes_delivered},
          {"dropped", causes_json(s.dropped)},
          {"duplicated", s.duplicated},
          {"corrupted", s.corrupted},
          {"marked_ce", s.marked_ce},
          {"queue_bytes", s.queue_bytes},
          {"cross_traffic_packets", s.cross_traffic_packets},
          {"cross_traffic_dropped", s.cross_traffic_dropped},
          {"flows", s.flows},
          {"flow_table_misses", s.flow_table_misses}};
}

nlohmann::json to_json(const DirectionStats& s) {
  nlohmann::json dropped = causes_json(s.dropped);
  dropped["tx_full"] = s.tx_full;
  dropped["no_mbuf"] = s.no_mbuf;
  nlohmann::json classes = nlohmann::json::object();
  for (const ClassStats& c : s.classes) {
    classes[c.name] = to_json(c);
  }
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
          {"int",
           {{"stamped", s.int_stamped},
            {"exceeded", s.int_exceeded},
            {"malformed", s.int_malformed},
            {"no_room", s.int_no_room}}},
          {"multi_segment_frames", s.multi_segment},
          {"held_as_copies", s.held_as_copies},
          {"delay_error", to_json(s.delay_error)},
          {"classes", classes},
          {"balanced", s.accounting_error().empty()}};
}

nlohmann::json to_json(const PortStats& s) {
  return {{"name", s.name},       {"ipackets", s.ipackets}, {"opackets", s.opackets},  {"imissed", s.imissed},
          {"ierrors", s.ierrors}, {"oerrors", s.oerrors},   {"rx_nombuf", s.rx_nombuf}};
}

nlohmann::json to_json(const QueueLaneStats& s) {
  const DirectionStats& d = s.stats;
  return {{"queue", s.queue},
          {"lcore", s.lcore},
          {"received", d.received},
          {"received_bytes", d.received_bytes},
          {"duplicates", d.duplicates},
          {"sent", d.sent},
          {"sent_bytes", d.sent_bytes},
          {"dropped", d.dropped_total()},
          {"held", d.held},
          {"held_as_copies", d.held_as_copies},
          {"balanced", d.accounting_error().empty()}};
}

nlohmann::json to_json(const EmuStats& s) {
  nlohmann::json lcores = nlohmann::json::array();
  for (const LcoreStats& l : s.lcores) {
    lcores.push_back({{"lcore", l.lcore},
                      {"lanes", l.lanes},
                      {"loops", l.loops},
                      {"naps", l.naps},
                      {"nap_ns", l.nap_ns},
                      {"nap_guard_ns", l.nap_guard_ns},
                      {"ahead", l.ahead},
                      {"ahead_late", l.ahead_late},
                      {"realtime", l.realtime}});
  }
  const auto queues = [](const std::vector<QueueLaneStats>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const QueueLaneStats& q : v) {
      a.push_back(to_json(q));
    }
    return a;
  };
  nlohmann::json ab = to_json(s.a_to_b);
  ab["queues"] = queues(s.a_to_b_queues);
  nlohmann::json ba = to_json(s.b_to_a);
  ba["queues"] = queues(s.b_to_a_queues);
  return {{"a_to_b", ab},
          {"b_to_a", ba},
          {"ports", {{"a", to_json(s.port_a)}, {"b", to_json(s.port_b)}}},
          {"seconds", s.seconds},
          {"lcores", lcores},
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
    if (d.int_stamped + d.int_exceeded + d.int_malformed + d.int_no_room > 0) {
      os << "  INT stamped " << d.int_stamped << ", hop count exceeded " << d.int_exceeded << ", malformed "
         << d.int_malformed << ", no room " << d.int_no_room << "\n";
    }
    if (d.multi_segment > 0) {
      os << "  frames in chained mbufs " << d.multi_segment << "\n";
    }
    if (d.delay_error.samples > 0) {
      os << "  release later than intended: p50 <= " << d.delay_error.quantile_upper_ns(0.5)
         << " ns, p99 <= " << d.delay_error.quantile_upper_ns(0.99) << " ns (-1 = over 10 ms), mean "
         << d.delay_error.sum_ns / static_cast<std::int64_t>(d.delay_error.samples) << " ns\n";
    }
    for (const ClassStats& c : d.classes) {
      std::uint64_t drops = 0;
      for (const std::uint64_t x : c.dropped) {
        drops += x;
      }
      os << "  class " << c.name << ": in " << c.packets_in << ", delivered " << c.delivered << ", dropped "
         << drops << ", duplicated " << c.duplicated << ", CE marked " << c.marked_ce;
      if (c.cross_traffic_packets > 0) {
        os << ", cross traffic " << c.cross_traffic_packets << " (" << c.cross_traffic_dropped << " dropped)";
      }
      os << "\n";
    }
    const std::string err = d.accounting_error();
    os << "  received + duplicates = sent + dropped + held: " << (err.empty() ? "yes" : "NO: " + err) << "\n";
  };
  direction("a_to_b (port A -> port B)", s.a_to_b);
  direction("b_to_a (port B -> port A)", s.b_to_a);
  if (s.a_to_b_queues.size() > 1 || s.b_to_a_queues.size() > 1) {
    for (const auto& [name, lanes] :
         {std::pair{"a_to_b", &s.a_to_b_queues}, std::pair{"b_to_a", &s.b_to_a_queues}}) {
      for (const QueueLaneStats& q : *lanes) {
        os << name << " queue " << q.queue << " (lcore " << q.lcore << "): received " << q.stats.received
           << ", sent " << q.stats.sent << ", dropped " << q.stats.dropped_total() << ", held "
           << q.stats.held << "\n";
      }
    }
  }
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
