// Test helpers: a PacketSink that keeps everything, and packets with plausible headers.
#pragma once

#include <map>
#include <vector>

#include "emulator/engine/pipeline.h"

namespace gw::testing {

class CollectingSink final : public PacketSink {
 public:
  void deliver(Packet&& p) override { delivered.push_back(std::move(p)); }
  void dropped(Packet&& p, DropCause cause) override {
    ++drops[cause];
    dropped_packets.push_back(std::move(p));
  }
  std::vector<Packet> delivered;
  std::vector<Packet> dropped_packets;
  std::map<DropCause, std::uint64_t> drops;
};

inline IpAddress v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  IpAddress x;
  x.bytes[10] = 0xff;
  x.bytes[11] = 0xff;
  x.bytes[12] = a;
  x.bytes[13] = b;
  x.bytes[14] = c;
  x.bytes[15] = d;
  return x;
}

inline Packet udp_packet(std::uint32_t size, Ecn ecn = Ecn::kNotEct, IpAddress dst = v4(198, 18, 0, 2)) {
  Packet p;
  p.size_bytes = size;
  p.headers.valid_l3 = true;
  p.headers.valid_l4 = true;
  p.headers.protocol = 17;
  p.headers.ecn = ecn;
  p.headers.src = v4(198, 18, 0, 1);
  p.headers.dst = dst;
  p.headers.src_port = 10000;
  p.headers.dst_port = 5201;
  return p;
}

}  // namespace gw::testing
