// Two DPDK ports joined back to back by a pair of rte_rings (the ring PMD's
// rte_eth_from_rings): what port a transmits, port b receives, and the reverse. Lets two
// DpdkEndpoints talk in one process without a NIC, a veth or root networking (the unit tests),
// and lets a test reach into the frames in transit (mark CE, corrupt a byte) as an emulator
// would. Create it after the EAL; stop and close the ports (emulator/dpdk EthPort) before it
// is destroyed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

struct rte_ring;

namespace gw::endpoints {

class RingPortPair {
 public:
  // Throws EnvironmentError when the rings or ports cannot be made.
  explicit RingPortPair(const std::string& name, unsigned ring_size = 1024);
  ~RingPortPair();
  RingPortPair(const RingPortPair&) = delete;
  RingPortPair& operator=(const RingPortPair&) = delete;

  std::uint16_t a() const { return a_; }
  std::uint16_t b() const { return b_; }

  // Takes every frame in transit from a to b (or b to a) out of its ring, hands each to `fn`
  // (first segment's data, its length), and puts them back in the same order. Returns how
  // many there were.
  std::size_t edit_in_transit(bool a_to_b, const std::function<void(std::uint8_t*, std::size_t)>& fn);

 private:
  rte_ring* ab_ = nullptr;
  rte_ring* ba_ = nullptr;
  std::uint16_t a_ = 0;
  std::uint16_t b_ = 0;
};

}  // namespace gw::endpoints
