#include "emulator/dpdk/metrics.h"

#include <prometheus/collectable.h>
#include <prometheus/exposer.h>
#include <prometheus/metric_family.h>

#include <limits>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "emulator/dpdk/exchange.h"

namespace gw {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;
using Labels = std::vector<ClientMetric::Label>;

MetricFamily family(const char* name, const char* help, MetricType type) {
  MetricFamily f;
  f.name = std::string("gradwall_emu_") + name;
  f.help = help;
  f.type = type;
  return f;
}

void add(MetricFamily& f, Labels labels, double v) {
  ClientMetric m;
  m.label = std::move(labels);
  if (f.type == MetricType::Counter) {
    m.counter.value = v;
  } else {
    m.gauge.value = v;
  }
  f.metric.push_back(std::move(m));
}

}  // namespace

class MetricsServer::Collector final : public prometheus::Collectable {
 public:
  Collector(const Exchange& ex, std::string a, std::string b) : ex_(ex), names_{std::move(a), std::move(b)} {}

  std::vector<MetricFamily> Collect() const override {
    const LaneSnapshot ab = ex_.read(Direction::kAToB);
    const LaneSnapshot ba = ex_.read(Direction::kBToA);
    auto pkts = family("port_packets_total", "frames per port: in = taken from rx, out = accepted by tx",
                       MetricType::Counter);
    auto bytes = family("port_bytes_total", "frame bytes per port (in, out)", MetricType::Counter);
    // Port 0 (side A) receives a_to_b and sends b_to_a; port 1 the other way round.
    const std::pair<const DirectionStats*, const DirectionStats*> io[2] = {{&ab.stats, &ba.stats},
                                                                           {&ba.stats, &ab.stats}};
    for (int p = 0; p < 2; ++p) {
      const std::string port = std::to_string(p);
      const std::string& name = names_[static_cast<std::size_t>(p)];
      add(pkts, {{"direction", "in"}, {"name", name}, {"port", port}},
          static_cast<double>(io[p].first->received));
      add(pkts, {{"direction", "out"}, {"name", name}, {"port", port}},
          static_cast<double>(io[p].second->sent));
      add(bytes, {{"direction", "in"}, {"name", name}, {"port", port}},
          static_cast<double>(io[p].first->received_bytes));
      add(bytes, {{"direction", "out"}, {"name", name}, {"port", port}},
          static_cast<double>(io[p].second->sent_bytes));
    }
    auto received = family("received_packets_total", "frames entering the lane", MetricType::Counter);
    auto sent = family("sent_packets_total", "frames the lane sent", MetricType::Counter);
    auto dups = family("duplicates_total", "extra copies the duplicate stage made", MetricType::Counter);
    auto dropped = family("dropped_packets_total", "frames dropped, by cause", MetricType::Counter);
    auto ce = family("ce_marked_packets_total", "frames marked CE in their bytes", MetricType::Counter);
    auto corrupted = family("corrupted_packets_total", "frames with a bit flipped", MetricType::Counter);
    auto held = family("held_packets", "frames inside the lane (queue depth)", MetricType::Gauge);
    auto qbytes = family("queue_bytes", "bytes in the lane's bottleneck queues", MetricType::Gauge);
    auto delay = family("current_delay_seconds", "intended delay (release - arrival) of the last frame sent",
                        MetricType::Gauge);
    auto err = family("delay_error_seconds", "actual release - intended release per frame sent",
                      MetricType::Histogram);
    auto cls = family("class_packets_total", "frames per traffic class: in, delivered", MetricType::Counter);
    auto cls_drop = family("class_dropped_packets_total", "frames dropped per traffic class, by cause",
                           MetricType::Counter);
    auto cls_ce = family("class_ce_marked_packets_total", "CE marks per traffic class", MetricType::Counter);
    auto cls_flows =
        family("class_flows", "flows with per-flow random streams, per traffic class", MetricType::Gauge);
    auto cls_misses =
        family("class_flow_table_misses_total",
               "frames whose flow found the per-flow table full, per traffic class", MetricType::Counter);
    for (const auto& [lane, snap] : {std::pair{"a_to_b", &ab}, std::pair{"b_to_a", &ba}}) {
      const DirectionStats& s = snap->stats;
      add(received, {{"lane", lane}}, static_cast<double>(s.received));
      add(sent, {{"lane", lane}}, static_cast<double>(s.sent));
      add(dups, {{"lane", lane}}, static_cast<double>(s.duplicates));
      for (std::size_t i = 0; i < s.dropped.size(); ++i) {
        add(dropped, {{"cause", drop_cause_name(static_cast<DropCause>(i))}, {"lane", lane}},
            static_cast<double>(s.dropped[i]));
      }
      add(dropped, {{"cause", "tx_full"}, {"lane", lane}}, static_cast<double>(s.tx_full));
      add(dropped, {{"cause", "no_mbuf"}, {"lane", lane}}, static_cast<double>(s.no_mbuf));
      add(ce, {{"lane", lane}}, static_cast<double>(s.marked_ce));
      add(corrupted, {{"lane", lane}}, static_cast<double>(s.corrupted));
      add(held, {{"lane", lane}}, static_cast<double>(s.held));
      add(qbytes, {{"lane", lane}}, static_cast<double>(snap->queue_bytes));
      add(delay, {{"lane", lane}}, static_cast<double>(snap->current_delay_ns) / 1e9);
      ClientMetric h;
      h.label = {{"lane", lane}};
      h.histogram.sample_count = s.delay_error.samples;
      h.histogram.sample_sum = static_cast<double>(s.delay_error.sum_ns) / 1e9;
      std::uint64_t cumulative = 0;
      for (std::size_t i = 0; i < s.delay_error.counts.size(); ++i) {
        cumulative += s.delay_error.counts[i];
        const double le = i < DelayErrorHistogram::kUpperNs.size()
                              ? static_cast<double>(DelayErrorHistogram::kUpperNs[i]) / 1e9
                              : std::numeric_limits<double>::infinity();
        h.histogram.bucket.push_back({cumulative, le});
      }
      err.metric.push_back(std::move(h));
      for (const ClassStats& c : s.classes) {
        add(cls, {{"class", c.name}, {"lane", lane}, {"stage", "in"}}, static_cast<double>(c.packets_in));
        add(cls, {{"class", c.name}, {"lane", lane}, {"stage", "delivered"}},
            static_cast<double>(c.delivered));
        for (std::size_t i = 0; i < c.dropped.size(); ++i) {
          add(cls_drop,
              {{"cause", drop_cause_name(static_cast<DropCause>(i))}, {"class", c.name}, {"lane", lane}},
              static_cast<double>(c.dropped[i]));
        }
        add(cls_ce, {{"class", c.name}, {"lane", lane}}, static_cast<double>(c.marked_ce));
        add(cls_flows, {{"class", c.name}, {"lane", lane}}, static_cast<double>(c.flows));
        add(cls_misses, {{"class", c.name}, {"lane", lane}}, static_cast<double>(c.flow_table_misses));
      }
    }
    // Per rx queue (--queues): each lane's share, on its own lcore.
    auto q_pkts = family("queue_packets_total", "frames per lane and rx queue: received, sent, dropped",
                         MetricType::Counter);
    auto q_held = family("queue_held_packets", "frames inside the lane's queue share", MetricType::Gauge);
    for (const Direction d : {Direction::kAToB, Direction::kBToA}) {
      const std::string lane = direction_name(d);
      for (std::uint16_t q = 0; q < ex_.queues(); ++q) {
        const DirectionStats s = ex_.read(d, q).stats;
        const std::string queue = std::to_string(q);
        add(q_pkts, {{"lane", lane}, {"queue", queue}, {"what", "received"}},
            static_cast<double>(s.received));
        add(q_pkts, {{"lane", lane}, {"queue", queue}, {"what", "sent"}}, static_cast<double>(s.sent));
        add(q_pkts, {{"lane", lane}, {"queue", queue}, {"what", "dropped"}},
            static_cast<double>(s.dropped_total()));
        add(q_held, {{"lane", lane}, {"queue", queue}}, static_cast<double>(s.held));
      }
    }
    return {pkts,  bytes, received, sent,     dups,   dropped,   ce,         corrupted, held,  qbytes,
            delay, err,   cls,      cls_drop, cls_ce, cls_flows, cls_misses, q_pkts,    q_held};
  }

 private:
  const Exchange& ex_;
  std::array<std::string, 2> names_;
};

MetricsServer::MetricsServer(const std::string& address, const Exchange& exchange, std::string port_a_name,
                             std::string port_b_name)
    : collector_(std::make_shared<Collector>(exchange, std::move(port_a_name), std::move(port_b_name))) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size()) {
    throw InputError("--metrics", "", "must be ADDRESS:PORT (e.g. 127.0.0.1:9464), got '" + address + "'");
  }
  try {
    exposer_ = std::make_unique<prometheus::Exposer>(address, 2);
  } catch (const std::exception& e) {
    throw EnvironmentError("--metrics: cannot listen on " + address + " (" + e.what() +
                           "): the port may be in use; pick another or use port 0");
  }
  exposer_->RegisterCollectable(collector_);
}

MetricsServer::~MetricsServer() = default;

int MetricsServer::port() const {
  const auto ports = exposer_->GetListeningPorts();
  return ports.empty() ? 0 : ports.front();
}

}  // namespace gw
