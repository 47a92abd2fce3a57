// The bottleneck's service: how long a packet takes to leave. At a rate (netem `rate`), its
// length plus the per-packet overhead, rounded up to whole cells when a cell size is set, at
// the rate in force when its transmission starts (a rate trace's, or the fixed one): netem's
// packet_time_ns() (sch_netem.c). With a Mahimahi trace instead, the link sends only at
// delivery opportunities, each carrying up to 1504 bytes (mahimahi link_queue.cc,
// LinkQueue::use_a_delivery_opportunity), and a packet may span several of them.
//
// The queue stage decides which packet is served and when; this class only answers for how
// long (or, with opportunities, how many bytes the link may send and when it next can).
#pragma once

#include <cstdint>

#include "core/rate.h"
#include "core/time.h"
#include "emulator/engine/spec.h"

namespace gw {

class RateServer {
 public:
  explicit RateServer(const RateSettings& settings) : s_(settings) {}

  // New settings. A packet part-sent at earlier opportunities keeps what it is still owed.
  void set_settings(const RateSettings& settings) {
    s_ = settings;
    tx_size_ = kNoSize;
  }

  // No trace and no opportunities: a packet's transmit time depends only on its size.
  bool fixed() const { return s_.trace.empty() && s_.mahimahi.empty(); }
  // The link sends at Mahimahi delivery opportunities, not at a rate.
  bool opportunities() const { return !s_.mahimahi.empty(); }

  BitRate rate_at(Instant now) const { return s_.trace.empty() ? s_.rate : traced_rate(now); }
  // A packet of size_bytes starting its transmission at `now`: the time until its last bit left.
  Duration transmit_time(std::uint32_t size_bytes, Instant now) const {
    // At a fixed rate, the last size's answer is kept: traffic is mostly one or two sizes.
    if (size_bytes == tx_size_ && s_.trace.empty()) {
      return tx_last_;
    }
    return transmit_time_slow(size_bytes, now);
  }

  // The first delivery opportunity at or after `after`; kNever once a non-repeating trace ended.
  Instant next_opportunity(Instant after) const;
  // The bytes the opportunities at `now` may send together: Mahimahi lists one entry per
  // opportunity, several may share a millisecond.
  std::uint32_t opportunity_bytes(Instant now) const;
  // Spends `budget` on the head packet of head_bytes (the bytes it is still owed carry over
  // from earlier opportunities): true when its last byte has been sent.
  bool send_head(std::uint32_t& budget, std::uint32_t head_bytes);

 private:
  BitRate traced_rate(Instant now) const;
  Duration transmit_time_slow(std::uint32_t size_bytes, Instant now) const;
  Duration compute_transmit_time(std::uint32_t size_bytes, Instant now) const;

  RateSettings s_;
  static constexpr std::uint64_t kNoSize = UINT64_MAX;  // no frame is that large
  mutable std::uint64_t tx_size_ = kNoSize;             // transmit_time()'s last answer, at a fixed rate
  mutable Duration tx_last_{0};
  std::uint32_t head_owed_ = 0;  // opportunities: bytes still owed to the head packet
};

}  // namespace gw
