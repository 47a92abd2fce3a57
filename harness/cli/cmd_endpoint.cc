// `gradwall endpoint` (hidden; started by `gradwall run --mode live`, docs/guide/live.md): one
// side of a live run. Hosts that side's ranks on an endpoint (harness/live/endpoints) in the
// network namespace it was started in: `--io udp` (a UDP socket, the default), `--io dpdk` (a
// DPDK port: an af_packet vdev on the interface holding --address unless EAL arguments follow
// `--`) or `--io ibverbs` (RDMA devices: only the probe so far, `--list-devices`). It takes
// orders from the coordinator over a unix socket (harness/live/control_messages.h).
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <algorithm>
#include <boost/program_options.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "core/errors.h"
#include "emulator/dpdk/eal.h"
#include "emulator/dpdk/port.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/live/endpoint_loop.h"
#include "harness/live/endpoints/clock.h"
#include "harness/live/endpoints/dpdk_endpoint.h"
#include "harness/live/endpoints/ibverbs_devices.h"
#include "harness/live/endpoints/line_channel.h"
#include "harness/live/endpoints/udp_endpoint.h"
#include "harness/live/live_profile.h"
#include "harness/run/scenario.h"

namespace gw {

namespace {

namespace po = boost::program_options;
using endpoints::DpdkEndpoint;
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

nlohmann::json counters_json(const endpoints::EndpointCounters& c) {
  return {{"datagrams_sent", c.datagrams_sent},
          {"datagrams_received", c.datagrams_received},
          {"bytes_sent", c.bytes_sent},
          {"bytes_received", c.bytes_received},
          {"send_dropped", c.send_dropped},
          {"undecodable", c.undecodable},
          {"unknown_qp", c.unknown_qp},
          {"socket_overflow", c.socket_overflow},
          {"receiving_qps_opened", c.receiving_qps_opened}};
}

nlohmann::json counters_of(const UdpEndpoint& ep) {
  nlohmann::json out = counters_json(ep.counters());
  out["io"] = "udp";
  return out;
}

// The DPDK endpoint's counters: the endpoint's view of the datagrams (as UdpEndpoint's, so the
// runner's accounting reads them alike) and, under "port", every frame the port moved.
nlohmann::json counters_of(const DpdkEndpoint& ep) {
  const endpoints::DpdkCounters c = ep.counters();
  nlohmann::json out = counters_json(c.endpoint);
  out["io"] = "dpdk";
  out["local_datagrams_sent"] = c.local_datagrams_sent;
  out["local_datagrams_received"] = c.local_datagrams_received;
  out["port"] = {{"rx_frames", c.port_rx_frames},
                 {"tx_frames", c.port_tx_frames},
                 {"arp_frames", c.arp_frames},
                 {"arp_requests_sent", c.arp_requests_sent},
                 {"frames_not_for_us", c.frames_not_for_us},
                 {"frames_dropped_by_endpoint", c.frames_dropped_by_endpoint},
                 {"tx_no_mbuf", c.tx_no_mbuf},
                 {"tx_failed", c.tx_failed},
                 {"rx_ring_overflow", c.rx_ring_overflow},
                 {"imissed_plus_rx_nombuf", c.endpoint.socket_overflow - c.rx_ring_overflow}};
  out["neighbours"] = nlohmann::json::array();
  for (const DpdkEndpoint::Neighbour& n : ep.neighbours()) {
    out["neighbours"].push_back({{"ip", n.ip}, {"mac", n.mac}, {"source", n.source}});
  }
  return out;
}

template <class Endpoint>
nlohmann::json stats_json(const Endpoint& ep, std::uint32_t side, bool final) {
  nlohmann::json qps = nlohmann::json::array();
  for (const typename Endpoint::QpView& q : ep.queue_pairs()) {
    qps.push_back({{"qp", q.qp},
                   {"sending", q.sending},
                   {"path", q.path},
                   {"peer", q.peer},
                   {"srtt_ns", q.pair->srtt().count()},
                   {"cwnd_bytes", q.pair->congestion_control().cwnd_bytes()},
                   {"cc", std::string(q.pair->congestion_control().name())},
                   {"stats", qp_stats_json(q.pair->stats())}});
  }
  auto bins = [](const std::map<std::int64_t, std::uint64_t>& m) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [us, n] : m) {
      out.push_back({us, n});
    }
    return out;
  };
  nlohmann::json out = {
      {"t", "stats"}, {"side", side}, {"final", final}, {"counters", counters_of(ep)}, {"qps", qps}};
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

// `gradwall endpoint`'s loop (endpoint_loop.h) for one kind of endpoint.
template <class Endpoint>
int serve(Endpoint& ep, LineChannel& ch, const endpoints::RunTime& rt, std::uint32_t side,
          Duration stats_interval) {
  return serve_endpoint(
      ep, ch, rt, side, stats_interval, "endpoint", [&](bool final) { return stats_json(ep, side, final); },
      [&](Instant now, Instant next_stats) {
        ep.wait(std::min({ep.next_wakeup(), next_stats, now + Duration{50'000'000}}), now, rt.epoch_ns(),
                ch.fd());
      });
}

// The interface that holds `ipv4` in this network namespace ("" when none does).
std::string interface_of(const std::string& ipv4) {
  in_addr want{};
  if (inet_pton(AF_INET, ipv4.c_str(), &want) != 1) {
    throw InputError("--address", "", "not an IPv4 address: " + ipv4);
  }
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) {
    return "";
  }
  std::string name;
  for (const ifaddrs* a = list; a != nullptr && name.empty(); a = a->ifa_next) {
    if (a->ifa_addr != nullptr && a->ifa_addr->sa_family == AF_INET &&
        reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr.s_addr == want.s_addr) {
      name = a->ifa_name;
    }
  }
  freeifaddrs(list);
  return name;
}

// `--list-devices`: what libibverbs sees, one device per block.
void print_devices(const std::vector<endpoints::IbvDeviceInfo>& devices) {
  for (const endpoints::IbvDeviceInfo& d : devices) {
    std::cout << d.name << ": node GUID " << d.node_guid << ", transport " << d.transport << "\n";
    if (!d.error.empty()) {
      std::cout << "  (not usable: " << d.error << ")\n";
    }
    for (const endpoints::IbvPortInfo& p : d.ports) {
      std::cout << "  port " << p.port << ": " << p.state << ", link layer " << p.link_layer
                << ", active MTU " << p.active_mtu_bytes << "\n";
      for (const endpoints::IbvGidEntry& g : p.gids) {
        std::cout << "    GID " << g.index << ": " << g.gid << " (" << g.type
                  << (g.netdev.empty() ? "" : ", " + g.netdev) << ")\n";
      }
    }
  }
}

// The EAL arguments of a DPDK endpoint when none were given: no hugepages, a file prefix of
// its own, one lcore free to run on any CPU (as the emulator's), and an af_packet vdev on the
// interface that holds the endpoint's address.
Args default_eal_args(const std::string& iface, std::uint32_t side, const std::string& prefix) {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  (void)side;
  return {"--no-huge",
          "-m",
          "256",
          "--no-pci",
          "--file-prefix=" + prefix,
          cpus > 1 ? "--lcores=0@(0-" + std::to_string(cpus - 1) + ")" : "--lcores=0@(0)",
          "--vdev=net_af_packet0,iface=" + iface + ",framecnt=16384"};
}

// EAL leaves a runtime folder named after its file prefix (docs/bench-machine.md): removed on the way
// out, whatever happened, when the endpoint chose the prefix.
struct RuntimeFolder {
  std::string path;
  ~RuntimeFolder() {
    if (!path.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  }
};

// What the command line asks for.
struct EndpointRequest {
  std::string control;
  std::string address;
  std::string scenario_file;
  std::string io = "udp";
  std::uint32_t side = 0;
  bool list_devices = false;
  Args eal_args;  // everything after the first `--` (--io dpdk)
};

// The request, or nullopt after printing the help. InputError names the option at fault.
std::optional<EndpointRequest> parse_request(const Args& all_args) {
  EndpointRequest r;
  po::options_description opts(
      "gradwall endpoint --control PATH --side N --address IP --scenario FILE [--io udp|dpdk] [-- EAL-ARGS]\n"
      "gradwall endpoint --io ibverbs --list-devices\n\n"
      "One side of a live run (started by `gradwall run --mode live`; not meant to be run by "
      "hand).\nOptions");
  opts.add_options()("help,h", "this help")("control", po::value<std::string>(&r.control),
                                            "the coordinator's unix socket")(
      "side", po::value<std::uint32_t>(&r.side), "0 (region 0, A) or 1 (region 1, B)")(
      "address", po::value<std::string>(&r.address), "IPv4 address the endpoint answers for (UDP 4791)")(
      "scenario", po::value<std::string>(&r.scenario_file), "the scenario file")(
      "io", po::value<std::string>(&r.io)->default_value(r.io),
      "udp (a UDP socket), dpdk (a DPDK port; EAL arguments after `--`, default: an af_packet vdev on "
      "the interface holding --address) or ibverbs (RDMA devices)")(
      "list-devices", "with --io ibverbs: print the RDMA devices, their ports and GID tables, and exit");
  Args args = all_args;
  for (std::size_t i = 0; i < all_args.size(); ++i) {
    if (all_args[i] == "--") {
      args.assign(all_args.begin(), all_args.begin() + static_cast<std::ptrdiff_t>(i));
      r.eal_args.assign(all_args.begin() + static_cast<std::ptrdiff_t>(i) + 1, all_args.end());
      break;
    }
  }
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).run(), vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return std::nullopt;
  }
  po::notify(vm);
  r.list_devices = vm.count("list-devices") > 0;
  if (r.io != "udp" && r.io != "dpdk" && r.io != "ibverbs") {
    throw InputError("--io", "", "\"udp\", \"dpdk\" or \"ibverbs\", got \"" + r.io + "\"");
  }
  if (r.list_devices && r.io != "ibverbs") {
    throw InputError("--list-devices", "", "lists RDMA devices: use it with --io ibverbs");
  }
  if (r.io == "ibverbs") {
    return r;
  }
  for (const char* name : {"control", "side", "address", "scenario"}) {
    if (!vm.count(name)) {
      throw InputError(std::string("--") + name, "", "required with --io " + r.io);
    }
  }
  if (r.io == "udp" && !r.eal_args.empty()) {
    throw InputError("--", "", "EAL arguments are for --io dpdk");
  }
  return r;
}

// --io ibverbs: lists the devices (--list-devices); a run says the data path is not there yet.
int probe_ibverbs(const EndpointRequest& r) {
  const std::vector<endpoints::IbvDeviceInfo> devices = endpoints::list_ibverbs_devices();
  if (devices.empty()) {
    throw EnvironmentError(endpoints::no_rdma_devices_message());
  }
  if (r.list_devices) {
    print_devices(devices);
    return kExitOk;
  }
  std::string names;
  for (const endpoints::IbvDeviceInfo& d : devices) {
    names += (names.empty() ? "" : ", ") + d.name;
  }
  throw EnvironmentError("ibverbs endpoints: found " + std::to_string(devices.size()) + " RDMA device(s) (" +
                         names +
                         ") but the verbs data path (RC queue pairs, RDMA WRITE with immediate) is not "
                         "implemented yet; use --endpoints udp or dpdk (docs/guide/live.md)");
}

// A DPDK endpoint's port, opened before the coordinator is greeted (a failing EAL ends the
// process before it says hello, so the runner reports the exit and its stderr). Members are
// destroyed in reverse: port, pool, EAL, runtime folder.
struct DpdkPort {
  RuntimeFolder folder;
  std::string iface;
  std::map<std::string, endpoints::MacAddress> kernel_neighbours;
  std::optional<Eal> eal;
  std::optional<MbufPool> pool;
  std::optional<EthPort> port;
};

void open_dpdk_port(EndpointRequest& r, DpdkPort& d) {
  d.iface = interface_of(r.address);
  if (r.eal_args.empty()) {
    if (d.iface.empty()) {
      throw EnvironmentError("endpoint: no interface in this network namespace holds " + r.address +
                             " (give the EAL arguments after `--`)");
    }
    const std::string prefix = "gw-ep-" + std::to_string(r.side) + "-" + std::to_string(getpid());
    r.eal_args = default_eal_args(d.iface, r.side, prefix);
    d.folder.path = "/var/run/dpdk/" + prefix;
  }
  // Before the port starts: starting the af_packet port empties the kernel's neighbour
  // table for the interface (measured: /proc/net/arp had no entry right after).
  d.kernel_neighbours = endpoints::read_kernel_neighbours(d.iface);
  d.eal.emplace(r.eal_args);
  // 8191 mbufs: the rx and tx rings (1024 each), the pool's per-lcore cache and a burst in
  // flight, with room to spare; with --no-huge they take about 20 MiB (port.h).
  d.pool.emplace("gw_ep_mbufs", 8191, kDefaultMbufDataRoom);
  d.port.emplace(endpoints::first_dpdk_port(), d.pool->get());
}

int serve_dpdk(const EndpointRequest& r, const Scenario& scenario, DpdkPort& d, LineChannel& ch,
               const endpoints::RunTime& rt) {
  endpoints::DpdkEndpointConfig cfg;
  cfg.transport = scenario.transport.config;
  cfg.cc = scenario.transport.cc;
  cfg.cc_params = scenario.transport.cc_params;
  cfg.cc_context.line_rate_bps = scenario.topology.regions[r.side].nic_rate.bps;
  cfg.port_id = d.port->id();
  cfg.pool = d.pool->get();
  cfg.local_ipv4 = r.address;
  cfg.kernel_interface = d.iface;
  cfg.kernel_neighbours = d.kernel_neighbours;
  cfg.epoch_monotonic_ns = rt.epoch_ns();
  DpdkEndpoint ep(cfg);
  std::cerr << "gradwall endpoint (side " << r.side << "): DPDK " << d.port->name() << " on " << d.iface
            << ", MAC " << ep.mac_text() << ", " << r.address << ":4791\n";
  return serve(ep, ch, rt, r.side, scenario.interval);
}

int serve_udp(const EndpointRequest& r, const Scenario& scenario, LineChannel& ch,
              const endpoints::RunTime& rt) {
  endpoints::UdpEndpointConfig cfg;
  cfg.transport = scenario.transport.config;
  cfg.cc = scenario.transport.cc;
  cfg.cc_params = scenario.transport.cc_params;
  cfg.cc_context.line_rate_bps = scenario.topology.regions[r.side].nic_rate.bps;
  cfg.bind_address = r.address;
  cfg.epoch_monotonic_ns = rt.epoch_ns();
  cfg.paths = static_cast<std::uint32_t>(live_paths(scenario).size());  // a socket per path
  UdpEndpoint ep(cfg);
  return serve(ep, ch, rt, r.side, scenario.interval);
}

}  // namespace

int cmd_endpoint(const Args& all_args) {
  std::optional<EndpointRequest> r = parse_request(all_args);
  if (!r) {
    return kExitOk;  // --help
  }
  if (r->io == "ibverbs") {
    return probe_ibverbs(*r);
  }
  const Scenario scenario = load_scenario(r->scenario_file);
  if (r->side >= scenario.topology.regions.size()) {
    throw InputError("--side", "",
                     "the scenario has " + std::to_string(scenario.topology.regions.size()) +
                         " regions, no side " + std::to_string(r->side));
  }
  DpdkPort dpdk;
  if (r->io == "dpdk") {
    open_dpdk_port(*r, dpdk);
  }
  LineChannel ch = LineChannel::connect(r->control);
  const endpoints::RunTime rt = greet_coordinator(ch, r->side, getpid(), "endpoint");
  return r->io == "dpdk" ? serve_dpdk(*r, scenario, dpdk, ch, rt) : serve_udp(*r, scenario, ch, rt);
}

}  // namespace gw
