// "Once per window of data" (RFC 8257 §3.3's observation window, RFC 6582's recovery point,
// BBR's round trips) from ACK events alone. A round ends when the bytes acknowledged since it
// began reach the bytes that were in flight when it began, i.e. when the data outstanding at
// its start has been acknowledged -- the byte-count form of "an ACK beyond SND.NXT at the
// start". Retransmitted bytes count when acknowledged, so a loss lengthens the round.
#pragma once

#include <cstdint>

namespace gw::cc {

class RoundTracker {
 public:
  // Accounts one ACK; true when it ends the current round (the next one starts here). A round
  // that starts with nothing in flight (the first, or after an idle period) starts at its first
  // ACK and covers the data outstanding just before that ACK.
  bool on_ack(std::uint64_t acked_bytes, std::uint64_t bytes_in_flight_after) {
    if (!started_) {
      started_ = true;
      round_end_ = acked_ + acked_bytes + bytes_in_flight_after;
    }
    acked_ += acked_bytes;
    if (acked_ < round_end_) {
      return false;
    }
    round_end_ = mark(bytes_in_flight_after);
    started_ = bytes_in_flight_after > 0;  // nothing outstanding: the next ACK starts the next round
    ++rounds_;
    return true;
  }

  // The acknowledged-bytes total at which everything now in flight has been acknowledged.
  std::uint64_t mark(std::uint64_t bytes_in_flight) const { return acked_ + bytes_in_flight; }
  std::uint64_t acked() const { return acked_; }
  std::uint64_t rounds() const { return rounds_; }

 private:
  std::uint64_t acked_ = 0;
  std::uint64_t round_end_ = 0;
  std::uint64_t rounds_ = 0;
  bool started_ = false;
};

}  // namespace gw::cc
