// `gradwall endpoint` (hidden; started by `gradwall run --mode live`, docs/guide/live.md): one
// side of a live run. Hosts that side's ranks on a UDP endpoint (generators/endpoints) in the
// network namespace it was started in, and takes orders from the coordinator over a
// filesystem-path unix socket, one JSON object per line:
//   coordinator -> endpoint  {"t":"start","epoch_ns":E}            CLOCK_MONOTONIC of run time 0
//                            {"t":"send","qp":Q,"peer":"IP","msg":M,"bytes":N}
//                            {"t":"stop"}
//   endpoint -> coordinator  {"t":"hello","side":S,"pid":P}  {"t":"ready","port":4791}
//                            {"t":"delivered","qp":Q,"msg":M,"bytes":N,"posted_ns":..,"at_ns":..}
//                            {"t":"stats",...} every second and last, before it exits (only the
//                            last one carries the one-way delay histograms)
#include <unistd.h>

#include <boost/program_options.hpp>
#include <iostream>

#include "core/errors.h"
#include "generators/endpoints/clock.h"
#include "generators/endpoints/line_channel.h"
#include "generators/endpoints/udp_endpoint.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/scenario.h"

namespace gw {

namespace {

namespace po = boost::program_options;
using endpoints::LineChannel;
using endpoints::UdpEndpoint;

nlohmann::json qp_stats_json(const transport::QpStats& s) {
  return {{"data_packets_sent", s.data_packets_sent},
          {"data_bytes_sent", s.data_bytes_sent},
          {"retransmitted_packets", s.retransmitted_packets},
          {"bytes_delivered", s.bytes_delivered},
          {"packets_declared_lost", s.packets_declared_lost},
          {"timeouts", s.timeouts},
          {"acks_received", s.acks_received},
          {"naks_received", s.naks_received},
          {"cnps_received", s.cnps_received},
          {"messages_sent", s.messages_sent},
          {"data_packets_received", s.data_packets_received},
          {"duplicates_received", s.duplicates_received},
          {"out_of_order_discarded", s.out_of_order_discarded},
          {"out_of_order_buffered", s.out_of_order_buffered},
          {"ce_packets_received", s.ce_packets_received},
          {"payload_bytes_received", s.payload_bytes_received},
          {"messages_received", s.messages_received},
          {"acks_sent", s.acks_sent},
          {"naks_sent", s.naks_sent},
          {"cnps_sent", s.cnps_sent}};
}

nlohmann::json stats_json(const UdpEndpoint& ep, std::uint32_t side, bool final) {
  const endpoints::EndpointCounters& c = ep.counters();
  nlohmann::json qps = nlohmann::json::array();
  for (const UdpEndpoint::QpView& q : ep.queue_pairs()) {
    qps.push_back({{"qp", q.qp},
                   {"sending", q.sending},
                   {"peer", q.peer},
                   {"srtt_ns", q.pair->srtt().count()},
                   {"cwnd_bytes", q.pair->congestion_control().cwnd_bytes()},
                   {"stats", qp_stats_json(q.pair->stats())}});
  }
  auto bins = [](const std::map<std::int64_t, std::uint64_t>& m) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [us, n] : m) {
      out.push_back({us, n});
    }
    return out;
  };
  nlohmann::json out = {{"t", "stats"},
                        {"side", side},
                        {"final", final},
                        {"counters",
                         {{"datagrams_sent", c.datagrams_sent},
                          {"datagrams_received", c.datagrams_received},
                          {"bytes_sent", c.bytes_sent},
                          {"bytes_received", c.bytes_received},
                          {"send_dropped", c.send_dropped},
                          {"undecodable", c.undecodable},
                          {"unknown_qp", c.unknown_qp},
                          {"socket_overflow", c.socket_overflow},
                          {"receiving_qps_opened", c.receiving_qps_opened}}},
                        {"qps", qps}};
  // The delay histograms (one bin per microsecond seen: tens of thousands of bins, a MB of
  // JSON) only in the final message. Sent every second they stalled the endpoint: building
  // them took a while and, while the coordinator parsed the previous ones, the write to the
  // control socket blocked, datagrams piled up unread, the socket overflowed and the
  // transport timed out (docs/guide/live.md "Sim and live").
  if (final) {
    out["one_way_delay_us"] = bins(ep.one_way_delay_us());
    out["one_way_delay_remote_us"] = bins(ep.one_way_delay_remote_us());
  }
  return out;
}

}  // namespace

int cmd_endpoint(const Args& args) {
  po::options_description opts(
      "gradwall endpoint --control PATH --side N --address IP --scenario FILE\n\n"
      "One side of a live run (started by `gradwall run --mode live`; not meant to be run by "
      "hand).\nOptions");
  std::string control;
  std::string address;
  std::string scenario_file;
  std::uint32_t side = 0;
  opts.add_options()("help,h", "this help")("control", po::value<std::string>(&control)->required(),
                                            "the coordinator's unix socket")(
      "side", po::value<std::uint32_t>(&side)->required(), "0 (region 0, A) or 1 (region 1, B)")(
      "address", po::value<std::string>(&address)->required(), "IPv4 address to bind UDP 4791 on")(
      "scenario", po::value<std::string>(&scenario_file)->required(), "the scenario file");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).run(), vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  po::notify(vm);
  const Scenario scenario = load_scenario(scenario_file);
  if (side >= scenario.topology.regions.size()) {
    throw InputError("--side", "",
                     "the scenario has " + std::to_string(scenario.topology.regions.size()) +
                         " regions, no side " + std::to_string(side));
  }
  LineChannel ch = LineChannel::connect(control);
  ch.send({{"t", "hello"}, {"side", side}, {"pid", getpid()}});
  const auto start = ch.receive_one(Duration{30'000'000'000});
  if (!start || start->value("t", "") != "start") {
    throw EnvironmentError("endpoint: no start message from the coordinator");
  }
  const endpoints::RunTime rt(start->at("epoch_ns").get<std::int64_t>());

  endpoints::UdpEndpointConfig cfg;
  cfg.transport = scenario.transport.config;
  cfg.cc = scenario.transport.cc;
  cfg.cc_params = scenario.transport.cc_params;
  cfg.cc_context.line_rate_bps = scenario.topology.regions[side].nic_rate.bps;
  cfg.bind_address = address;
  cfg.epoch_monotonic_ns = rt.epoch_ns();
  UdpEndpoint ep(cfg);
  ch.send({{"t", "ready"}, {"port", ep.port()}});

  Instant next_stats = rt.now() + Duration{1'000'000'000};
  bool stopping = false;
  while (!stopping) {
    Instant now = rt.now();
    for (const nlohmann::json& m : ch.receive()) {
      const std::string t = m.value("t", "");
      if (t == "send") {
        ep.post(m.at("qp").get<std::uint32_t>(), m.at("peer").get<std::string>(),
                m.at("msg").get<std::uint64_t>(), m.at("bytes").get<std::uint64_t>(), now);
      } else if (t == "stop") {
        stopping = true;
      }
    }
    if (ch.closed()) {
      std::cerr << "gradwall endpoint (side " << side << "): the coordinator went away; stopping\n";
      return kExitEnvironment;
    }
    ep.poll(now);
    for (const endpoints::Delivery& d : ep.take_deliveries()) {
      ch.send({{"t", "delivered"},
               {"qp", d.qp},
               {"msg", d.msg_id},
               {"bytes", d.bytes},
               {"posted_ns", ns_of(d.posted)},
               {"at_ns", ns_of(d.completed)}});
    }
    now = rt.now();
    if (now >= next_stats) {
      ch.send(stats_json(ep, side, false));
      next_stats = now + Duration{1'000'000'000};
    }
    if (!stopping) {
      ep.wait(std::min({ep.next_wakeup(), next_stats, now + Duration{50'000'000}}), now, rt.epoch_ns(),
              ch.fd());
    }
  }
  ch.send(stats_json(ep, side, true));
  return kExitOk;
}

}  // namespace gw
