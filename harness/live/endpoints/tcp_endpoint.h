// A live endpoint on kernel TCP sockets: the baseline beside the user-space stack
// (udp_endpoint.h). The same messages the collective schedules post ("message M of N bytes on
// connection q to peer P") are carried by the kernel's TCP, one connection per sending queue
// pair, with the congestion control set per socket (TCP_CONGESTION: cubic, bbr, reno, ...)
// and, when given, a pacing cap (SO_MAX_PACING_RATE; TCP's internal pacing, no fq qdisc
// needed). Nothing of gradwall's transport runs here: this is what the kernel does with the
// same bytes through the same emulator.
//
// Framing on the stream: each message is a 32-byte header (magic "GWTC", the sending queue
// pair's number, message id, length, post time in run-time ns) followed by `length` zero
// bytes. The receiver delivers a message when its last byte has been read.
//
// Accounting: TCP hides packets, so the endpoint counts bytes: bytes_written (accepted by
// send()) and bytes_read (returned by recv()), headers included. When every message has been
// delivered, the bytes written on one side equal those read on the other. TCP_INFO gives each
// connection's retransmissions, cwnd, srtt and the name of the controller the kernel used.
//
// Driving it (one thread), like UdpEndpoint: post(...) any time, poll(now), wait(...).
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/time.h"
#include "harness/live/endpoints/qp_driver.h"  // Delivery

namespace gw::endpoints {

struct TcpEndpointConfig {
  std::string bind_address = "0.0.0.0";      // IPv4
  std::uint16_t port = 4792;                 // listening port; 0: any free port (tests over loopback)
  std::uint16_t peer_port = 4792;            // where peers listen
  std::string congestion_control = "cubic";  // TCP_CONGESTION of every socket
  std::uint64_t max_pacing_rate_bps = 0;     // SO_MAX_PACING_RATE per sending socket; 0: none
  // Called with each sending socket once it is connected, before it carries data (the host
  // pacer gives the connection its rate there, live_tcp_endpoint.cc).
  std::function<void(int fd)> on_connected;
};

struct TcpCounters {
  std::uint64_t bytes_written = 0;  // accepted by send(), headers included
  std::uint64_t bytes_read = 0;     // returned by recv(), headers included
  std::uint64_t messages_posted = 0;
  std::uint64_t messages_delivered = 0;
  std::uint64_t connections_opened = 0;    // connect()ed by this side
  std::uint64_t connections_accepted = 0;  // accepted from the other side or this one
};

// A connection's TCP_INFO (linux/tcp.h), in gradwall's units.
struct TcpConnectionInfo {
  std::uint32_t qp = 0;  // the sending queue pair's number (the receiving end: qp + 1)
  bool sending = false;
  std::string peer;                // address:port
  std::string congestion_control;  // getsockopt(TCP_CONGESTION): what the kernel runs
  std::int64_t srtt_ns = 0;
  std::int64_t min_rtt_ns = 0;
  std::uint64_t cwnd_bytes = 0;  // snd_cwnd x snd_mss
  std::uint64_t total_retrans = 0;
  std::uint64_t bytes_retrans = 0;
  std::uint64_t bytes_acked = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t data_segs_out = 0;
  std::uint64_t segs_out = 0;
  std::uint64_t pacing_rate_bps = 0;
  std::uint64_t max_pacing_rate_bps = 0;  // SO_MAX_PACING_RATE; 0: none
  std::uint64_t delivery_rate_bps = 0;
  std::uint64_t bytes_written = 0;  // by this endpoint on this connection
  std::uint64_t bytes_read = 0;
};

class TcpEndpoint {
 public:
  // Opens the listening socket with the controller set (so accepted sockets inherit it).
  // Throws EnvironmentError when it cannot, also for a controller the kernel refuses (the CLI
  // checks the names with congestion_control_allowed() before a run starts: exit 2 there).
  explicit TcpEndpoint(TcpEndpointConfig cfg);
  ~TcpEndpoint();
  TcpEndpoint(const TcpEndpoint&) = delete;
  TcpEndpoint& operator=(const TcpEndpoint&) = delete;

  std::uint16_t port() const { return port_; }

  // Queues a message of `bytes` on the connection of sending queue pair `qp` toward `peer`
  // (IPv4 dotted quad, the config's peer_port), connected on first use. Throws
  // std::invalid_argument for an unparsable address or a queue pair reused toward another peer.
  void post(std::uint32_t qp, const std::string& peer, std::uint64_t msg_id, std::uint64_t bytes,
            Instant now);
  // A scenario flow's own controller: ignored. A kernel TCP baseline runs every connection
  // with the baseline's controller (--baselines NAME), which is what it compares.
  void set_controller(std::uint32_t /*qp*/, const std::string& /*cc*/, const cc::CcParams& /*params*/) {}
  // Accepts, reads and writes whatever the sockets allow now. Throws EnvironmentError when a
  // connection fails (refused, reset) or a peer sends what is not this framing.
  void poll(Instant now);
  // Sleeps until `until`, a socket is ready or `other_fd` (if >= 0) is readable.
  void wait(Instant until, Instant now, int other_fd);

  std::vector<Delivery> take_deliveries();
  const TcpCounters& counters() const { return counters_; }
  std::vector<TcpConnectionInfo> connections() const;

  // True when `name` can be set as TCP_CONGESTION on a socket here; else false and `why`.
  static bool congestion_control_allowed(const std::string& name, std::string& why);

 private:
  struct Outgoing {
    std::uint8_t header[32];
    std::uint64_t total = 0;  // header + payload
    std::uint64_t done = 0;
  };
  struct Conn {
    int fd = -1;
    std::uint32_t qp = 0;
    bool sending = false;
    bool connected = false;
    bool want_out = false;  // EPOLLOUT registered
    bool eof = false;       // the peer closed its end
    sockaddr_in peer{};
    std::deque<Outgoing> out;
    // receiving: the header being read, then the payload left of the current message
    std::uint8_t header[32];
    std::size_t header_have = 0;
    std::uint64_t msg_id = 0;
    std::uint64_t msg_bytes = 0;
    std::uint64_t payload_left = 0;
    std::int64_t posted_ns = 0;
    std::uint64_t bytes_written = 0;
    std::uint64_t bytes_read = 0;
  };
  void configure(int fd, bool sending) const;
  void watch(Conn& c, bool out);
  void accept_all();
  void read_from(Conn& c, Instant now);
  void write_to(Conn& c);

  TcpEndpointConfig cfg_;
  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  std::uint16_t port_ = 0;
  std::map<std::uint32_t, std::unique_ptr<Conn>> sending_;  // by queue pair
  std::vector<std::unique_ptr<Conn>> accepted_;
  std::vector<Delivery> deliveries_;
  TcpCounters counters_;
  std::vector<std::uint8_t> scratch_;
};

}  // namespace gw::endpoints
