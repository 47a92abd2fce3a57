#include "emulator/dpdk/port.h"

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_mempool.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/errors.h"
#include "emulator/dpdk/sizing.h"

namespace gw {
namespace {

constexpr std::uint16_t kRxDescriptors = 1024;
constexpr std::uint16_t kTxDescriptors = 1024;
constexpr unsigned kPoolCache = 256;
// The fields RSS hashes on, where the driver can (EthPort).
constexpr std::uint64_t kRssFields = RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP;

std::string port_label(std::uint16_t id) {
  char name[RTE_ETH_NAME_MAX_LEN] = {};
  if (rte_eth_dev_get_name_by_port(id, name) != 0) {
    return "port " + std::to_string(id);
  }
  return "port " + std::to_string(id) + " (" + name + ")";
}

void check(int rc, std::uint16_t id, const char* what) {
  if (rc < 0) {
    throw EnvironmentError("DPDK " + port_label(id) + ": " + what + " failed: " + rte_strerror(-rc));
  }
}

unsigned pool_flags() {
  return rte_eal_has_hugepages() != 0 ? 0U : RTE_MEMPOOL_F_NO_IOVA_CONTIG;
}

}  // namespace

std::uint16_t mbuf_data_room(std::uint32_t max_frame_bytes) {
  const std::uint32_t room =
      std::max<std::uint32_t>(max_frame_bytes + RTE_PKTMBUF_HEADROOM, kDefaultMbufDataRoom);
  return static_cast<std::uint16_t>(std::min<std::uint32_t>(room, UINT16_MAX));
}

std::uint64_t mbuf_object_bytes(std::uint16_t data_room_bytes) {
  rte_mempool_objsz sz{};
  return rte_mempool_calc_obj_size(static_cast<std::uint32_t>(sizeof(rte_mbuf) + data_room_bytes),
                                   pool_flags(), &sz);
}

std::uint64_t mbufs_outside_the_profile(unsigned lcores, std::uint16_t queues) {
  return 2ULL * queues * (kRxDescriptors + kTxDescriptors) + lcores * (kPoolCache * 3 / 2 + 2 * 32);
}

bool can_scatter(std::uint16_t port_id) {
  rte_eth_dev_info info{};
  return rte_eth_dev_info_get(port_id, &info) == 0 &&
         (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER) != 0;
}

BitRate port_speed(std::uint16_t port_id) {
  rte_eth_link link{};
  if (rte_eth_link_get_nowait(port_id, &link) != 0 || link.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN) {
    return BitRate{0};
  }
  return BitRate{static_cast<std::uint64_t>(link.link_speed) * 1'000'000ULL};
}

MbufPool::MbufPool(const std::string& name, std::uint32_t mbufs, std::uint16_t data_room_bytes) {
  const unsigned flags = pool_flags();
  const std::uint32_t elt = sizeof(rte_mbuf) + data_room_bytes;
  // Objects plus the mempool header and per-lcore caches, rounded up; a lower bound on what
  // EAL memory must hold besides the PMDs' own rings.
  const std::uint64_t need_mib = pool_mib(mbufs, mbuf_object_bytes(data_room_bytes));
  const std::string sizing = std::to_string(mbufs) + " mbufs of " + std::to_string(data_room_bytes) +
                             " data bytes need about " + std::to_string(need_mib) + " MiB";

  rte_pktmbuf_pool_private priv{};
  priv.mbuf_data_room_size = data_room_bytes;
  priv.mbuf_priv_size = 0;
  pool_ = rte_mempool_create_empty(name.c_str(), mbufs, elt, kPoolCache, sizeof priv,
                                   static_cast<int>(rte_socket_id()), flags);
  if (pool_ == nullptr) {
    throw EnvironmentError("cannot create the mbuf pool (" + std::string(rte_strerror(rte_errno)) +
                           "): " + sizing + "; give EAL more memory (-m " + std::to_string(need_mib + 64) +
                           " or more) or fewer --mbufs");
  }
  int rc = rte_mempool_set_ops_byname(pool_, rte_mbuf_best_mempool_ops(), nullptr);
  if (rc == 0) {
    rte_pktmbuf_pool_init(pool_, &priv);
    rc = rte_mempool_populate_default(pool_);
  }
  if (rc < 0) {
    rte_mempool_free(pool_);
    pool_ = nullptr;
    throw EnvironmentError("cannot populate the mbuf pool (" + std::string(rte_strerror(-rc)) +
                           "): " + sizing + "; give EAL more memory (-m " + std::to_string(need_mib + 64) +
                           " or more) or fewer --mbufs");
  }
  rte_mempool_obj_iter(pool_, rte_pktmbuf_init, nullptr);
}

MbufPool::~MbufPool() {
  rte_mempool_free(pool_);
}

std::uint32_t MbufPool::size() const {
  return pool_->size;
}

std::uint32_t MbufPool::available() const {
  return rte_mempool_avail_count(pool_);
}

EthPort::EthPort(std::uint16_t port_id, rte_mempool* pool, std::uint32_t max_frame_bytes,
                 std::uint16_t queues)
    : id_(port_id), queues_(std::max<std::uint16_t>(queues, 1)) {
  rte_eth_dev_info info{};
  check(rte_eth_dev_info_get(id_, &info), id_, "reading device info");
  if (queues_ > info.max_rx_queues || queues_ > info.max_tx_queues) {
    throw EnvironmentError(port_label(id_) + " has at most " + std::to_string(info.max_rx_queues) +
                           " rx and " + std::to_string(info.max_tx_queues) + " tx queues, " +
                           std::to_string(queues_) + " asked (--queues; af_packet: the vdev's qpairs=N)");
  }
  rte_eth_conf conf{};
  if (queues_ > 1 && (info.flow_type_rss_offloads & kRssFields) != 0) {
    // RSS on addresses and TCP/UDP ports: a flow (a QP's UDP 5-tuple) stays on one queue.
    // Drivers without RSS (af_packet: the kernel's fanout hash on the flow) spread by their own.
    conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
    conf.rx_adv_conf.rss_conf.rss_hf = info.flow_type_rss_offloads & kRssFields;
  }
  const std::uint32_t frame_room = rte_pktmbuf_data_room_size(pool) - RTE_PKTMBUF_HEADROOM;
  if (max_frame_bytes > frame_room && (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER) != 0) {
    conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;  // frames over one mbuf arrive chained
  }
  if ((info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) != 0) {
    conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
  }
  check(rte_eth_dev_configure(id_, queues_, queues_, &conf), id_, "configure");
  if (max_frame_bytes > kStandardFrameBytes) {
    // Jumbo frames: some PMDs refuse an MTU over their own limit (af_packet: -EINVAL, yet
    // it receives whatever fits its frame size, docs/bench-machine.md), so a failure is not an error.
    (void)rte_eth_dev_set_mtu(id_, static_cast<std::uint16_t>(std::min<std::uint32_t>(
                                       max_frame_bytes - kEthernetOverheadBytes, info.max_mtu)));
  }
  std::uint16_t rxd = kRxDescriptors;
  std::uint16_t txd = kTxDescriptors;
  check(rte_eth_dev_adjust_nb_rx_tx_desc(id_, &rxd, &txd), id_, "adjusting descriptor counts");
  const int socket = rte_eth_dev_socket_id(id_);
  const unsigned s = socket < 0 ? rte_socket_id() : static_cast<unsigned>(socket);
  rte_eth_txconf txconf = info.default_txconf;
  txconf.offloads = conf.txmode.offloads;
  for (std::uint16_t q = 0; q < queues_; ++q) {
    check(rte_eth_rx_queue_setup(id_, q, rxd, s, nullptr, pool), id_, "rx queue setup");
    check(rte_eth_tx_queue_setup(id_, q, txd, s, &txconf), id_, "tx queue setup");
  }
  check(rte_eth_dev_start(id_), id_, "start");
  open_ = true;
  // Some PMDs (net_null, net_ring) have no promiscuous mode: not an error.
  (void)rte_eth_promiscuous_enable(id_);
}

EthPort::~EthPort() {
  close();
}

std::string EthPort::name() const {
  return port_label(id_);
}

PortStats EthPort::stats() const {
  PortStats p;
  p.name = name();
  rte_eth_stats st{};
  if (rte_eth_stats_get(id_, &st) == 0) {
    p.ipackets = st.ipackets;
    p.opackets = st.opackets;
    p.imissed = st.imissed;
    p.ierrors = st.ierrors;
    p.oerrors = st.oerrors;
    p.rx_nombuf = st.rx_nombuf;
  }
  return p;
}

void EthPort::close() {
  if (open_) {
    open_ = false;
    (void)rte_eth_dev_stop(id_);
    (void)rte_eth_dev_close(id_);
  }
}

PortIds first_two_ports() {
  std::vector<std::uint16_t> ids;
  // RTE_ETH_FOREACH_DEV spelled out (its macro casts C-style).
  for (std::uint64_t id = rte_eth_find_next_owned_by(0, RTE_ETH_DEV_NO_OWNER); id < RTE_MAX_ETHPORTS;
       id = rte_eth_find_next_owned_by(static_cast<std::uint16_t>(id + 1), RTE_ETH_DEV_NO_OWNER)) {
    ids.push_back(static_cast<std::uint16_t>(id));
  }
  if (ids.size() < 2) {
    throw EnvironmentError("gradwall emu needs two DPDK ports (A side, B side); EAL found " +
                           std::to_string(ids.size()) +
                           ": add --vdev=net_af_packet0,iface=IF_A --vdev=net_af_packet1,iface=IF_B (or "
                           "bind two NICs) to the EAL arguments after `--`");
  }
  return {ids[0], ids[1]};
}

}  // namespace gw
