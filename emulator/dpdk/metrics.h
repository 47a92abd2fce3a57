// `gradwall emu --metrics ADDR:PORT`: a Prometheus endpoint (prometheus-cpp, civetweb threads)
// serving GET /metrics from the counters the lanes publish to the Exchange (exchange.h), so a
// scrape never touches the data plane. Names (all prefixed gradwall_emu_):
//   port_packets_total, port_bytes_total            {port, name, direction="in"|"out"}
//   received_packets_total, sent_packets_total, duplicates_total   {lane="a_to_b"|"b_to_a"}
//   dropped_packets_total                           {lane, cause}  (engine causes, tx_full, no_mbuf)
//   ce_marked_packets_total, corrupted_packets_total {lane}
//   held_packets, queue_bytes, current_delay_seconds {lane}  (gauges)
//   delay_error_seconds                             {lane}  histogram of actual - intended release
//   class_packets_total {lane, class, stage="in"|"delivered"}, class_dropped_packets_total
//   {lane, class, cause}, class_ce_marked_packets_total {lane, class}
// Port counters are the emulator's own (what it took from rx and what tx accepted), so they
// equal the exit stats' received/sent exactly.
#pragma once

#include <memory>
#include <string>

namespace prometheus {
class Exposer;
}

namespace gw {

class Exchange;

class MetricsServer {
 public:
  // Listens on `address` ("127.0.0.1:9464"; port 0 picks a free one). Throws InputError for a
  // malformed address and EnvironmentError when it cannot listen (port busy).
  MetricsServer(const std::string& address, const Exchange& exchange, std::string port_a_name,
                std::string port_b_name);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  int port() const;  // the port it listens on

 private:
  class Collector;
  std::shared_ptr<Collector> collector_;
  std::unique_ptr<prometheus::Exposer> exposer_;
};

}  // namespace gw
