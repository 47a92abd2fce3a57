#include "harness/live/endpoints/tcp_endpoint.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "core/errors.h"

namespace gw::endpoints {

namespace {

constexpr std::uint32_t kMagic = 0x47575443;  // "GWTC"
constexpr std::size_t kHeaderBytes = 32;
constexpr std::size_t kChunkBytes = 256 * 1024;  // one recv() / the zeros one send() takes at most

void put32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 3; i >= 0; --i) {
    p[i] = static_cast<std::uint8_t>(v);
    v >>= 8;
  }
}
void put64(std::uint8_t* p, std::uint64_t v) {
  for (int i = 7; i >= 0; --i) {
    p[i] = static_cast<std::uint8_t>(v);
    v >>= 8;
  }
}
std::uint32_t get32(const std::uint8_t* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    v = (v << 8) | p[i];
  }
  return v;
}
std::uint64_t get64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    v = (v << 8) | p[i];
  }
  return v;
}

std::string address_text(const sockaddr_in& a) {
  char buf[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &a.sin_addr, buf, sizeof buf);
  return std::string(buf) + ":" + std::to_string(ntohs(a.sin_port));
}

std::string available_controls() {
  std::ifstream in("/proc/sys/net/ipv4/tcp_available_congestion_control");
  std::string line;
  std::getline(in, line);
  return line;
}

bool set_congestion(int fd, const std::string& name) {
  return setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name.data(), static_cast<socklen_t>(name.size())) == 0;
}

}  // namespace

bool TcpEndpoint::congestion_control_allowed(const std::string& name, std::string& why) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
  if (fd < 0) {
    why = "cannot open a TCP socket: " + errno_text();
    return false;
  }
  const bool ok = !name.empty() && set_congestion(fd, name);
  if (!ok) {
    const int e = errno;
    why = "the kernel refuses TCP_CONGESTION \"" + name + "\": " +
          (name.empty()                ? std::string("empty name")
           : e == ENOENT               ? std::string("no such congestion control in this kernel")
           : e == EPERM || e == EACCES ? std::string("not allowed (net.ipv4.tcp_allowed_congestion_control)")
                                       : std::string(std::strerror(e))) +
          "; net.ipv4.tcp_available_congestion_control is \"" + available_controls() + "\"";
  }
  close(fd);
  return ok;
}

TcpEndpoint::TcpEndpoint(TcpEndpointConfig cfg) : cfg_(std::move(cfg)), scratch_(kChunkBytes) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (listen_fd_ < 0 || epoll_fd_ < 0) {
    throw EnvironmentError("tcp endpoint: cannot open a socket: " + errno_text());
  }
  const int one = 1;
  (void)setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  // Accepted sockets inherit the listener's controller: both ends run the same one.
  configure(listen_fd_, false);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(cfg_.port);
  if (inet_pton(AF_INET, cfg_.bind_address.c_str(), &a.sin_addr) != 1) {
    throw EnvironmentError("tcp endpoint: not an IPv4 address: " + cfg_.bind_address);
  }
  if (bind(listen_fd_, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0 || listen(listen_fd_, 64) != 0) {
    throw EnvironmentError("tcp endpoint: cannot listen on " + cfg_.bind_address + ":" +
                           std::to_string(cfg_.port) + ": " + errno_text());
  }
  socklen_t len = sizeof a;
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
  port_ = ntohs(a.sin_port);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = nullptr;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &ev);
}

TcpEndpoint::~TcpEndpoint() {
  for (auto& [qp, c] : sending_) {
    close(c->fd);
  }
  for (auto& c : accepted_) {
    close(c->fd);
  }
  close(listen_fd_);
  close(epoll_fd_);
}

void TcpEndpoint::configure(int fd, bool sending) const {
  if (!set_congestion(fd, cfg_.congestion_control)) {
    throw EnvironmentError("tcp endpoint: the kernel refuses TCP_CONGESTION \"" + cfg_.congestion_control +
                           "\": " + errno_text() + " (available: " + available_controls() + ")");
  }
  const int one = 1;
  // Messages are written whole as fast as the socket takes them; Nagle would only hold back
  // the tail of each one.
  (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (sending && cfg_.max_pacing_rate_bps > 0) {
    const std::uint64_t bytes_per_s = cfg_.max_pacing_rate_bps / 8;  // the option is in bytes/s
    if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &bytes_per_s, sizeof bytes_per_s) != 0) {
      throw EnvironmentError("tcp endpoint: SO_MAX_PACING_RATE refused: " + errno_text());
    }
  }
}

void TcpEndpoint::watch(Conn& c, bool out) {
  if (c.want_out == out) {
    return;
  }
  c.want_out = out;
  epoll_event ev{};
  ev.events = EPOLLIN | (out ? EPOLLOUT : 0u);
  ev.data.ptr = &c;
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c.fd, &ev);
}

void TcpEndpoint::post(std::uint32_t qp, const std::string& peer, std::uint64_t msg_id, std::uint64_t bytes,
                       Instant now) {
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(cfg_.peer_port);
  if (inet_pton(AF_INET, peer.c_str(), &to.sin_addr) != 1) {
    throw std::invalid_argument("tcp endpoint: not an IPv4 address: " + peer);
  }
  auto it = sending_.find(qp);
  if (it == sending_.end()) {
    auto c = std::make_unique<Conn>();
    c->qp = qp;
    c->sending = true;
    c->peer = to;
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
    if (c->fd < 0) {
      throw EnvironmentError("tcp endpoint: cannot open a socket: " + errno_text());
    }
    configure(c->fd, true);
    if (connect(c->fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0 && errno != EINPROGRESS) {
      throw EnvironmentError("tcp endpoint: connect to " + address_text(to) + ": " + errno_text());
    }
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLOUT;
    ev.data.ptr = c.get();
    c->want_out = true;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, c->fd, &ev);
    ++counters_.connections_opened;
    it = sending_.emplace(qp, std::move(c)).first;
  } else if (it->second->peer.sin_addr.s_addr != to.sin_addr.s_addr) {
    throw std::invalid_argument("tcp endpoint: queue pair " + std::to_string(qp) + " reused toward " + peer);
  }
  Outgoing o{};
  put32(o.header, kMagic);
  put32(o.header + 4, qp);
  put64(o.header + 8, msg_id);
  put64(o.header + 16, bytes);
  put64(o.header + 24, static_cast<std::uint64_t>(ns_of(now)));
  o.total = kHeaderBytes + bytes;
  it->second->out.push_back(o);
  ++counters_.messages_posted;
  watch(*it->second, true);
}

void TcpEndpoint::accept_all() {
  for (;;) {
    sockaddr_in from{};
    socklen_t len = sizeof from;
    const int fd =
        accept4(listen_fd_, reinterpret_cast<sockaddr*>(&from), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        return;
      }
      throw EnvironmentError("tcp endpoint: accept: " + errno_text());
    }
    auto c = std::make_unique<Conn>();
    c->fd = fd;
    c->peer = from;
    c->connected = true;
    const int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = c.get();
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
    ++counters_.connections_accepted;
    accepted_.push_back(std::move(c));
  }
}

void TcpEndpoint::read_from(Conn& c, Instant now) {
  while (!c.eof) {
    const ssize_t n = recv(c.fd, scratch_.data(), scratch_.size(), MSG_DONTWAIT);
    if (n == 0) {  // the peer closed: the end of the run (the socket stays open for TCP_INFO)
      epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c.fd, nullptr);
      c.eof = true;
      return;
    }
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        return;
      }
      throw EnvironmentError("tcp endpoint: recv from " + address_text(c.peer) + ": " + errno_text());
    }
    if (c.sending) {
      throw EnvironmentError("tcp endpoint: unexpected data from " + address_text(c.peer) +
                             " on a sending connection");
    }
    c.bytes_read += static_cast<std::uint64_t>(n);
    counters_.bytes_read += static_cast<std::uint64_t>(n);
    std::size_t pos = 0;
    const auto size = static_cast<std::size_t>(n);
    while (pos < size) {
      if (c.header_have < kHeaderBytes) {
        const std::size_t take = std::min(kHeaderBytes - c.header_have, size - pos);
        std::memcpy(c.header + c.header_have, scratch_.data() + pos, take);
        c.header_have += take;
        pos += take;
        if (c.header_have < kHeaderBytes) {
          break;
        }
        if (get32(c.header) != kMagic) {
          throw EnvironmentError("tcp endpoint: " + address_text(c.peer) +
                                 " does not speak gradwall's framing");
        }
        c.qp = get32(c.header + 4) + 1;
        c.msg_id = get64(c.header + 8);
        c.msg_bytes = get64(c.header + 16);
        c.posted_ns = static_cast<std::int64_t>(get64(c.header + 24));
        c.payload_left = c.msg_bytes;
      } else {
        const std::uint64_t take = std::min<std::uint64_t>(c.payload_left, size - pos);
        c.payload_left -= take;
        pos += static_cast<std::size_t>(take);
      }
      if (c.header_have == kHeaderBytes && c.payload_left == 0) {
        deliveries_.push_back({c.qp, c.msg_id, c.msg_bytes, at_ns(c.posted_ns), now});
        ++counters_.messages_delivered;
        c.header_have = 0;
      }
    }
  }
}

void TcpEndpoint::write_to(Conn& c) {
  if (!c.connected) {
    pollfd p{c.fd, POLLOUT, 0};
    if (::poll(&p, 1, 0) <= 0) {
      return;
    }
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      throw EnvironmentError("tcp endpoint: connect to " + address_text(c.peer) + ": " + std::strerror(err));
    }
    c.connected = true;
    if (cfg_.on_connected) {
      cfg_.on_connected(c.fd);
    }
  }
  static const std::vector<std::uint8_t> zeros(kChunkBytes, 0);
  while (!c.out.empty()) {
    Outgoing& o = c.out.front();
    iovec iov[2];
    int n_iov = 0;
    if (o.done < kHeaderBytes) {
      iov[n_iov++] = {o.header + o.done, static_cast<std::size_t>(kHeaderBytes - o.done)};
    }
    const std::uint64_t payload_done = o.done > kHeaderBytes ? o.done - kHeaderBytes : 0;
    const std::uint64_t payload_left = o.total - kHeaderBytes - payload_done;
    if (payload_left > 0) {
      iov[n_iov++] = {const_cast<std::uint8_t*>(zeros.data()),
                      static_cast<std::size_t>(std::min<std::uint64_t>(payload_left, zeros.size()))};
    }
    msghdr m{};
    m.msg_iov = iov;
    m.msg_iovlen = static_cast<std::size_t>(n_iov);
    const ssize_t n = sendmsg(c.fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        watch(c, true);
        return;
      }
      throw EnvironmentError("tcp endpoint: send to " + address_text(c.peer) + ": " + errno_text());
    }
    o.done += static_cast<std::uint64_t>(n);
    c.bytes_written += static_cast<std::uint64_t>(n);
    counters_.bytes_written += static_cast<std::uint64_t>(n);
    if (o.done == o.total) {
      c.out.pop_front();
    }
  }
  watch(c, false);
}

void TcpEndpoint::poll(Instant now) {
  accept_all();
  for (auto& c : accepted_) {
    read_from(*c, now);
  }
  for (auto& [qp, c] : sending_) {
    read_from(*c, now);
    write_to(*c);
  }
}

void TcpEndpoint::wait(Instant until, Instant now, int other_fd) {
  const std::int64_t left_ns =
      until == kNever ? 50'000'000 : std::max<std::int64_t>(0, ns_of(until) - ns_of(now));
  const int timeout_ms = static_cast<int>(std::min<std::int64_t>((left_ns + 999'999) / 1'000'000, 50));
  if (other_fd >= 0) {
    // The sockets (through the epoll descriptor, readable when one of them is ready) and
    // the coordinator's channel in one poll().
    pollfd fds[2] = {{epoll_fd_, POLLIN, 0}, {other_fd, POLLIN, 0}};
    (void)::poll(fds, 2, timeout_ms);
    return;
  }
  pollfd p{epoll_fd_, POLLIN, 0};
  (void)::poll(&p, 1, timeout_ms);
}

std::vector<Delivery> TcpEndpoint::take_deliveries() {
  std::vector<Delivery> out;
  out.swap(deliveries_);
  return out;
}

std::vector<TcpConnectionInfo> TcpEndpoint::connections() const {
  std::vector<TcpConnectionInfo> out;
  auto info_of = [](const Conn& c) {
    TcpConnectionInfo i;
    i.qp = c.qp;
    i.sending = c.sending;
    i.peer = address_text(c.peer);
    i.bytes_written = c.bytes_written;
    i.bytes_read = c.bytes_read;
    char name[32] = {};
    socklen_t len = sizeof name;
    if (getsockopt(c.fd, IPPROTO_TCP, TCP_CONGESTION, name, &len) == 0) {
      i.congestion_control.assign(name, strnlen(name, sizeof name));
    }
    tcp_info t{};
    len = sizeof t;
    if (getsockopt(c.fd, IPPROTO_TCP, TCP_INFO, &t, &len) == 0) {
      i.srtt_ns = static_cast<std::int64_t>(t.tcpi_rtt) * 1000;
      i.min_rtt_ns = static_cast<std::int64_t>(t.tcpi_min_rtt) * 1000;
      i.cwnd_bytes = static_cast<std::uint64_t>(t.tcpi_snd_cwnd) * t.tcpi_snd_mss;
      i.total_retrans = t.tcpi_total_retrans;
      i.bytes_retrans = t.tcpi_bytes_retrans;
      i.bytes_acked = t.tcpi_bytes_acked;
      i.bytes_received = t.tcpi_bytes_received;
      i.data_segs_out = t.tcpi_data_segs_out;
      i.segs_out = t.tcpi_segs_out;
      i.pacing_rate_bps = t.tcpi_pacing_rate * 8;
      i.max_pacing_rate_bps = t.tcpi_max_pacing_rate == ~0ULL ? 0 : t.tcpi_max_pacing_rate * 8;
      i.delivery_rate_bps = t.tcpi_delivery_rate * 8;
    }
    return i;
  };
  for (const auto& [qp, c] : sending_) {
    out.push_back(info_of(*c));
  }
  for (const auto& c : accepted_) {
    out.push_back(info_of(*c));
  }
  return out;
}

}  // namespace gw::endpoints
