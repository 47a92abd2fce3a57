#include "harness/live/endpoints/dpdk_ring_ports.h"

#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <vector>

#include "core/errors.h"

namespace gw::endpoints {

RingPortPair::RingPortPair(const std::string& name, unsigned ring_size) {
  const int socket = static_cast<int>(rte_socket_id());
  ab_ = rte_ring_create((name + "_ab").c_str(), ring_size, socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
  ba_ = rte_ring_create((name + "_ba").c_str(), ring_size, socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
  if (ab_ == nullptr || ba_ == nullptr) {
    rte_ring_free(ab_);
    rte_ring_free(ba_);
    throw EnvironmentError("cannot create the rings of " + name + ": " + rte_strerror(rte_errno));
  }
  // Port a receives from ba and sends into ab; port b the reverse.
  const int a = rte_eth_from_rings((name + "_a").c_str(), &ba_, 1, &ab_, 1, static_cast<unsigned>(socket));
  const int b = rte_eth_from_rings((name + "_b").c_str(), &ab_, 1, &ba_, 1, static_cast<unsigned>(socket));
  if (a < 0 || b < 0) {
    rte_ring_free(ab_);
    rte_ring_free(ba_);
    throw EnvironmentError("cannot create the ring ports of " + name + ": " + rte_strerror(rte_errno));
  }
  a_ = static_cast<std::uint16_t>(a);
  b_ = static_cast<std::uint16_t>(b);
}

RingPortPair::~RingPortPair() {
  for (rte_ring* r : {ab_, ba_}) {
    void* m = nullptr;
    while (rte_ring_dequeue(r, &m) == 0) {
      rte_pktmbuf_free(static_cast<rte_mbuf*>(m));
    }
    rte_ring_free(r);
  }
}

std::size_t RingPortPair::edit_in_transit(bool a_to_b,
                                          const std::function<void(std::uint8_t*, std::size_t)>& fn) {
  rte_ring* r = a_to_b ? ab_ : ba_;
  std::vector<void*> frames(rte_ring_count(r));
  const unsigned n = rte_ring_dequeue_bulk(r, frames.data(), static_cast<unsigned>(frames.size()), nullptr);
  for (unsigned i = 0; i < n; ++i) {
    auto* m = static_cast<rte_mbuf*>(frames[i]);
    fn(rte_pktmbuf_mtod(m, std::uint8_t*), m->data_len);
  }
  rte_ring_enqueue_bulk(r, frames.data(), n, nullptr);
  return n;
}

}  // namespace gw::endpoints
