// Frames as they arrive on a port (emulator/engine/headers.h): Ethernet, VLAN tags, IPv4,
// IPv6 with extension headers and SRv6, UDP, RoCEv2 BTH, INT. Parsing never reads past the
// frame (ASan), and the in-place edits (CE mark, bit flip) keep the frame's length and a valid
// IPv4 header checksum where there was one.
#include <vector>

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
  return 0;
}
