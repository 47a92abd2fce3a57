// An idealized ACK clock for driving a controller without a network: each round trip the
// sender puts a window of MSS-sized packets in flight at `now`, and their ACKs return one
// after another at now + rtt (1 ns apart), each acknowledging one packet.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>

#include "generators/cc/congestion_control.h"

namespace gw::cc::test {

struct RoundSpec {
  Duration rtt{100'000'000};
  std::uint64_t packets = 0;                        // 0 = the controller's cwnd
  std::function<bool(std::uint64_t)> ce = nullptr;  // packet index -> CE-marked
  std::uint64_t lost = 0;                           // packets lost, declared before the ACKs
  double bw_bps = 0;                                // delivery-rate sample carried by each ACK; 0 = none
  Duration one_way_delay{0};
  std::function<void()> after_ack = nullptr;  // called after each ACK is delivered
};

class Driver {
 public:
  Driver(CongestionControl& cc, std::uint32_t mss) : cc_(cc), mss_(mss) {}

  // One round trip; returns the number of packets sent.
  std::uint64_t round(const RoundSpec& r = {}) {
    const std::uint64_t n = r.packets > 0 ? r.packets : std::max<std::uint64_t>(1, cc_.cwnd_bytes() / mss_);
    std::uint64_t in_flight = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      in_flight += mss_;
      cc_.on_packet_sent(SentEvent{now_, mss_, in_flight, false});
    }
    if (r.lost > 0) {
      in_flight -= r.lost * mss_;
      cc_.on_loss(LossEvent{now_ + r.rtt / 2, r.lost * mss_, in_flight, false});
    }
    for (std::uint64_t i = 0; i < n - r.lost; ++i) {
      in_flight -= mss_;
      delivered_ += mss_;
      AckEvent a;
      a.now = now_ + r.rtt + Duration{static_cast<std::int64_t>(i)};
      a.acked_bytes = mss_;
      a.bytes_in_flight = in_flight;
      a.rtt = r.rtt;
      a.min_rtt = r.rtt;
      a.one_way_delay = r.one_way_delay;
      a.ce_bytes = (r.ce && r.ce(i)) ? mss_ : 0;
      a.delivered_bytes = delivered_;
      if (r.bw_bps > 0) {
        a.sample_delivered = mss_;
        a.sample_interval = Duration{static_cast<std::int64_t>(mss_ * 8.0 * 1e9 / r.bw_bps)};
      }
      cc_.on_ack(a);
      if (r.after_ack) {
        r.after_ack();
      }
    }
    now_ += r.rtt + Duration{static_cast<std::int64_t>(n)};
    return n;
  }

  Instant now() const { return now_; }
  void advance(Duration d) { now_ += d; }

 private:
  CongestionControl& cc_;
  std::uint32_t mss_;
  Instant now_ = kEpoch;
  std::uint64_t delivered_ = 0;
};

}  // namespace gw::cc::test
