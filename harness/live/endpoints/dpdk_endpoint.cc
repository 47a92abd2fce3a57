#include "harness/live/endpoints/dpdk_endpoint.h"

#include <arpa/inet.h>
#include <poll.h>
#include <rte_arp.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/errors.h"
#include "emulator/fabric/path_ports.h"
#include "generators/transport/rocev2.h"
#include "harness/live/endpoints/clock.h"
#include "harness/live/endpoints/wire.h"

namespace gw::endpoints {

namespace {

constexpr std::uint16_t kBurst = 32;
constexpr std::size_t kScratchBytes = 10 * 1024;
constexpr int kTxRetries = 8;
constexpr Duration kArpRetry{200'000'000};
constexpr std::size_t kHeaders = sizeof(rte_ether_hdr) + sizeof(rte_ipv4_hdr) + sizeof(rte_udp_hdr);

std::string ip_text(std::uint32_t be) {
  in_addr a{};
  a.s_addr = be;
  std::array<char, INET_ADDRSTRLEN> text{};
  inet_ntop(AF_INET, &a, text.data(), text.size());
  return text.data();
}

std::uint32_t parse_ip(const std::string& text) {
  in_addr a{};
  if (inet_pton(AF_INET, text.c_str(), &a) != 1) {
    throw std::invalid_argument("endpoint: not an IPv4 address: " + text);
  }
  return a.s_addr;
}

bool parse_mac(const std::string& text, MacAddress& mac) {
  unsigned v[6] = {};
  if (std::sscanf(text.c_str(), "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6) {
    return false;
  }
  for (int i = 0; i < 6; ++i) {
    mac[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v[i]);
  }
  return true;
}

// The kernel's rx_packets of `iface` (sysfs of the calling process's network namespace), -1
// when unknown.
std::int64_t kernel_rx_packets(const std::string& iface) {
  if (iface.empty()) {
    return -1;
  }
  std::ifstream in("/sys/class/net/" + iface + "/statistics/rx_packets");
  std::int64_t n = -1;
  in >> n;
  return in ? n : -1;
}

}  // namespace

std::map<std::string, MacAddress> read_kernel_neighbours(const std::string& iface) {
  std::map<std::string, MacAddress> out;
  std::ifstream in("/proc/net/arp");
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string addr, hw_type, flags, hw, mask, dev;
    fields >> addr >> hw_type >> flags >> hw >> mask >> dev;
    MacAddress mac{};
    if ((!iface.empty() && dev != iface) || flags.empty()) {
      continue;
    }
    if ((std::stoul(flags, nullptr, 16) & 0x2) != 0 && parse_mac(hw, mac) && mac != MacAddress{}) {
      out[addr] = mac;
    }
  }
  return out;
}

std::uint16_t first_dpdk_port() {
  const std::uint64_t id = rte_eth_find_next_owned_by(0, RTE_ETH_DEV_NO_OWNER);
  if (id >= RTE_MAX_ETHPORTS) {
    throw EnvironmentError(
        "endpoint: the EAL found no DPDK port: add --vdev=net_af_packet0,iface=IF (or bind a NIC) to the EAL "
        "arguments after `--`");
  }
  return static_cast<std::uint16_t>(id);
}

DpdkEndpoint::DpdkEndpoint(DpdkEndpointConfig cfg)
    : cfg_(std::move(cfg)),
      driver_(QpSettings{cfg_.transport, cfg_.cc, cfg_.cc_params, cfg_.cc_context}, *this,
              counters_.endpoint) {
  transport::validate(cfg_.transport);
  (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  if (cfg_.pool == nullptr) {
    throw std::invalid_argument("DpdkEndpoint: no mbuf pool");
  }
  try {
    ip_ = parse_ip(cfg_.local_ipv4);
  } catch (const std::invalid_argument& e) {
    throw EnvironmentError(e.what());
  }
  kernel_hold_fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_in local{};
  local.sin_family = AF_INET;
  local.sin_port = htons(transport::kRoceUdpPort);
  local.sin_addr.s_addr = ip_;
  const int smallest = 1;  // the kernel rounds it up to its minimum (a few KiB)
  if (kernel_hold_fd_ < 0 ||
      setsockopt(kernel_hold_fd_, SOL_SOCKET, SO_RCVBUF, &smallest, sizeof smallest) != 0 ||
      bind(kernel_hold_fd_, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0) {
    const std::string why = std::strerror(errno);
    if (kernel_hold_fd_ >= 0) {
      close(kernel_hold_fd_);
    }
    throw EnvironmentError("endpoint: cannot hold UDP " + cfg_.local_ipv4 +
                           ":4791 in the kernel (so that it does not answer the DPDK endpoint's frames "
                           "with ICMP port unreachable): " +
                           why);
  }
  rte_ether_addr addr{};
  if (rte_eth_macaddr_get(cfg_.port_id, &addr) != 0) {
    close(kernel_hold_fd_);
    throw EnvironmentError("endpoint: cannot read the MAC address of DPDK port " +
                           std::to_string(cfg_.port_id));
  }
  std::memcpy(mac_.data(), addr.addr_bytes, mac_.size());
  scratch_.resize(kScratchBytes);
  tx_.reserve(kBurst);
  kernel_rx_at_start_ = kernel_rx_packets(cfg_.kernel_interface);
}

DpdkEndpoint::~DpdkEndpoint() {
  close(kernel_hold_fd_);
  for (rte_mbuf* m : tx_) {
    rte_pktmbuf_free(m);
  }
}

namespace {
std::string mac_string(const MacAddress& m) {
  std::array<char, 18> text{};
  std::snprintf(text.data(), text.size(), "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4],
                m[5]);
  return text.data();
}
}  // namespace

std::string DpdkEndpoint::mac_text() const {
  return mac_string(mac_);
}

std::vector<DpdkEndpoint::Neighbour> DpdkEndpoint::neighbours() const {
  std::vector<Neighbour> out;
  for (const auto& [ip, n] : neighbours_) {
    out.push_back(Neighbour{ip_text(ip), mac_string(n.mac), n.source});
  }
  return out;
}

void DpdkEndpoint::post(std::uint32_t qp, const std::string& peer, std::uint64_t msg_id, std::uint64_t bytes,
                        Instant now, std::int32_t path) {
  QpDriver::require_sending_qp(qp);
  const std::uint32_t to = parse_ip(peer);
  if (const PeerAddress* open = driver_.peer(qp); open != nullptr) {
    if (open->ip != to) {
      throw std::invalid_argument("endpoint: QP " + std::to_string(qp) + " is open toward " +
                                  ip_text(open->ip) + ", not " + peer);
    }
  } else if (to != ip_ && !resolve(to)) {
    throw EnvironmentError("endpoint: cannot find the MAC address of " + peer +
                           ": not in the kernel's neighbour table and no answer to ARP within " +
                           std::to_string(cfg_.arp_timeout.count() / 1'000'000) + " ms");
  }
  driver_.post(qp, PeerAddress{to, htons(transport::kRoceUdpPort)}, msg_id, bytes, now, path);
}

bool DpdkEndpoint::resolve(std::uint32_t ip) {
  if (neighbours_.count(ip) != 0) {
    return true;
  }
  for (const auto& table : {cfg_.kernel_neighbours, read_kernel_neighbours(cfg_.kernel_interface)}) {
    if (const auto it = table.find(ip_text(ip)); it != table.end()) {
      neighbours_[ip] = Learned{it->second, "neighbour table"};
      return true;
    }
  }
  const std::int64_t give_up = monotonic_ns() + cfg_.arp_timeout.count();
  std::int64_t next_request = 0;
  while (monotonic_ns() < give_up) {
    if (monotonic_ns() >= next_request) {
      send_arp_request(ip);
      next_request = monotonic_ns() + kArpRetry.count();
    }
    // Whatever else arrives meanwhile is handled as usual (the reply is learned in on_frame).
    receive_all(at_ns(monotonic_ns() - cfg_.epoch_monotonic_ns));
    if (neighbours_.count(ip) != 0) {
      return true;
    }
    const timespec pause{0, 1'000'000};
    nanosleep(&pause, nullptr);
  }
  return false;
}

void DpdkEndpoint::send_arp_request(std::uint32_t ip) {
  rte_mbuf* m = rte_pktmbuf_alloc(cfg_.pool);
  if (m == nullptr) {
    ++counters_.tx_no_mbuf;
    return;
  }
  auto* eth = rte_pktmbuf_mtod(m, rte_ether_hdr*);
  std::memset(eth->dst_addr.addr_bytes, 0xFF, RTE_ETHER_ADDR_LEN);
  std::memcpy(eth->src_addr.addr_bytes, mac_.data(), RTE_ETHER_ADDR_LEN);
  eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
  auto* arp = reinterpret_cast<rte_arp_hdr*>(eth + 1);
  arp->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
  arp->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
  arp->arp_hlen = RTE_ETHER_ADDR_LEN;
  arp->arp_plen = 4;
  arp->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REQUEST);
  std::memcpy(arp->arp_data.arp_sha.addr_bytes, mac_.data(), RTE_ETHER_ADDR_LEN);
  arp->arp_data.arp_sip = ip_;
  std::memset(arp->arp_data.arp_tha.addr_bytes, 0, RTE_ETHER_ADDR_LEN);
  arp->arp_data.arp_tip = ip;
  m->data_len = static_cast<std::uint16_t>(sizeof(rte_ether_hdr) + sizeof(rte_arp_hdr));
  m->pkt_len = m->data_len;
  if (rte_eth_tx_burst(cfg_.port_id, 0, &m, 1) == 1) {
    ++counters_.arp_requests_sent;
    ++counters_.port_tx_frames;
  } else {
    rte_pktmbuf_free(m);
    ++counters_.tx_failed;
  }
}

void DpdkEndpoint::poll(Instant now) {
  receive_all(now);
  // As UdpEndpoint::poll: receiving halves (their ACKs) first, then what they brought back
  // within this process, then everything due.
  if (driver_.send_due(now, true)) {
    receive_all(now);
  }
  driver_.send_due(now, false);
}

void DpdkEndpoint::receive_all(Instant now) {
  // Frames to ourselves first (they were "sent" before anything now on the port was read).
  // Only those queued before this call: what they trigger (an ACK, more data) waits for the
  // next poll, so one call cannot ping-pong between two local QPs for ever.
  for (std::size_t queued = local_.size(); queued > 0 && !local_.empty(); --queued) {
    auto [payload, tos, path] = std::move(local_.front());
    local_.pop_front();
    ++counters_.local_datagrams_received;
    const Instant arrival = std::max(now, at_ns(monotonic_ns() - cfg_.epoch_monotonic_ns));
    on_datagram(payload, ip_, tos, arrival, path);
  }
  std::array<rte_mbuf*, kBurst> bufs{};
  for (int round = 0; round < 64; ++round) {  // bounded: a flood must not starve the sending side
    const std::uint16_t n = rte_eth_rx_burst(cfg_.port_id, 0, bufs.data(), kBurst);
    if (n == 0) {
      return;
    }
    counters_.port_rx_frames += n;
    const Instant arrival = std::max(now, at_ns(monotonic_ns() - cfg_.epoch_monotonic_ns));
    for (std::uint16_t i = 0; i < n; ++i) {
      rte_mbuf* m = bufs[i];
      if (m->nb_segs == 1) {
        on_frame(rte_pktmbuf_mtod(m, const std::uint8_t*), m->data_len, arrival);
      } else if (m->pkt_len <= scratch_.size()) {  // chained (jumbo): linearise
        const void* p = rte_pktmbuf_read(m, 0, m->pkt_len, scratch_.data());
        on_frame(static_cast<const std::uint8_t*>(p), m->pkt_len, arrival);
      } else {
        ++counters_.frames_dropped_by_endpoint;
      }
      rte_pktmbuf_free(m);
    }
    if (n < kBurst) {
      return;
    }
  }
}

void DpdkEndpoint::on_frame(const std::uint8_t* frame, std::size_t size, Instant now) {
  if (size < sizeof(rte_ether_hdr)) {
    ++counters_.frames_dropped_by_endpoint;
    return;
  }
  rte_ether_hdr eth{};
  std::memcpy(&eth, frame, sizeof eth);
  const std::uint16_t type = rte_be_to_cpu_16(eth.ether_type);
  if (type == RTE_ETHER_TYPE_ARP) {
    ++counters_.arp_frames;
    if (size >= sizeof(rte_ether_hdr) + sizeof(rte_arp_hdr)) {
      rte_arp_hdr arp{};
      std::memcpy(&arp, frame + sizeof eth, sizeof arp);
      if (arp.arp_data.arp_sip != 0 && arp.arp_data.arp_sip != ip_) {
        Learned& n = neighbours_[arp.arp_data.arp_sip];
        std::memcpy(n.mac.data(), arp.arp_data.arp_sha.addr_bytes, n.mac.size());
        n.source = "arp";
      }
    }
    return;
  }
  if (type != RTE_ETHER_TYPE_IPV4 || size < kHeaders) {
    ++counters_.frames_not_for_us;
    return;
  }
  rte_ipv4_hdr ip{};
  std::memcpy(&ip, frame + sizeof eth, sizeof ip);
  const std::size_t ihl = static_cast<std::size_t>(ip.version_ihl & 0x0F) * 4;
  if (ip.dst_addr != ip_ || ip.next_proto_id != IPPROTO_UDP) {
    ++counters_.frames_not_for_us;
    return;
  }
  const std::size_t ip_len = rte_be_to_cpu_16(ip.total_length);
  const bool fragment =
      (rte_be_to_cpu_16(ip.fragment_offset) & (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) != 0;
  if ((ip.version_ihl >> 4) != 4 || ihl < sizeof ip || fragment || ip_len < ihl + sizeof(rte_udp_hdr) ||
      sizeof eth + ip_len > size) {
    ++counters_.frames_dropped_by_endpoint;
    return;
  }
  rte_udp_hdr udp{};
  std::memcpy(&udp, frame + sizeof eth + ihl, sizeof udp);
  if (rte_be_to_cpu_16(udp.dst_port) != transport::kRoceUdpPort) {
    ++counters_.frames_not_for_us;
    return;
  }
  const std::size_t udp_len = rte_be_to_cpu_16(udp.dgram_len);
  if (udp_len < sizeof udp || udp_len > ip_len - ihl) {
    ++counters_.frames_dropped_by_endpoint;
    return;
  }
  // The sender's MAC answers for its address from now on (replies need no ARP).
  if (neighbours_.count(ip.src_addr) == 0) {
    Learned& n = neighbours_[ip.src_addr];
    std::memcpy(n.mac.data(), eth.src_addr.addr_bytes, n.mac.size());
    n.source = "frame";
  }
  const std::uint16_t src_port = rte_be_to_cpu_16(udp.src_port);
  on_datagram({frame + sizeof eth + ihl + sizeof udp, udp_len - sizeof udp}, ip.src_addr, ip.type_of_service,
              now,
              src_port >= fabric::kPathPortBase ? static_cast<std::int32_t>(fabric::path_of_port(src_port))
                                                : kNoPath);
}

void DpdkEndpoint::on_datagram(std::span<const std::uint8_t> data, std::uint32_t from_ip, std::uint8_t tos,
                               Instant now, std::int32_t path) {
  (void)driver_.on_datagram(data, tos, PeerAddress{from_ip, htons(transport::kRoceUdpPort)}, from_ip != ip_,
                            now, path);
}

void DpdkEndpoint::transmit(const transport::Segment& s, const PeerAddress& to, std::int32_t path) {
  const std::uint32_t to_ip = to.ip;
  const std::size_t size = encode_segment(s, scratch_);
  if (size == 0) {
    throw std::logic_error("endpoint: a segment does not fit a frame buffer");
  }
  const auto tos = static_cast<std::uint8_t>(s.ecn);
  EndpointCounters& c = counters_.endpoint;
  if (to_ip == ip_) {
    local_.emplace_back(
        std::vector<std::uint8_t>(scratch_.begin(), scratch_.begin() + static_cast<long>(size)), tos, path);
    ++counters_.local_datagrams_sent;
    ++c.datagrams_sent;
    c.bytes_sent += size;
    return;
  }
  rte_mbuf* m = rte_pktmbuf_alloc(cfg_.pool);
  if (m == nullptr) {
    ++counters_.tx_no_mbuf;
    ++c.send_dropped;  // lost at the host, as a full NIC queue would lose it
    ++c.datagrams_sent;
    return;
  }
  auto* p =
      reinterpret_cast<std::uint8_t*>(rte_pktmbuf_append(m, static_cast<std::uint16_t>(kHeaders + size)));
  if (p == nullptr) {
    rte_pktmbuf_free(m);
    throw std::logic_error("endpoint: a frame of " + std::to_string(kHeaders + size) +
                           " bytes does not fit an mbuf of the pool");
  }
  auto* eth = reinterpret_cast<rte_ether_hdr*>(p);
  std::memcpy(eth->dst_addr.addr_bytes, neighbours_.at(to_ip).mac.data(), RTE_ETHER_ADDR_LEN);
  std::memcpy(eth->src_addr.addr_bytes, mac_.data(), RTE_ETHER_ADDR_LEN);
  eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
  auto* ip = reinterpret_cast<rte_ipv4_hdr*>(eth + 1);
  ip->version_ihl = RTE_IPV4_VHL_DEF;
  ip->type_of_service = tos;  // DSCP 0, the segment's ECN codepoint
  ip->total_length =
      rte_cpu_to_be_16(static_cast<std::uint16_t>(sizeof(rte_ipv4_hdr) + sizeof(rte_udp_hdr) + size));
  ip->packet_id = rte_cpu_to_be_16(ip_id_++);
  ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
  ip->time_to_live = 64;
  ip->next_proto_id = IPPROTO_UDP;
  ip->hdr_checksum = 0;
  ip->src_addr = ip_;
  ip->dst_addr = to_ip;
  auto* udp = reinterpret_cast<rte_udp_hdr*>(ip + 1);
  // The path's port (RoCE v2 puts a QP's entropy in the source port), else RoCE's own.
  udp->src_port =
      rte_cpu_to_be_16(path == kNoPath ? transport::kRoceUdpPort
                                       : fabric::path_port(static_cast<std::uint32_t>(path), s.src_qp));
  udp->dst_port = rte_cpu_to_be_16(transport::kRoceUdpPort);
  udp->dgram_len = rte_cpu_to_be_16(static_cast<std::uint16_t>(sizeof(rte_udp_hdr) + size));
  udp->dgram_cksum = 0;
  std::memcpy(udp + 1, scratch_.data(), size);
  ip->hdr_checksum = rte_ipv4_cksum(ip);
  udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
  tx_.push_back(m);
  c.bytes_sent += size;
  if (tx_.size() == kBurst) {
    flush();
  }
}

void DpdkEndpoint::flush() {
  std::size_t done = 0;
  int retries = 0;
  while (done < tx_.size()) {
    const std::uint16_t n =
        rte_eth_tx_burst(cfg_.port_id, 0, tx_.data() + done, static_cast<std::uint16_t>(tx_.size() - done));
    done += n;
    counters_.port_tx_frames += n;
    counters_.endpoint.datagrams_sent += n;
    if (n == 0 && ++retries >= kTxRetries) {
      break;
    }
  }
  // What the port would not take is lost at the host (as a full NIC queue loses it); the
  // transport recovers it.
  for (std::size_t i = done; i < tx_.size(); ++i) {
    rte_pktmbuf_free(tx_[i]);
    ++counters_.tx_failed;
    ++counters_.endpoint.send_dropped;
    ++counters_.endpoint.datagrams_sent;
  }
  tx_.clear();
}

Instant DpdkEndpoint::next_wakeup() const {
  if (!local_.empty()) {
    return kEpoch;  // frames to ourselves wait to be received
  }
  return driver_.next_wakeup();
}

void DpdkEndpoint::wait(Instant until, Instant now, std::int64_t clock_offset_ns, int other_fd) {
  (void)clock_offset_ns;
  if (until <= now) {
    return;
  }
  const Duration left =
      until == kNever ? cfg_.rx_poll_interval : std::min(until - now, cfg_.rx_poll_interval);
  const timespec ts{static_cast<time_t>(left.count() / 1'000'000'000),
                    static_cast<long>(left.count() % 1'000'000'000)};
  pollfd p{other_fd, POLLIN, 0};
  (void)ppoll(&p, other_fd >= 0 ? 1 : 0, &ts, nullptr);
}

void DpdkEndpoint::drain(Instant now) {
  receive_all(now);
}

DpdkCounters DpdkEndpoint::counters() const {
  DpdkCounters c = counters_;
  const std::int64_t kernel_rx = kernel_rx_packets(cfg_.kernel_interface);
  if (kernel_rx_at_start_ >= 0 && kernel_rx >= 0) {
    const std::int64_t missing =
        kernel_rx - kernel_rx_at_start_ - static_cast<std::int64_t>(counters_.port_rx_frames);
    c.rx_ring_overflow = missing > 0 ? static_cast<std::uint64_t>(missing) : 0;
  }
  rte_eth_stats st{};
  if (rte_eth_stats_get(cfg_.port_id, &st) == 0) {
    c.endpoint.socket_overflow = st.imissed + st.rx_nombuf;
  }
  c.endpoint.socket_overflow += c.rx_ring_overflow;
  return c;
}

}  // namespace gw::endpoints
