// A live endpoint on a DPDK port: the same QueuePairs, congestion controllers and RoCEv2 frames
// as UdpEndpoint (udp_endpoint.h, wire.h), driven by the same QpDriver (qp_driver.h), but the
// endpoint builds and parses whole Ethernet frames itself (Ethernet II + IPv4 + UDP to port
// 4791 + the RoCEv2 frame of wire.h) and moves them with rte_eth_rx_burst / rte_eth_tx_burst on
// one queue of one port. For higher rates than the kernel's socket path, and the model of an
// endpoint on a DPDK-capable NIC.
//
// Addresses: the endpoint answers for one IPv4 address (`local_ipv4`) with the port's MAC. The
// host's kernel keeps that address on the same interface (af_packet vdev on the namespace's
// veth) and answers ARP for it; the endpoint never answers ARP. A peer's MAC comes from
//  1. the source MAC of a frame that peer sent us (so the receiving half never asks),
//  2. the kernel's neighbour table (/proc/net/arp of the namespace: `gradwall run` pings across
//     the bench before it starts the endpoints, so both sides' entries exist). Starting the
//     af_packet port empties the table for its interface, so the caller reads it first
//     (read_kernel_neighbours, `kernel_neighbours`) and the endpoint reads it again later; else
//  3. an ARP request sent from the port, retried every 200 ms for up to 3 s (the kernel on the
//     far side answers it); the reply is read off the port.
// Frames to the endpoint's own address (ranks of one side talking to each other) never touch
// the port: they are encoded and decoded as any other frame and handed over in memory, as the
// kernel's loopback path does for UdpEndpoint.
//
// The kernel's own UDP stack sees every frame too (af_packet taps a copy; the kernel still
// delivers the original to its IP stack): with nothing bound to the address's UDP 4791 it would
// answer each data frame with an ICMP port unreachable (and count UdpNoPorts). So the endpoint
// holds a kernel UDP socket bound to local_ipv4:4791 with the smallest receive buffer and never
// reads it: the kernel queues a few datagrams there and drops the rest silently (UdpRcvbufErrors),
// sends no ICMP, and another process (a UdpEndpoint) cannot take the port meanwhile. A tc drop
// rule would spare the kernel that work but needs classifiers this kernel may not have built in.
//
// Checksums: IPv4 header and UDP checksums are computed in software (tshark and the peer's
// kernel verify them); the ICRC is wire.h's placeholder. ECN: the segment's ECN goes in the
// IPv4 header's ECN bits and is read back from arriving frames, so the emulator's CE marks
// reach the transport.
//
// Waiting: a DPDK port has no file descriptor to sleep on, and busy polling holds a CPU (on the
// 2-vCPU bench that starves the emulator). wait() sleeps in ppoll() on the control fd for at
// most `rx_poll_interval` (100 us by default) at a time, then the caller polls the port.
//
// Not thread-safe; one lcore (the EAL main thread) drives it. The EAL, the mbuf pool and the
// started port belong to the caller (harness: emulator/dpdk's Eal, MbufPool, EthPort), which
// must outlive the endpoint.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/time.h"
#include "generators/cc/congestion_control.h"
#include "generators/transport/transport_config.h"
#include "harness/live/endpoints/qp_driver.h"

struct rte_mempool;
struct rte_mbuf;

namespace gw::endpoints {

using MacAddress = std::array<std::uint8_t, 6>;

struct DpdkEndpointConfig {
  transport::TransportConfig transport;
  std::string cc = "cubic";
  cc::CcParams cc_params;
  cc::CcContext cc_context;
  std::uint16_t port_id = 0;     // a started port (rx queue 0, tx queue 0)
  rte_mempool* pool = nullptr;   // where transmitted frames' mbufs come from
  std::string local_ipv4;        // the address this endpoint answers for (dotted quad)
  std::string kernel_interface;  // the interface the port is bound to: for /proc/net/arp ("" = any)
  std::map<std::string, MacAddress> kernel_neighbours;  // IPv4 text -> MAC, read before the port started
  std::int64_t epoch_monotonic_ns = 0;
  Duration rx_poll_interval{100'000};  // longest sleep between two looks at the port
  Duration arp_timeout{3'000'000'000};
};

// What the port and the endpoint saw, every frame accounted for:
//   port_rx_frames = datagrams_received - local_datagrams_received + arp_frames
//                    + frames_not_for_us + frames_dropped_by_endpoint
//   port_tx_frames = datagrams_sent - local_datagrams_sent - send_dropped + arp_requests_sent
// (send_dropped = tx_no_mbuf + tx_failed). What the port lost before rx_burst returned it is
// the driver's imissed + rx_nombuf (af_packet: its rx ring's overflow is not counted, compare
// the kernel's rx_packets of the interface).
struct DpdkCounters {
  EndpointCounters endpoint;               // datagrams_* include local_datagrams; socket_overflow: see below
  std::uint64_t local_datagrams_sent = 0;  // to our own address: handed over in memory
  std::uint64_t local_datagrams_received = 0;
  std::uint64_t port_rx_frames = 0;  // frames rte_eth_rx_burst returned
  std::uint64_t port_tx_frames = 0;  // frames rte_eth_tx_burst took
  std::uint64_t arp_frames = 0;      // ARP frames received (used to learn MACs)
  std::uint64_t arp_requests_sent = 0;
  std::uint64_t frames_not_for_us = 0;           // other addresses, protocols, ports (the kernel's own)
  std::uint64_t frames_dropped_by_endpoint = 0;  // malformed IPv4/UDP (bad lengths, fragments)
  std::uint64_t tx_no_mbuf = 0;                  // the pool was empty: the frame was not sent
  std::uint64_t tx_failed = 0;                   // rte_eth_tx_burst refused it after retries
  // Frames the kernel's interface received that the port never returned: an af_packet rx ring
  // that overflowed while the endpoint waited for a CPU (the PMD does not count it, docs/bench-machine.md).
  // The interface's rx_packets since the endpoint started - port_rx_frames, when >= 0; frames
  // still in the ring count too until drain() has read them.
  std::uint64_t rx_ring_overflow = 0;
};

// The complete entries (ATF_COM) of the kernel's IPv4 neighbour table (/proc/net/arp of the
// calling thread's network namespace) on `iface` ("" = every interface): IPv4 text -> MAC.
std::map<std::string, MacAddress> read_kernel_neighbours(const std::string& iface);

// The id of the first DPDK port the EAL found; throws EnvironmentError when there is none.
std::uint16_t first_dpdk_port();

class DpdkEndpoint : private SegmentWire {
 public:
  // Reads the port's MAC. Throws EnvironmentError for an unusable address or port.
  explicit DpdkEndpoint(DpdkEndpointConfig cfg);
  ~DpdkEndpoint() override;
  DpdkEndpoint(const DpdkEndpoint&) = delete;
  DpdkEndpoint& operator=(const DpdkEndpoint&) = delete;

  std::uint16_t port() const { return 4791; }
  std::string mac_text() const;

  // As UdpEndpoint::post. A peer not yet resolved is resolved here (neighbour table, else ARP,
  // see above); throws EnvironmentError when it cannot be within arp_timeout.
  void post(std::uint32_t qp, const std::string& peer, std::uint64_t msg_id, std::uint64_t bytes, Instant now,
            std::int32_t path = kNoPath);
  // As UdpEndpoint::move: the path is the frames' UDP source port (path_port(path, qp)).
  bool move(std::uint32_t qp, std::int32_t path, Duration lag, Instant now) {
    return driver_.move(qp, path, lag, now);
  }
  // As UdpEndpoint::set_controller.
  void set_controller(std::uint32_t qp, std::string cc, cc::CcParams params) {
    driver_.set_controller(qp, std::move(cc), std::move(params));
  }
  void poll(Instant now);
  Instant next_wakeup() const;
  // Sleeps until `until`, `other_fd` readable or rx_poll_interval, whichever is first.
  void wait(Instant until, Instant now, std::int64_t clock_offset_ns, int other_fd);
  std::vector<Delivery> take_deliveries() { return driver_.take_deliveries(); }

  // Reads what is left on the port (before the final counters).
  void drain(Instant now);
  // The endpoint's counters, with what the port dropped before the endpoint saw it folded
  // into socket_overflow: the driver's imissed + rx_nombuf, plus rx_ring_overflow.
  DpdkCounters counters() const;
  const std::map<std::int64_t, std::uint64_t>& one_way_delay_us() const { return driver_.one_way_delay_us(); }
  const std::map<std::int64_t, std::uint64_t>& one_way_delay_remote_us() const {
    return driver_.one_way_delay_remote_us();
  }

  // The peers' MAC addresses and where each came from ("neighbour table", "arp", "frame").
  struct Neighbour {
    std::string ip;
    std::string mac;
    std::string source;
  };
  std::vector<Neighbour> neighbours() const;

  using QpView = endpoints::QpView;
  std::vector<QpView> queue_pairs() const { return driver_.queue_pairs(); }

 private:
  void receive_all(Instant now);
  void on_frame(const std::uint8_t* frame, std::size_t size, Instant now);
  void on_datagram(std::span<const std::uint8_t> data, std::uint32_t from_ip, std::uint8_t tos, Instant now,
                   std::int32_t path);
  // SegmentWire: builds the frame into an mbuf for the next tx burst (flush() when the burst is
  // full), or queues it in local_ when it is to our own address.
  void transmit(const transport::Segment& s, const PeerAddress& to, std::int32_t path) override;
  void flush() override;
  bool resolve(std::uint32_t ip);
  void send_arp_request(std::uint32_t ip);

  DpdkEndpointConfig cfg_;
  int kernel_hold_fd_ = -1;  // the unread UDP socket on local_ipv4:4791 (see above)
  MacAddress mac_{};
  std::int64_t kernel_rx_at_start_ = -1;  // the interface's rx_packets when the endpoint started
  std::uint32_t ip_ = 0;                  // network byte order
  std::uint16_t ip_id_ = 0;
  struct Learned {
    MacAddress mac{};
    const char* source = "";
  };
  std::map<std::uint32_t, Learned> neighbours_;  // IPv4 (network order) -> MAC
  DpdkCounters counters_;
  std::vector<std::uint8_t> scratch_;  // one encoded UDP payload
  std::vector<rte_mbuf*> tx_;          // frames waiting for flush()
  std::deque<std::tuple<std::vector<std::uint8_t>, std::uint8_t, std::int32_t>>
      local_;  // (payload, tos, path) to ourselves
  QpDriver driver_;
};

}  // namespace gw::endpoints
