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
#include "harness/live/hostpace/edt_pacer.h"
#include "harness/live/hostpace/host_pacer.h"
#include "harness/live/live_process.h"
#include "harness/run/scenario.h"

namespace gw {

namespace {

namespace po = boost::program_options;
using endpoints::LineChannel;
using endpoints::TcpEndpoint;

// The sending host's pacer (host_pacer.h): fq on the side's interface, or the EDT program
// on its egress with each connection's rate set when it connects.
struct HostPacing {
  hostpace::HostPacerMode mode = hostpace::HostPacerMode::user;
  std::string interface;
  bool fq = false;  // the fq qdisc is on the interface (departure times are enforced)
  std::string no_fq_reason;
  std::unique_ptr<hostpace::EdtPacer> edt;
  std::uint64_t rate_bps = 0;
  std::uint64_t flows = 0;

  HostPacing() = default;
  HostPacing(const HostPacing&) = delete;
  HostPacing& operator=(const HostPacing&) = delete;
  // The interface's root qdisc back to the kernel's default, when this side set fq on it.
  ~HostPacing() {
    if (fq) {
      run_command({"tc", "qdisc", "del", "dev", interface, "root"});
    }
  }

  nlohmann::json to_json() const {
    nlohmann::json j = {{"mode", hostpace::host_pacer_name(mode)}, {"interface", interface}, {"fq", fq}};
    if (!no_fq_reason.empty()) {
      j["no_fq_reason"] = no_fq_reason;
    }
    if (edt) {
      const hostpace::EdtStats s = edt->stats();
      j["rate_bps"] = rate_bps;
      j["flows"] = flows;
      j["counters"] = {{"packets", s[GW_EDT_PACKETS]},
                       {"bytes", s[GW_EDT_BYTES]},
                       {"paced", s[GW_EDT_PACED]},
                       {"delayed", s[GW_EDT_DELAYED]},
                       {"ce_marked", s[GW_EDT_CE_MARKED]},
                       {"past_threshold_not_ect", s[GW_EDT_PAST_THRESHOLD]},
                       {"dropped_horizon", s[GW_EDT_DROPPED_HORIZON]},
                       {"not_paced", s[GW_EDT_NOT_PACED]},
                       {"not_ip", s[GW_EDT_NOT_IP]}};
    }
    return j;
  }
};

void set_up_host_pacing(HostPacing& hp, const hostpace::HostPacerOptions& o, const std::string& address) {
  hp.mode = o.mode;
  if (o.mode == hostpace::HostPacerMode::user) {
    return;
  }
  hp.interface = hostpace::interface_with_address(address);
  if (o.mode == hostpace::HostPacerMode::fq) {
    hostpace::install_fq(hp.interface);  // throws with tc's reason where the kernel has no fq
    hp.fq = true;
    return;
  }
  hp.edt = std::make_unique<hostpace::EdtPacer>(
      hostpace::EdtConfig{.default_rate_bps = 0, .ce_threshold = o.ce_threshold, .horizon = o.horizon});
  hp.edt->attach(hp.interface);
  // Departure times are enforced only by fq; without it the marks and the horizon still hold.
  try {
    hostpace::install_fq(hp.interface);
    hp.fq = true;
  } catch (const EnvironmentError& e) {
    hp.no_fq_reason = e.what();
  }
}

nlohmann::json stats_json(const TcpEndpoint& ep, std::uint32_t side, bool final, const HostPacing& hp) {
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
          {"qps", qps},
          {"host_pacer", hp.to_json()}};
}

}  // namespace

int cmd_endpoint_tcp(const Args& args) {
  po::options_description opts(
      "gradwall endpoint-tcp --control PATH --side N --address IP --scenario FILE --cc NAME\n"
      "  [--max-pacing-rate-bps N] [--host-pacer user|fq|edt-bpf] [--edt-ce-threshold-ns N]\n"
      "  [--edt-horizon-ns N]\n\n"
      "One side of a kernel-TCP baseline run (started by `gradwall run --mode live --baselines`; "
      "not meant to be run by hand).\nOptions");
  std::string control;
  std::string address;
  endpoints::TcpEndpointConfig cfg;
  std::uint32_t side = 0;
  hostpace::HostPacerOptions pacing;
  std::string pacer;
  std::int64_t ce_ns = 0;
  std::int64_t horizon_ns = 0;
  opts.add_options()("help,h", "this help")("control", po::value<std::string>(&control)->required(),
                                            "the coordinator's unix socket")(
      "side", po::value<std::uint32_t>(&side)->required(), "0 (side A) or 1 (side B)")(
      "address", po::value<std::string>(&address)->required(), "IPv4 address to listen on")(
      "cc", po::value<std::string>(&cfg.congestion_control)->required(), "TCP_CONGESTION of every socket")(
      "scenario", po::value<std::string>(),
      "the scenario file (its series interval: how often stats are sent)")(
      "port", po::value<std::uint16_t>(&cfg.port)->default_value(cfg.port), "TCP port (both sides)")(
      "max-pacing-rate-bps", po::value<std::uint64_t>(&cfg.max_pacing_rate_bps)->default_value(0),
      "SO_MAX_PACING_RATE of the sending sockets, bit/s (0: none); with edt-bpf, each connection's "
      "rate in the EDT program instead")(
      "host-pacer", po::value<std::string>(&pacer)->default_value("user"),
      "who paces the sending host: user, fq or edt-bpf (docs/guide/host-pacing.md)")(
      "edt-ce-threshold-ns", po::value<std::int64_t>(&ce_ns)->default_value(pacing.ce_threshold.count()),
      "edt-bpf: ECT frames departing this far ahead are marked CE")(
      "edt-horizon-ns", po::value<std::int64_t>(&horizon_ns)->default_value(pacing.horizon.count()),
      "edt-bpf: frames departing this far ahead are dropped");
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
  const std::optional<hostpace::HostPacerMode> mode = hostpace::host_pacer_mode(pacer);
  if (!mode) {
    throw InputError("--host-pacer", "", "user, fq or edt-bpf, got \"" + pacer + "\"");
  }
  pacing.mode = *mode;
  pacing.ce_threshold = Duration{ce_ns};
  pacing.horizon = Duration{horizon_ns};
  // The host pacer is set up before the coordinator hears from this side, so that a kernel
  // without fq or BPF ends the run before it starts, with the reason.
  HostPacing hp;
  set_up_host_pacing(hp, pacing, address);
  if (hp.edt) {  // the cap goes into the program, not the socket
    hp.rate_bps = cfg.max_pacing_rate_bps;
    cfg.max_pacing_rate_bps = 0;
    cfg.on_connected = [&hp](int fd) {
      hp.edt->set_rate(hostpace::EdtFlowKey::of_socket(fd), hp.rate_bps);
      ++hp.flows;
    };
  }
  LineChannel ch = LineChannel::connect(control);
  const endpoints::RunTime rt = greet_coordinator(ch, side, getpid(), "endpoint-tcp");
  TcpEndpoint ep(cfg);
  return serve_endpoint(
      ep, ch, rt, side, stats_interval, "endpoint-tcp",
      [&](bool final) { return stats_json(ep, side, final, hp); },
      [&](Instant now, Instant next_stats) { ep.wait(next_stats, now, ch.fd()); });
}

}  // namespace gw
