// The one interface every congestion controller implements (docs/architecture.md "Key shapes";
// shaped after QUICHE's SendAlgorithmInterface). The transport calls these methods as events
// happen and asks for `cwnd_bytes()` and `pacing_rate()` before each send. Controllers never
// read a clock and never do I/O: every event carries `now`, so the same controller runs in
// virtual time and on real sockets.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/rate.h"
#include "core/time.h"

namespace gw::cc {

// One hop of in-band telemetry as echoed back to the sender (HPCC's per-hop record,
// docs/references.md §3/§4). tx_bytes wraps at 2^32: take differences.
struct IntHopEcho {
  std::uint32_t node_id = 0;
  std::uint32_t queue_bytes = 0;
  std::uint32_t tx_bytes = 0;
  std::uint64_t egress_ts_ns = 0;
  std::uint64_t link_rate_bps = 0;
};

// When a packet (first transmission or retransmission) leaves the sender.
struct SentEvent {
  Instant now{};
  std::uint32_t bytes = 0;            // wire bytes of this packet
  std::uint64_t bytes_in_flight = 0;  // after this send
  bool retransmission = false;
};

// An acknowledgement that newly acknowledged data (a cumulative ACK, or a selective ACK).
struct AckEvent {
  Instant now{};
  std::uint64_t acked_bytes = 0;      // newly acknowledged by this ACK
  std::uint64_t bytes_in_flight = 0;  // after removing the acknowledged bytes
  Duration rtt{0};                    // RTT sample; 0 when none (Karn: retransmitted data)
  Duration min_rtt{0};                // smallest RTT seen by this connection so far
  Duration one_way_delay{0};          // receiver timestamp - sender timestamp; 0 if unknown
  std::uint64_t ce_bytes = 0;         // of acked_bytes, how many arrived CE-marked (ECN echo)
  // Delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation): bytes delivered over
  // the interval between the send and the ACK of the packet this ACK covers.
  std::uint64_t delivered_bytes = 0;   // total delivered by the connection so far
  std::uint64_t sample_delivered = 0;  // delivered during the sample interval
  Duration sample_interval{0};
  bool app_limited = false;                // the sample was taken while the sender had nothing to send
  std::span<const IntHopEcho> int_hops{};  // telemetry echoed by the receiver, in path order
};

// Packets declared lost by the transport's loss detection (duplicate ACKs, NAK, SACK
// holes) or by a retransmission timeout.
struct LossEvent {
  Instant now{};
  std::uint64_t lost_bytes = 0;
  std::uint64_t bytes_in_flight = 0;  // after removing the lost bytes
  bool timeout = false;               // an RTO fired (RFC 6298 §5)
  // The first loss of an episode the transport may later undo (on_loss_undone): a controller
  // that supports undo keeps its state from before this reduction until then.
  bool undo_start = false;
};

// Observable state, for reports and time series, and for a learned policy (docs/architecture.md
// "Key shapes"): what a controller exposes without revealing its internals.
struct CcState {
  std::uint64_t cwnd_bytes = 0;
  std::uint64_t pacing_rate_bps = 0;  // 0 = unpaced
  std::string phase;                  // e.g. "slow_start", "probe_bw_up", "fast_recovery"
};

// Settings common to all controllers, from the scenario's transport section.
struct CcContext {
  std::uint32_t mss_bytes = 4096;                   // payload bytes per full packet
  std::uint64_t line_rate_bps = 10'000'000'000ULL;  // the sender NIC's rate
  Duration base_rtt_hint{0};                        // a path RTT when the scenario knows it; 0 if not
  std::uint32_t hops_hint = 1;                      // path hops, for Swift's per-hop target term
};

class CongestionControl {
 public:
  virtual ~CongestionControl() = default;

  // Called once per packet handed to the wire, after the transport accounted it as in flight.
  virtual void on_packet_sent(const SentEvent& e) = 0;
  // Called for each ACK that acknowledges new data.
  virtual void on_ack(const AckEvent& e) = 0;
  // Called when the transport declares packets lost (at most once per loss episode the
  // controller decides how to react; the transport does not deduplicate).
  virtual void on_loss(const LossEvent& e) = 0;
  // Called when every retransmission of the last loss episode turned out to be spurious (the
  // receiver reported each as a duplicate, D-SACK: the originals were reordered, not lost):
  // undo that episode's reduction, as Linux does (tcp_try_undo_dsack; RFC 3708 §3's
  // response). Default: keep the reduction.
  virtual void on_loss_undone(Instant now) { (void)now; }
  // Called when a RoCEv2 CNP (congestion notification packet) arrives. Default: ignore.
  virtual void on_cnp(Instant now) { (void)now; }
  // Controllers with timers (DCQCN's rate-increase and alpha timers) say when they next want
  // `on_timer`; the transport calls it at or after that time. Default: never.
  virtual Instant next_timer() const { return kNever; }
  virtual void on_timer(Instant now) { (void)now; }

  // The congestion window; the transport keeps bytes_in_flight <= cwnd_bytes().
  virtual std::uint64_t cwnd_bytes() const = 0;
  // The pacing rate; BitRate{0} means "send as fast as the window allows" (unpaced).
  virtual BitRate pacing_rate() const = 0;
  // The ECN codepoint this controller sends with: classic ECT(0), L4S ECT(1), or none.
  enum class EcnMode : std::uint8_t { kNone, kEct0, kEct1 };
  virtual EcnMode ecn_mode() const { return EcnMode::kEct0; }

  virtual CcState state() const = 0;
  virtual std::string_view name() const = 0;
};

// Parameters from the scenario (`transport.cc_params`), by name, already converted to
// numbers by the scenario loader; each controller reads the ones it knows and rejects the
// rest (so a typo is an error, not a silently ignored setting).
using CcParams = std::map<std::string, double, std::less<>>;

// Thrown by make_congestion_control for an unknown name or parameter; the scenario loader
// turns it into an InputError with the JSON path.
struct CcConfigError {
  std::string reason;
};

// The registry: the names, and a factory. Adding an algorithm adds one line to the registry.
std::vector<std::string> congestion_control_names();
std::unique_ptr<CongestionControl> make_congestion_control(std::string_view name, const CcContext& ctx,
                                                           const CcParams& params);

}  // namespace gw::cc
