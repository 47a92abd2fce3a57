// A simulated host's NIC: it serializes one packet at a time at the NIC rate and, when free,
// takes the next segment from the queue pair whose turn it is (the scheduler live endpoints
// use too: harness/run/qp_scheduler.h). Its packets go out through its Wire (below).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/event_loop.h"
#include "core/rate.h"
#include "emulator/engine/packet.h"
#include "emulator/fabric/network.h"
#include "generators/transport/queue_pair.h"
#include "harness/run/qp_scheduler.h"

namespace gw {

// `Wire` is where the host's packets go (the run that owns the network), called directly on
// the per-packet path, so a template rather than an interface:
//   void packet_of(const transport::Segment& s, fabric::HostId from, Packet& p);  // `s` as a
//       network packet from `from`, written over `p`
//   void transmit(fabric::HostId from, Packet&& p, Instant now);  // `p` left `from`'s NIC
template <class Wire>
class SimHost final : public Wakeable {
 public:
  SimHost(Wire& wire, EventLoop& loop, fabric::HostId id, BitRate nic)
      : wire_out_(&wire), timer_(loop, *this), id_(id), nic_(nic) {}

  // A queue pair of this host (it must outlive the host); returns its slot.
  std::uint32_t add(transport::QueuePair* qp) {
    qps_.push_back(qp);
    return scheduler_.add();
  }

  void wake(Instant now) override {
    if (busy_ && tx_done_ <= now) {
      busy_ = false;
      wire_out_->transmit(id_, std::move(wire_), now);
    }
    for (std::optional<std::uint32_t> slot; !busy_ && (slot = scheduler_.next_due(now));) {
      transport::QueuePair& qp = *qps_[*slot];
      std::optional<transport::Segment> s = qp.poll(now);
      scheduler_.polled(*slot, s.has_value(), qp.next_wakeup(), now);
      if (s) {
        wire_out_->packet_of(*s, id_, wire_);
        tx_done_ = now + nic_.transmit_time(wire_.size_bytes);
        busy_ = true;
      }
    }
    rearm(now);
  }

  // Queue pair `slot` changed (a segment arrived, a message was posted): look at it again.
  void touch(std::uint32_t slot, Instant now) {
    scheduler_.touch(slot, qps_[slot]->next_wakeup(), now);
    if (!busy_) {
      rearm(now);
    }
  }

 private:
  void rearm(Instant now) {
    if (busy_) {
      timer_.arm(tx_done_);
    } else if (scheduler_.next_wakeup() == kNever) {
      timer_.cancel();
    } else {
      timer_.arm(std::max(scheduler_.next_wakeup(), now));
    }
  }

  Wire* wire_out_;
  Timer timer_;
  fabric::HostId id_;
  BitRate nic_;
  std::vector<transport::QueuePair*> qps_;
  QpScheduler scheduler_;
  // The packet being serialized, while busy_. It is handed to the network from here (so
  // busy_ is false while the network takes it: a delivery it causes may touch this host).
  Packet wire_;
  bool busy_ = false;
  Instant tx_done_ = kNever;
};

}  // namespace gw
