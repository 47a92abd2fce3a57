// Frames as they arrive on a port (emulator/engine/headers.h): Ethernet, VLAN tags, IPv4,
// IPv6 with extension headers and SRv6, UDP, RoCEv2 BTH, and INT-MD stamping
// (emulator/dpdk/int_stamp.h: pure functions, built into this target). Parsing never reads
// past the frame (ASan); the in-place edits (CE mark, bit flip) keep the frame's length; INT
// stamping writes only inside its buffer, and changes nothing unless it stamped.
#include <vector>

#include "emulator/dpdk/int_stamp.h"
#include "emulator/engine/headers.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gw;
  // An exact-size heap copy: ASan sees any read past the frame's end.
  std::vector<std::uint8_t> frame(data, data + size);
  const std::span<const std::uint8_t> view(frame.data(), frame.size());
  (void)parse_headers(view);
  (void)locate_l3(view);
  const Packet p = packet_from_frame(view, 1, kEpoch, static_cast<std::uint32_t>(size));
  (void)p;
  std::vector<std::uint8_t> marked = frame;
  if (apply_ce(std::span<std::uint8_t>(marked.data(), marked.size()))) {
    fuzz::require(marked.size() == frame.size());
  }
  if (size > 0) {
    std::vector<std::uint8_t> flipped = frame;
    const std::uint32_t bit = data[0] * 8U;
    (void)flip_bit(std::span<std::uint8_t>(flipped.data(), flipped.size()), bit);
  }
  // INT: the frame after 64 bytes of headroom, as an mbuf holds it; two hops to insert.
  constexpr std::size_t kHeadroom = 64;
  std::vector<std::uint8_t> buf(kHeadroom + size);
  std::copy(frame.begin(), frame.end(), buf.begin() + kHeadroom);
  const std::vector<std::uint8_t> before = buf;
  IntStack hops;
  hops.hops = 2;
  hops.hop[0].node_id = 7;
  hops.hop[1].queue_bytes = 1500;
  IntLocation where;
  const IntOutcome located = locate_int(view, kIntDefaultDscp, &where);
  const IntStampResult r = stamp_int(std::span<std::uint8_t>(buf.data(), buf.size()), kHeadroom, size, hops,
                                     IntPorts{0, 1}, kIntDefaultDscp);
  fuzz::require(r.inserted <= kHeadroom);
  if (r.outcome != IntOutcome::kStamped && r.outcome != IntOutcome::kExceeded) {
    fuzz::require(buf == before);
  }
  if (located == IntOutcome::kNoInt) {
    fuzz::require(r.outcome == IntOutcome::kNoInt);
  }
  return 0;
}
