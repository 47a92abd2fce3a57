#include "harness/sim/probe.h"

namespace gw {
namespace {

IpAddress ipv4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  IpAddress x;
  x.bytes[10] = 0xff;
  x.bytes[11] = 0xff;
  x.bytes[12] = a;
  x.bytes[13] = b;
  x.bytes[14] = c;
  x.bytes[15] = d;
  return x;
}

}  // namespace

ImpairmentSummary run_probe(Profile profile, const ProbeOptions& o) {
  if (o.seed) {
    profile.seed = *o.seed;
  }
  DirectionEngine engine(profile, o.direction);
  SummarySink sink;
  // The benchmarking range (RFC 2544): 198.18.0.1 is side A, 198.18.0.2 side B.
  const bool ab = o.direction == Direction::kAToB;
  const IpAddress a = ipv4(198, 18, 0, 1);
  const IpAddress b = ipv4(198, 18, 0, 2);
  Instant now = kEpoch;
  for (std::uint64_t i = 0; i < o.packets; ++i) {
    // Arrival of packet i at the offered rate, computed from the total so it never drifts.
    now = kEpoch + o.rate.transmit_time(i * o.size_bytes);
    Packet p;
    p.size_bytes = o.size_bytes;
    p.handle = i;
    PacketHeaders& h = p.headers;
    h.valid_l3 = true;
    h.valid_l4 = true;
    h.protocol = 17;
    h.ecn = o.ecn;
    h.src = ab ? a : b;
    h.dst = ab ? b : a;
    h.src_port = static_cast<std::uint16_t>(10000 + i % o.flows);
    h.dst_port = 5201;
    engine.advance(now, sink);
    std::uint64_t queue = 0;
    for (const auto& c : engine.classes()) {
      queue += c.pipeline->queue_bytes();
    }
    sink.arrival(now, queue);
    engine.push(std::move(p), now, sink);
  }
  engine.drain(sink, now);
  return sink.finish(engine.totals(), engine.held_packets());
}

}  // namespace gw
