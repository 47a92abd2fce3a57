// A simulated host's NIC: it serializes one packet at a time at the NIC rate and, when free,
// takes the next segment from the queue pair whose turn it is (the scheduler live endpoints
// use too: harness/run/qp_scheduler.h). Its packets go out through a HostWire (the run that
// owns the network).
#pragma once

#include <cstdint>
#include <vector>

#include "core/event_loop.h"
#include "core/rate.h"
#include "emulator/engine/packet.h"
#include "emulator/fabric/network.h"
#include "generators/transport/queue_pair.h"
#include "harness/run/qp_scheduler.h"

namespace gw {

// Where a host's packets go: the network packet for a segment, and the network itself.
class HostWire {
 public:
  virtual ~HostWire() = default;
  // The network packet carrying `s` from `from`, written over `p`.
  virtual void packet_of(const transport::Segment& s, fabric::HostId from, Packet& p) = 0;
  // `p` leaves `from`'s NIC at `now` (its last bit sent).
  virtual void transmit(fabric::HostId from, Packet&& p, Instant now) = 0;
};

class SimHost final : public Wakeable {
 public:
  SimHost(HostWire& wire, EventLoop& loop, fabric::HostId id, BitRate nic)
      : wire_out_(&wire), timer_(loop, *this), id_(id), nic_(nic) {}

  // A queue pair of this host (it must outlive the host); returns its slot.
  std::uint32_t add(transport::QueuePair* qp) {
    qps_.push_back(qp);
    return scheduler_.add();
  }
  void wake(Instant now) override;
  // Queue pair `slot` changed (a segment arrived, a message was posted): look at it again.
  void touch(std::uint32_t slot, Instant now) {
    scheduler_.touch(slot, qps_[slot]->next_wakeup(), now);
    if (!busy_) {
      rearm(now);
    }
  }

 private:
  void rearm(Instant now);

  HostWire* wire_out_;
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
