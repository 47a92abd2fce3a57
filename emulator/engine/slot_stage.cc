#include "emulator/engine/slot_stage.h"

#include <algorithm>
#include <limits>

#include "emulator/engine/distribution.h"

namespace gw {

SlotStage::SlotStage(const SlotSettings& s, std::uint64_t seed, const std::string& stream)
    : s_(s), rng_(seed, stream) {
  // netem_change() draws the first slot when slot is configured.
  next_slot(kEpoch);
}

void SlotStage::set_settings(const SlotSettings& s) {
  s_ = s;
  packets_left_ = s_.max_packets > 0 ? s_.max_packets : std::numeric_limits<std::int64_t>::max();
  bytes_left_ = s_.max_bytes > 0 ? s_.max_bytes : std::numeric_limits<std::int64_t>::max();
}

Duration SlotStage::gap() {
  if (s_.use_distribution) {
    // sch_netem.c tabledist(): mu + sigma * table[rnd % size] / NETEM_DIST_SCALE.
    const auto& t = s_.distribution.values;
    if (t.empty()) {  // "uniform": netem's rnd % (2 sigma) + mu - sigma
      const std::int64_t sigma = s_.dist_jitter.count();
      const std::int64_t off =
          sigma > 0 ? static_cast<std::int64_t>(rng_.below(static_cast<std::uint64_t>(2 * sigma))) - sigma
                    : 0;
      return std::max(Duration{0}, s_.dist_delay + Duration{off});
    }
    const std::int16_t entry = t[rng_.next_u32() % t.size()];
    return std::max(Duration{0}, s_.dist_delay + Duration{netem_table_offset(s_.dist_jitter.count(), entry)});
  }
  const std::int64_t span = (s_.max_delay - s_.min_delay).count();
  const auto extra = span > 0 ? static_cast<std::int64_t>(rng_.below(static_cast<std::uint64_t>(span))) : 0;
  return s_.min_delay + Duration{extra};
}

void SlotStage::next_slot(Instant now) {
  slot_next_ = now + gap();
  packets_left_ = s_.max_packets > 0 ? s_.max_packets : std::numeric_limits<std::int64_t>::max();
  bytes_left_ = s_.max_bytes > 0 ? s_.max_bytes : std::numeric_limits<std::int64_t>::max();
  ++slots_;
}

void SlotStage::push(Packet&& p, Instant now, StageOutput& /*out*/) {
  if (queue_.empty() && slot_next_ < now) {
    next_slot(now);  // the slot went stale while nothing was due
  }
  bytes_ += p.size_bytes;
  queue_.push_back(std::move(p));
}

Instant SlotStage::next_wakeup() const {
  if (queue_.empty()) {
    return kNever;
  }
  return std::max(queue_.front().time, slot_next_);
}

void SlotStage::pull(Instant now, StageOutput& out) {
  while (!queue_.empty() && queue_.front().time <= now && slot_next_ <= now) {
    Packet p = std::move(queue_.front());
    queue_.pop_front();
    bytes_ -= p.size_bytes;
    --packets_left_;
    bytes_left_ -= p.size_bytes;
    if (packets_left_ <= 0 || bytes_left_ <= 0) {
      next_slot(now);
    }
    p.time = now;
    out.emit(std::move(p));
  }
}

}  // namespace gw
