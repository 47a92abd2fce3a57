// Cross traffic at the bottleneck: microburst sources, each sending `burst_bytes` once per
// period (start + k period, moved by a uniform jitter within its slot), as packets of up to
// `packet_bytes` that arrive at `burst_rate` (all at once when unlimited). The packets are
// synthetic: they take queue space and wire time from real traffic, then leave toward their
// own destination. Each source draws its jitter from its own stream, so adding a source or
// a phase change leaves the others' bursts where they were.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "core/time.h"
#include "emulator/engine/packet.h"
#include "emulator/engine/spec.h"

namespace gw {

class CrossTraffic {
 public:
  // Sources start from the epoch.
  CrossTraffic(const std::vector<MicroburstSettings>& sources, std::uint64_t seed, std::string stream);

  // New settings. Existing sources keep their streams and the burst already scheduled (so a
  // phase that keeps the count keeps the bursts' timing); added ones start at `resume`.
  void set_settings(const std::vector<MicroburstSettings>& sources, Instant resume);

  bool empty() const { return sources_.empty(); }
  // When the next burst starts or the next packet of one in progress arrives; kNever if none.
  Instant next_event() const;
  // Makes the packets due at `now` (the next_event()), passing each to inject(Packet&&) in
  // order, source by source.
  template <typename Inject>
  void inject_due(Instant now, Inject&& inject);

 private:
  struct Source {
    MicroburstSettings settings;
    Rng rng;
    Instant next_start;
    // The nominal start (start + k period, before jitter) of the burst last scheduled: each
    // period has one burst, however its jitter falls.
    Instant last_slot = kNever;
    std::uint64_t bytes_left = 0;  // of the burst in progress
    Instant next_packet = kNever;
  };
  Source make_source(std::size_t i, const MicroburstSettings& s, Instant from) const;
  static void schedule_next_burst(Source& b, Instant after);

  std::uint64_t seed_;
  std::string stream_;
  std::vector<Source> sources_;
};

template <typename Inject>
void CrossTraffic::inject_due(Instant now, Inject&& inject) {
  for (Source& b : sources_) {
    if (b.next_start == now) {
      b.bytes_left += b.settings.burst_bytes;
      b.next_packet = now;
      schedule_next_burst(b, now + Duration{1});
    }
    while (b.next_packet == now && b.bytes_left > 0) {
      const auto size =
          static_cast<std::uint32_t>(std::min<std::uint64_t>(b.bytes_left, b.settings.packet_bytes));
      b.bytes_left -= size;
      Packet p;
      p.synthetic = true;
      p.size_bytes = size;
      p.arrival = now;
      p.time = now;
      inject(std::move(p));
      if (b.bytes_left == 0) {
        b.next_packet = kNever;
      } else if (!b.settings.burst_rate.unlimited()) {
        b.next_packet = now + b.settings.burst_rate.transmit_time(size);
      }
    }
  }
}

}  // namespace gw
