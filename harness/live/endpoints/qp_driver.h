// What a live endpoint does with its queue pairs, whatever carries its frames (UdpEndpoint: a
// UDP socket; DpdkEndpoint: whole Ethernet frames on a DPDK port): it opens the QPs, keeps the
// set of QPs that want to run, polls the due ones at the instants they asked for and hands
// their segments to the endpoint's SegmentWire, and feeds arriving segments to their QPs.
//
// QP numbers go in pairs (the simulator's numbering): a connection's sending half is the even
// number q, its receiving half q + 1. post() opens a sending QP; the first data segment that
// arrives for an unknown odd QP opens the receiving one, toward the segment's source.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/time.h"
#include "generators/cc/congestion_control.h"
#include "generators/transport/queue_pair.h"
#include "generators/transport/segment.h"
#include "generators/transport/transport_config.h"
#include "harness/run/qp_scheduler.h"

namespace gw::endpoints {

// A message that arrived whole and in order at a receiving QP.
struct Delivery {
  std::uint32_t qp = 0;
  std::uint64_t msg_id = 0;
  std::uint64_t bytes = 0;
  Instant posted{};
  Instant completed{};
};

struct EndpointCounters {
  std::uint64_t datagrams_sent = 0;
  std::uint64_t datagrams_received = 0;
  std::uint64_t bytes_sent = 0;  // UDP payload bytes
  std::uint64_t bytes_received = 0;
  std::uint64_t send_dropped = 0;     // the socket refused a datagram (buffer full): lost at the host
  std::uint64_t undecodable = 0;      // not a frame this transport sends
  std::uint64_t unknown_qp = 0;       // control for a QP that is not open here
  std::uint64_t socket_overflow = 0;  // SO_RXQ_OVFL: datagrams the kernel dropped before us
  std::uint64_t receiving_qps_opened = 0;
};

// Where a QP sends to: an IPv4 address and UDP port, both in network byte order.
struct PeerAddress {
  std::uint32_t ip = 0;
  std::uint16_t port = 0;
  bool operator==(const PeerAddress&) const = default;
};

// "a.b.c.d:port".
std::string peer_text(const PeerAddress& peer);

// A QP's path between two regions with several (docs/steering.md): it names the UDP source
// port its segments leave from (emulator/fabric/path_ports.h). kNoPath: the endpoint's own
// port, as without steering.
inline constexpr std::int32_t kNoPath = -1;

// One QP of an endpoint, for reports.
struct QpView {
  std::uint32_t qp = 0;
  bool sending = false;
  std::string peer;
  std::int32_t path = kNoPath;
  const transport::QueuePair* pair = nullptr;
};

// The settings every QP of an endpoint is made with.
struct QpSettings {
  transport::TransportConfig transport;
  std::string cc;  // the sending QPs' controller (generators/cc registry); receivers use "fixed"
  cc::CcParams cc_params;
  cc::CcContext cc_context;
};

// The endpoint's frame I/O, as the driver sees it.
class SegmentWire {
 public:
  virtual ~SegmentWire() = default;
  // Sends `s` (encoded as wire.h's UDP payload) to `to` from the source port of path `path`
  // (or kNoPath), now or queued for flush().
  virtual void transmit(const transport::Segment& s, const PeerAddress& to, std::int32_t path) = 0;
  // Sends what transmit() queued. Called at the end of every QpDriver::send_due.
  virtual void flush() = 0;
};

class QpDriver {
 public:
  // `wire` and `counters` belong to the endpoint and must outlive the driver. The driver
  // counts the receiving side in `counters` (datagrams_received, bytes_received, undecodable,
  // unknown_qp, receiving_qps_opened); the wire counts what it sends.
  QpDriver(QpSettings settings, SegmentWire& wire, EndpointCounters& counters);

  // Throws std::invalid_argument for an odd (receiving) QP number: post() takes sending ones.
  static void require_sending_qp(std::uint32_t qp);
  // The peer the QP `qp` is open toward; nullptr while it is not open.
  const PeerAddress* peer(std::uint32_t qp) const;
  // The sending QP `qp`, when it opens, runs `cc` with `params` (generators/cc registry)
  // instead of the endpoint's controller: a scenario flow's own. No effect on an open QP.
  void set_controller(std::uint32_t qp, std::string cc, cc::CcParams params);
  // Posts a message of `bytes` on the sending QP `qp` (even), opened toward `to` on first use,
  // on path `path` (kNoPath: none; ignored once the QP is open). The caller has checked that
  // an open QP is open toward `to`.
  void post(std::uint32_t qp, const PeerAddress& to, std::uint64_t msg_id, std::uint64_t bytes, Instant now,
            std::int32_t path = kNoPath);
  // The sending QP `qp` moves to path `path`; its segments on the old path lag the new one's by
  // about `lag` (QueuePair::path_changed). False when `qp` is not an open sending QP.
  bool move(std::uint32_t qp, std::int32_t path, Duration lag, Instant now);

  // Decodes one arriving UDP payload (`tos`: its IPv4 TOS byte, for the ECN codepoint) from
  // `from` and feeds it to its QP. `now` is the arrival time; `remote`: `from` is another
  // address than the endpoint's own (one_way_delay_remote_us); `path`: the path its source
  // port names (or kNoPath), which a receiving QP answers on. Returns the one-way delay of a
  // data segment a QP took (sender timestamp to `now`) when it is not negative.
  std::optional<Duration> on_datagram(std::span<const std::uint8_t> data, std::uint8_t tos,
                                      const PeerAddress& from, bool remote, Instant now,
                                      std::int32_t path = kNoPath);
  // Gives each due QP its turn (harness/run/qp_scheduler.h: once per call, in the order they
  // became due; the receiving halves first, and only those if `receivers_only`), sends what
  // they emit, then flushes the wire; true if any QP emitted a segment.
  bool send_due(Instant now, bool receivers_only);
  // The earliest instant a QP wants to run; kNever when all are idle.
  Instant next_wakeup() const {
    return std::min(receivers_.scheduler.next_wakeup(), senders_.scheduler.next_wakeup());
  }

  std::vector<Delivery> take_deliveries();
  std::vector<QpView> queue_pairs() const;
  // Raw one-way delays of the data segments the QPs took, rounded to microseconds: value (us)
  // -> count; the same for those from another address than the endpoint's own.
  const std::map<std::int64_t, std::uint64_t>& one_way_delay_us() const { return owd_us_; }
  const std::map<std::int64_t, std::uint64_t>& one_way_delay_remote_us() const { return owd_remote_us_; }

 private:
  struct Slot {
    std::unique_ptr<transport::QueuePair> qp;
    PeerAddress peer;
    bool sending = false;
    std::int32_t path = kNoPath;
    QpScheduler::Slot turn = 0;  // in its lane's scheduler
    Instant last_now = kEpoch;   // the last instant the QP was given (never decreases)
  };
  // The receiving and the sending halves wait apart, so that send_due can run the receiving
  // ones alone.
  struct Lane {
    QpScheduler scheduler;
    std::vector<std::uint32_t> qp_of;  // the scheduler's slot -> QP number
  };
  Lane& lane(const Slot& slot) { return slot.sending ? senders_ : receivers_; }
  Slot& open(std::uint32_t qp, const PeerAddress& peer, bool sending, std::int32_t path);
  // The QP changed (a message posted, a segment taken): its lane looks at it again.
  void touch(Slot& slot, Instant now);
  // One turn for each QP of `lane` due at `now`; true if any emitted a segment.
  bool run_turns(Lane& lane, Instant now);
  // Polls one due QP from the instant it asked for (at most kCatchUp before `now`) up to `now`
  // and transmits what it emits; returns how many segments.
  int emit(Slot& slot, std::uint32_t qp, Instant now);
  void collect(Slot& slot, std::uint32_t qp);

  QpSettings settings_;
  SegmentWire& wire_;
  EndpointCounters& counters_;
  std::map<std::uint32_t, Slot> slots_;
  std::map<std::uint32_t, std::pair<std::string, cc::CcParams>> controllers_;  // set_controller
  Lane receivers_;
  Lane senders_;
  std::vector<Delivery> deliveries_;
  std::map<std::int64_t, std::uint64_t> owd_us_;
  std::map<std::int64_t, std::uint64_t> owd_remote_us_;
};

}  // namespace gw::endpoints
