// Where a collective's time went: its measured completion time split into named parts that
// add up to it exactly (docs/reports.md "Where the time went").
//
// The α-β model gives the parts a perfect transport would still spend: the latency of the
// critical path (`propagation`), its bytes at the bottleneck rate (`serialization`), and what
// NCCL's window adds over the links (`nccl_window`, when that bound is the slower one). The
// time beyond the model is the transport's, split by what the op's WAN senders measured over
// the op (transport::SendChrono, summed over the WAN data connections):
//  - `queueing`: each latency on the critical path inflated by the standing queue the RTT
//    samples saw, relative to the path's minimum RTT (transport::SendChrono::rtt_queueing);
//  - the rest in proportion to the time the senders were held back by the congestion window
//    (`cwnd_window`), by a congestion-control cut on a non-loss signal (`cc_cuts`: CE, CNP,
//    delay, INT), or by loss (`loss_recovery`: resends and RTO waits);
//  - `other`: time beyond the model that none of those explains (contention with other
//    traffic, scheduling between steps); all of it when no sender state was measured (live).
// An op faster than the model (the window bound assumes every slot waits a full round trip)
// has its model parts scaled down to the measured time and no transport parts.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/time.h"
#include "generators/transport/qp_types.h"

namespace gw {

enum class TimePart : std::uint8_t {
  kPropagation,
  kSerialization,
  kNcclWindow,
  kQueueing,
  kCwndWindow,
  kCcCuts,
  kLossRecovery,
  kOther,
};
inline constexpr std::size_t kTimeParts = 8;
std::string_view time_part_name(TimePart p);  // "propagation", "nccl_window", ...

// What the WAN data connections did over an interval (a difference of two snapshots).
struct WanLedger {
  transport::SendChrono chrono;
  std::uint64_t retransmits = 0;
  std::uint64_t timeouts = 0;
  std::uint64_t cnps = 0;
  WanLedger& operator+=(const WanLedger& o);
  WanLedger& operator-=(const WanLedger& o);
};

// The model's view of one op: the latency-only prediction, the links' bound, and the
// prediction (the slower of the links and NCCL's window).
struct ModelTimes {
  Duration propagation{0};
  Duration network{0};
  Duration predicted{0};
};

struct TimeAttribution {
  std::array<Duration, kTimeParts> part{};
  bool transport_measured = false;  // the transport parts come from measured sender states
  WanLedger wan;                    // what the WAN senders did during the op
  Duration& operator[](TimePart p) { return part[static_cast<std::size_t>(p)]; }
  Duration operator[](TimePart p) const { return part[static_cast<std::size_t>(p)]; }
  Duration total() const;
};

TimeAttribution attribute_time(Duration measured, const ModelTimes& model,
                               const std::optional<WanLedger>& wan);

}  // namespace gw
