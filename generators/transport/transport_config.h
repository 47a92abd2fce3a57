// Settings of a queue pair, parsed and validated once (docs/style.md habit 2). Defaults and their
// sources are listed in docs/transport.md.
#pragma once

#include <cstdint>
#include <string>

#include "core/time.h"

namespace gw::transport {

// How lost packets are recovered.
enum class Recovery : std::uint8_t {
  // As RoCE NICs do (IBA §9.7.5.2.1): the receiver discards out-of-order packets and sends one
  // NAK (PSN sequence error) per gap; the sender resends everything from the NAKed PSN.
  kGoBackN,
  // The receiver buffers out-of-order packets and reports them in a SACK bitmap; the sender
  // resends only holes, found as Linux TCP does: RACK-TLP (RFC 8985: time-based loss
  // detection with an adaptive reordering window, and a tail loss probe), then the
  // retransmission timeout.
  kSelectiveRepeat,
};

// Which RC verb carries messages: SEND (first/middle/last/only) or RDMA WRITE (the first/only
// packet carries a RETH).
enum class Verb : std::uint8_t { kSend, kWrite };

struct TransportConfig {
  std::uint32_t mtu_bytes = 4096;  // payload bytes per packet, [1024, 9000]
  Recovery recovery = Recovery::kGoBackN;
  Verb verb = Verb::kSend;
  std::uint32_t ack_every_packets = 1;               // ACK after this many in-order packets, [1, 64]
  Duration ack_delay{10'000};                        // hold an ACK at most this long (coalescing timer)
  bool cnp_enabled = true;                           // send CNPs for CE-marked arrivals
  Duration cnp_interval{50'000};                     // at most one CNP per QP per interval (DCQCN §3.1)
  Duration initial_rto{1'000'000'000};               // RFC 6298 §2.1
  Duration min_rto{200'000'000};                     // floor of the RTO's variance term (Linux TCP_RTO_MIN)
  Duration max_rto{60'000'000'000};                  // upper clamp, also of the backoff (RFC 6298 §2.5)
  std::uint32_t reorder_threshold = 3;               // packets (RFC 6675 DupThresh), selective repeat
  Duration min_pto{10'000'000};                      // floor of the tail loss probe timeout (RFC 8985 §7.2)
  std::uint32_t max_outstanding_packets = 1U << 18;  // PSNs between oldest unacked and next new
  std::uint32_t initial_psn = 0;                     // 24 bits; both ends of a connection must agree
  std::uint16_t pkey = 0xFFFF;
};

// Thrown by validate(); `reason` names the field, e.g. "mtu_bytes: must be in [1024, 9000],
// got 512". The scenario loader turns it into an InputError with the JSON path.
struct TransportConfigError {
  std::string reason;
};

void validate(const TransportConfig& c);

}  // namespace gw::transport
