// A live endpoint on a UDP socket: the same QueuePair and congestion-control code the
// simulator runs (generators/transport, generators/cc), driven by the real clock, its segments
// sent as RoCEv2 frames in UDP datagrams to destination port 4791 (wire.h). The queue pairs
// are run by a QpDriver (qp_driver.h), as DpdkEndpoint's are; this class is the socket side.
//
// One endpoint per process side; it hosts any number of queue pairs on one socket, told apart
// by the BTH destination QP. Connections use QP numbers in pairs: the sending half has an even
// number q and the receiving half q + 1 (the simulator's numbering). The sender's QP is opened
// by post(); the receiver's is opened by the first data packet that arrives for an unknown odd
// QP number, toward the packet's source address, so only the sending side has to be told
// about a connection.
//
// Driving it (one thread):
//   ep.post(...)                 // any time
//   ep.poll(now)                 // receives what arrived, sends what is due
//   ep.wait(ep.next_wakeup(), other_fd)   // sleeps until then, a datagram or other_fd
// Waits: epoll_pwait2 with a nanosecond timeout and 1 ns timer slack; a wakeup that comes late
// (tens of microseconds on a VM) is caught up by polling the late QPs at the instants they
// asked for, so the long-run pacing rate holds without spinning (docs/guide/live.md). An
// optional spin for the last `spin_below` of a wait trades a CPU for microsecond gaps.
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/histogram.h"
#include "core/time.h"
#include "generators/cc/congestion_control.h"
#include "generators/transport/transport_config.h"
#include "harness/live/endpoints/qp_driver.h"

namespace gw::endpoints {

struct UdpEndpointConfig {
  transport::TransportConfig transport;
  std::string cc = "cubic";  // the sending QPs' controller (generators/cc registry)
  cc::CcParams cc_params;
  cc::CcContext cc_context;
  std::string bind_address = "0.0.0.0";  // IPv4
  std::uint16_t port = 4791;             // 0: any free port (tests over loopback)
  std::uint16_t peer_port = 4791;        // where peers listen
  // SO_SNDBUF / SO_RCVBUF (forced when root). The receive buffer is what holds arrivals while
  // the endpoint waits for a CPU, and the kernel charges each datagram its buffer's true size
  // (hundreds of bytes for an ACK, more than its payload). 8 MiB overflowed at 500 Mbit/s on a
  // loaded 2-vCPU host (72,763 ACKs lost in one run, docs/guide/live.md); 32 MiB hold 4x that.
  int socket_buffer_bytes = 32 << 20;
  std::int64_t epoch_monotonic_ns = 0;  // CLOCK_MONOTONIC of run time 0 (clock.h RunTime)
  // Waits shorter than this end in a spin on the clock instead of a timer. 0 (default): never
  // spin. Spinning keeps gaps of a few microseconds exact but holds a CPU the whole time the
  // endpoint is pacing, which on a 2-vCPU bench starves the emulator (its af_packet ring
  // overflows) and the other endpoint (docs/guide/live.md "Pacing").
  Duration spin_below{0};
  // Paths between the regions (docs/steering.md): a socket each, bound to a source port of the
  // path's range (emulator/fabric/path_ports.h), that QPs on the path send from; they are read
  // as the main socket is. 0: no steering, every QP sends from `port`.
  std::uint32_t paths = 0;
};

class UdpEndpoint : private SegmentWire {
 public:
  // Opens and binds the socket; throws EnvironmentError (core/errors.h) when it cannot.
  explicit UdpEndpoint(UdpEndpointConfig cfg);
  ~UdpEndpoint() override;
  UdpEndpoint(const UdpEndpoint&) = delete;
  UdpEndpoint& operator=(const UdpEndpoint&) = delete;

  std::uint16_t port() const { return port_; }

  // Posts a message of `bytes` on the sending QP `qp` (even), opened toward `peer` (IPv4
  // dotted quad, the config's peer_port) on first use. Throws std::invalid_argument for an odd
  // QP number, an unparsable address or a QP reopened toward another peer.
  void post(std::uint32_t qp, const std::string& peer, std::uint64_t msg_id, std::uint64_t bytes, Instant now,
            std::int32_t path = kNoPath);
  // The sending QP `qp` moves to path `path` (QpDriver::move); false when it is not open.
  bool move(std::uint32_t qp, std::int32_t path, Duration lag, Instant now) {
    return driver_.move(qp, path, lag, now);
  }
  // The source port of path `k`'s socket.
  std::uint16_t path_port(std::uint32_t k) const { return path_ports_.at(k); }
  // The controller the sending QP `qp` opens with, instead of the config's (QpDriver).
  void set_controller(std::uint32_t qp, std::string cc, cc::CcParams params) {
    driver_.set_controller(qp, std::move(cc), std::move(params));
  }

  // Receives every datagram waiting, feeds the QPs, then sends every segment due at `now`.
  void poll(Instant now);
  // The earliest instant a QP wants to run; kNever when all are idle.
  Instant next_wakeup() const { return driver_.next_wakeup(); }
  // Sleeps until `until` (run time, `now` = the time the caller last read), a datagram
  // arrives or `other_fd` (if >= 0) becomes readable. `clock_offset_ns`: CLOCK_MONOTONIC of
  // run time 0.
  void wait(Instant until, Instant now, std::int64_t clock_offset_ns, int other_fd);

  std::vector<Delivery> take_deliveries() { return driver_.take_deliveries(); }

  const EndpointCounters& counters() const { return counters_; }
  // One-way delay of every data packet received, ns (sender timestamp to arrival).
  const LogHistogram& one_way_delay() const { return one_way_delay_; }
  // Raw one-way delays rounded to microseconds: value (us) -> count. For merging the
  // histograms of several processes exactly to 1 us.
  const std::map<std::int64_t, std::uint64_t>& one_way_delay_us() const { return driver_.one_way_delay_us(); }
  // The same for packets from another address than ours (on the bench: the other side, so
  // across the emulator).
  const std::map<std::int64_t, std::uint64_t>& one_way_delay_remote_us() const {
    return driver_.one_way_delay_remote_us();
  }

  using QpView = endpoints::QpView;
  std::vector<QpView> queue_pairs() const { return driver_.queue_pairs(); }

 private:
  void receive_all(Instant now);
  void receive_from(int fd, Instant now);
  void close_sockets();
  // SegmentWire: queues a datagram for the next sendmmsg (flush() when the batch is full).
  void transmit(const transport::Segment& s, const PeerAddress& to, std::int32_t path) override;
  void flush() override;
  // sendmmsg of out_[first, last), all from one socket.
  void send_batch(int fd, std::size_t first, std::size_t last);

  UdpEndpointConfig cfg_;
  int fd_ = -1;
  std::vector<int> path_fds_;  // per path
  std::vector<std::uint16_t> path_ports_;
  std::map<int, std::uint32_t> overflow_;  // SO_RXQ_OVFL per socket, as last read
  int epoll_fd_ = -1;
  std::uint16_t port_ = 0;
  EndpointCounters counters_;
  LogHistogram one_way_delay_;
  sockaddr_in bound_{};
  // Send batch (sendmmsg).
  struct Out {
    int fd = -1;
    sockaddr_in to{};
    std::uint8_t tos = 0;
    std::size_t size = 0;
  };
  std::vector<std::vector<std::uint8_t>> out_buffers_;
  std::vector<Out> out_;
  std::size_t out_count_ = 0;
  QpDriver driver_;
};

}  // namespace gw::endpoints
