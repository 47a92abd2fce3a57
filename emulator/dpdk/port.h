// The buffers and ports the data plane owns: an mbuf pool, and an Ethernet port set up with one
// rx and one tx queue. Both release what they hold in their destructors (pool freed, port
// stopped and closed), so an exception on the way out still leaves DPDK clean for
// rte_eal_cleanup. Create them after the Eal, destroy ports before the pool.
#pragma once

#include <cstdint>
#include <string>

#include "core/rate.h"
#include "emulator/dpdk/stats.h"

struct rte_mempool;

namespace gw {

// A packet-mbuf pool. Without hugepages (`--no-huge`) it is made with
// RTE_MEMPOOL_F_NO_IOVA_CONTIG: a plain rte_pktmbuf_pool_create would spend a whole 4 KiB page
// per mbuf (docs/bench-machine.md). Throws EnvironmentError stating the MiB the pool needs when EAL
// memory (`-m`) is too small.
// Data room of one mbuf: RTE_MBUF_DEFAULT_BUF_SIZE (2 KiB of frame + 128 B headroom), enough
// for a 1500-byte MTU.
inline constexpr std::uint16_t kDefaultMbufDataRoom = 2048 + 128;
// Frame bytes beyond which the ports are given a jumbo MTU (1500 + 14 header + 4 FCS), and
// what an MTU does not count (header, FCS).
inline constexpr std::uint32_t kStandardFrameBytes = 1518;
inline constexpr std::uint32_t kEthernetOverheadBytes = 18;
// The data room for frames of up to `max_frame_bytes` in one mbuf (plus DPDK's 128-byte
// headroom, RTE_PKTMBUF_HEADROOM), at least kDefaultMbufDataRoom.
std::uint16_t mbuf_data_room(std::uint32_t max_frame_bytes);

// EAL memory one mbuf takes in a pool made as MbufPool makes it (header, data room, mempool
// object header and padding).
std::uint64_t mbuf_object_bytes(std::uint16_t data_room_bytes);

// mbufs the ports and the lcores' mempool caches may hold whatever the profile: rx and tx
// descriptors of two ports' `queues` queue pairs, and up to 1.5 x the cache size per lcore
// (rte_mempool).
std::uint64_t mbufs_outside_the_profile(unsigned lcores, std::uint16_t queues = 1);

// Whether the port's driver can receive a frame into chained mbufs (scattered rx).
bool can_scatter(std::uint16_t port_id);

// The port's link speed as its driver reports it (0 when unknown).
BitRate port_speed(std::uint16_t port_id);

class MbufPool {
 public:
  MbufPool(const std::string& name, std::uint32_t mbufs, std::uint16_t data_room_bytes);
  ~MbufPool();
  MbufPool(const MbufPool&) = delete;
  MbufPool& operator=(const MbufPool&) = delete;

  rte_mempool* get() const { return pool_; }
  std::uint32_t size() const;
  // mbufs in the pool (per-lcore caches included); == size() when every mbuf came back.
  std::uint32_t available() const;

 private:
  rte_mempool* pool_ = nullptr;
};

// One port with `queues` rx and tx queues, started and promiscuous. With several, rx spreads
// frames by RSS on IP addresses and TCP/UDP ports where the driver hashes (a flow stays on one
// queue), else as the driver does (af_packet with qpairs=N: the kernel's packet fanout, by flow hash,
// rolling over to another queue when one's ring is full); more
// queues than the driver has is an EnvironmentError. Throws EnvironmentError
// when the port cannot be configured or started. `max_frame_bytes` over 1518 asks for a jumbo
// MTU (ignored by PMDs that refuse it) and, when the frames do not fit one of the pool's mbufs
// and the PMD can, for scattered rx (chained mbufs); tx takes chains where the PMD can.
class EthPort {
 public:
  EthPort(std::uint16_t port_id, rte_mempool* pool, std::uint32_t max_frame_bytes = kStandardFrameBytes,
          std::uint16_t queues = 1);
  ~EthPort();
  EthPort(const EthPort&) = delete;
  EthPort& operator=(const EthPort&) = delete;

  std::uint16_t id() const { return id_; }
  std::uint16_t queues() const { return queues_; }
  std::string name() const;
  // The driver's counters (zero when it has none); read them before close().
  PortStats stats() const;
  // Stops and closes the port (idempotent): the PMD gives back the mbufs it holds.
  void close();

 private:
  std::uint16_t id_;
  std::uint16_t queues_;
  bool open_ = false;
};

// The ids of the first two available ports (port 0 faces side A, port 1 side B). Throws
// EnvironmentError when there are fewer than two.
struct PortIds {
  std::uint16_t a = 0;
  std::uint16_t b = 0;
};
PortIds first_two_ports();

}  // namespace gw
