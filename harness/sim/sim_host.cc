#include "harness/sim/sim_host.h"

#include <algorithm>
#include <optional>

namespace gw {

void SimHost::wake(Instant now) {
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

void SimHost::rearm(Instant now) {
  if (busy_) {
    timer_.arm(tx_done_);
  } else if (scheduler_.next_wakeup() == kNever) {
    timer_.cancel();
  } else {
    timer_.arm(std::max(scheduler_.next_wakeup(), now));
  }
}

}  // namespace gw
