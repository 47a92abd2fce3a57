#include "emulator/dpdk/mbuf_frame.h"

#include <rte_mbuf.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "emulator/engine/headers.h"

namespace gw {
namespace {

std::span<std::uint8_t> segment_bytes(rte_mbuf* m) {
  return {rte_pktmbuf_mtod(m, std::uint8_t*), rte_pktmbuf_data_len(m)};
}

}  // namespace

Packet packet_of(rte_mbuf* m, Instant now, DirectionStats& s) {
  const std::uint32_t len = rte_pktmbuf_pkt_len(m);
  if (m->nb_segs > 1) {
    ++s.multi_segment;
  }
  if (m->nb_segs == 1 || rte_pktmbuf_data_len(m) >= std::min(len, kHeaderBytes)) {
    return packet_from_frame(segment_bytes(m), reinterpret_cast<std::uint64_t>(m), now, len);
  }
  std::array<std::uint8_t, kHeaderBytes> buf{};
  const std::uint32_t n = std::min(len, kHeaderBytes);
  const auto* p = static_cast<const std::uint8_t*>(rte_pktmbuf_read(m, 0, n, buf.data()));
  return packet_from_frame({p, n}, reinterpret_cast<std::uint64_t>(m), now, len);
}

bool change_headers(rte_mbuf* m, bool (*change)(std::span<std::uint8_t>)) {
  const std::uint32_t n = std::min(rte_pktmbuf_pkt_len(m), kHeaderBytes);
  if (rte_pktmbuf_data_len(m) >= n) {
    return change(segment_bytes(m));
  }
  std::array<std::uint8_t, kHeaderBytes> buf{};
  const auto* p = static_cast<const std::uint8_t*>(rte_pktmbuf_read(m, 0, n, buf.data()));
  if (p != buf.data()) {
    std::memcpy(buf.data(), p, n);
  }
  if (!change(std::span<std::uint8_t>(buf.data(), n))) {
    return false;
  }
  std::uint32_t done = 0;
  for (rte_mbuf* seg = m; seg != nullptr && done < n; seg = seg->next) {
    const std::uint32_t k = std::min<std::uint32_t>(rte_pktmbuf_data_len(seg), n - done);
    std::memcpy(rte_pktmbuf_mtod(seg, std::uint8_t*), buf.data() + done, k);
    done += k;
  }
  return true;
}

bool flip_frame_bit(rte_mbuf* m, std::uint32_t bit) {
  std::uint64_t b = bit;
  for (rte_mbuf* seg = m; seg != nullptr; seg = seg->next) {
    const std::uint64_t seg_bits = 8ULL * rte_pktmbuf_data_len(seg);
    if (b < seg_bits) {
      return flip_bit(segment_bytes(seg), static_cast<std::uint32_t>(b));
    }
    b -= seg_bits;
  }
  return false;
}

rte_mbuf* chain_from_bytes(rte_mempool* pool, std::span<const std::uint8_t> frame,
                           std::span<const std::uint32_t> seg_bytes) {
  rte_mbuf* head = nullptr;
  std::size_t done = 0;
  for (std::size_t i = 0; done < frame.size() || i == 0; ++i) {
    rte_mbuf* seg = rte_pktmbuf_alloc(pool);
    if (seg == nullptr) {
      free_chain(head);
      return nullptr;
    }
    const std::size_t room = rte_pktmbuf_tailroom(seg);
    const std::size_t want = i + 1 < seg_bytes.size() ? seg_bytes[i] : frame.size() - done;
    const auto k = static_cast<std::uint16_t>(std::min({want, room, frame.size() - done}));
    std::memcpy(rte_pktmbuf_append(seg, k), frame.data() + done, k);
    done += k;
    if (head == nullptr) {
      head = seg;
    } else if (rte_pktmbuf_chain(head, seg) != 0) {
      rte_pktmbuf_free(seg);
      free_chain(head);
      return nullptr;
    }
  }
  return head;
}

std::vector<std::uint8_t> bytes_of(const rte_mbuf* m) {
  std::vector<std::uint8_t> out;
  for (const rte_mbuf* seg = m; seg != nullptr; seg = seg->next) {
    const auto* p = rte_pktmbuf_mtod(seg, const std::uint8_t*);
    out.insert(out.end(), p, p + rte_pktmbuf_data_len(seg));
  }
  return out;
}

void free_chain(rte_mbuf* m) {
  if (m != nullptr) {
    rte_pktmbuf_free(m);
  }
}

}  // namespace gw
