// `gradwall endpoint-tcp` (hidden; started by `gradwall run --mode live --baselines ...`,
// docs/guide/live.md "Kernel TCP baselines"): one side of a baseline run. The same control
// protocol as `gradwall endpoint` (cmd_endpoint.cc: hello, start, ready, send, delivered,
// stats, stop), but the messages travel on kernel TCP sockets (harness/live/endpoints/
// tcp_endpoint.h), one connection per sending queue pair, with the congestion control given.
// Its stats messages carry {"kind":"tcp"}, byte counters and each connection's TCP_INFO.
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <iostream>

#include "core/errors.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/live/endpoint_loop.h"
#include "harness/live/endpoints/clock.h"
#include "harness/live/endpoints/line_channel.h"
#include "harness/live/endpoints/tcp_endpoint.h"
#include "harness/run/scenario.h"

namespace gw {

namespace {

namespace po = boost::program_options;
using endpoints::LineChannel;
using endpoints::TcpEndpoint;

nlohmann::json stats_json(const TcpEndpoint& ep, std::uint32_t side, bool final) {
  const endpoints::TcpCounters& c = ep.counters();
  nlohmann::json qps = nlohmann::json::array();
  for (const endpoints::TcpConnectionInfo& i : ep.connections()) {
    qps.push_back({{"qp", i.qp},
                   {"sending", i.sending},
                   {"peer", i.peer},
                   {"congestion_control", i.congestion_control},
                   {"srtt_ns", i.srtt_ns},
                   {"cwnd_bytes", i.cwnd_bytes},
                   {"stats",
                    {{"bytes_written", i.bytes_written},
                     {"bytes_read", i.bytes_read},
                     {"tcpi_total_retrans", i.total_retrans},
                     {"tcpi_bytes_retrans", i.bytes_retrans},
                     {"tcpi_bytes_acked", i.bytes_acked},
                     {"tcpi_bytes_received", i.bytes_received},
                     {"tcpi_data_segs_out", i.data_segs_out},
                     {"tcpi_segs_out", i.segs_out},
                     {"tcpi_min_rtt_ns", i.min_rtt_ns},
                     {"tcpi_pacing_rate_bps", i.pacing_rate_bps},
                     {"tcpi_max_pacing_rate_bps", i.max_pacing_rate_bps},
                     {"tcpi_delivery_rate_bps", i.delivery_rate_bps}}}});
  }
  return {{"t", "stats"},
          {"kind", "tcp"},
          {"side", side},
          {"final", final},
          {"counters",
           {{"bytes_written", c.bytes_written},
            {"bytes_read", c.bytes_read},
            {"messages_posted", c.messages_posted},
            {"messages_delivered", c.messages_delivered},
            {"connections_opened", c.connections_opened},
            {"connections_accepted", c.connections_accepted}}},
          {"qps", qps}};
}

}  // namespace

int cmd_endpoint_tcp(const Args& args) {
  po::options_description opts(
      "gradwall endpoint-tcp --control PATH --side N --address IP --scenario FILE --cc NAME\n"
      "  [--max-pacing-rate-bps N]\n\n"
      "One side of a kernel-TCP baseline run (started by `gradwall run --mode live --baselines`; "
      "not meant to be run by hand).\nOptions");
  std::string control;
  std::string address;
  endpoints::TcpEndpointConfig cfg;
  std::uint32_t side = 0;
  opts.add_options()("help,h", "this help")("control", po::value<std::string>(&control)->required(),
                                            "the coordinator's unix socket")(
      "side", po::value<std::uint32_t>(&side)->required(), "0 (side A) or 1 (side B)")(
      "address", po::value<std::string>(&address)->required(), "IPv4 address to listen on")(
      "cc", po::value<std::string>(&cfg.congestion_control)->required(), "TCP_CONGESTION of every socket")(
      "scenario", po::value<std::string>(),
      "the scenario file (its series interval: how often stats are sent)")(
      "port", po::value<std::uint16_t>(&cfg.port)->default_value(cfg.port), "TCP port (both sides)")(
      "max-pacing-rate-bps", po::value<std::uint64_t>(&cfg.max_pacing_rate_bps)->default_value(0),
      "SO_MAX_PACING_RATE of the sending sockets, bit/s (0: none)");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).run(), vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  po::notify(vm);
  cfg.bind_address = address;
  // Stats at the scenario's series interval (serve_endpoint keeps it within 10 ms to 1 s).
  Duration stats_interval{1'000'000'000};
  if (vm.count("scenario")) {
    stats_interval = load_scenario(vm["scenario"].as<std::string>()).interval;
  }
  cfg.peer_port = cfg.port;
  LineChannel ch = LineChannel::connect(control);
  const endpoints::RunTime rt = greet_coordinator(ch, side, getpid(), "endpoint-tcp");
  TcpEndpoint ep(cfg);
  return serve_endpoint(
      ep, ch, rt, side, stats_interval, "endpoint-tcp",
      [&](bool final) { return stats_json(ep, side, final); },
      [&](Instant now, Instant next_stats) { ep.wait(next_stats, now, ch.fd()); });
}

}  // namespace gw
