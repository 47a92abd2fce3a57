#include "emulator/engine/cross_traffic.h"

#include <string>
#include <utility>

namespace gw {

CrossTraffic::CrossTraffic(const std::vector<MicroburstSettings>& sources, std::uint64_t seed,
                           std::string stream)
    : seed_(seed), stream_(std::move(stream)) {
  for (std::size_t i = 0; i < sources.size(); ++i) {
    sources_.push_back(make_source(i, sources[i], kEpoch));
  }
}

void CrossTraffic::set_settings(const std::vector<MicroburstSettings>& sources, Instant resume) {
  if (sources_.size() > sources.size()) {
    sources_.erase(sources_.begin() + static_cast<std::ptrdiff_t>(sources.size()), sources_.end());
  }
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (i < sources_.size()) {
      sources_[i].settings = sources[i];
    } else {
      sources_.push_back(make_source(i, sources[i], resume));
    }
  }
}

CrossTraffic::Source CrossTraffic::make_source(std::size_t i, const MicroburstSettings& s,
                                               Instant from) const {
  Source b{s, Rng(seed_, stream_ + "/microburst/" + std::to_string(i)), kNever};
  schedule_next_burst(b, from);
  return b;
}

void CrossTraffic::schedule_next_burst(Source& b, Instant after) {
  const MicroburstSettings& s = b.settings;
  if (s.period.count() <= 0 || s.burst_bytes == 0) {
    b.next_start = kNever;
    return;
  }
  // Bursts start at start + k * period (+ uniform jitter in [-jitter, +jitter]), one per
  // period: the slot after the last one used, even when that burst came early (a negative
  // jitter put it before its slot, and `after` then still lies in the slot).
  Instant base = kEpoch + s.start;
  if (after > base) {
    const std::int64_t k = (after - base).count() / s.period.count() + 1;
    base += s.period * k;
  }
  if (b.last_slot != kNever && base <= b.last_slot) {
    base += s.period * ((b.last_slot - base).count() / s.period.count() + 1);
  }
  b.last_slot = base;
  Duration j{0};
  if (s.jitter.count() > 0) {
    j = Duration{
        static_cast<std::int64_t>(b.rng.below(static_cast<std::uint64_t>(2 * s.jitter.count() + 1))) -
        s.jitter.count()};
  }
  b.next_start = std::max(after, base + j);
}

Instant CrossTraffic::next_event() const {
  Instant t = kNever;
  for (const Source& b : sources_) {
    t = std::min({t, b.next_start, b.next_packet});
  }
  return t;
}

}  // namespace gw
