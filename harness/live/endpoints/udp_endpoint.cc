#include "harness/live/endpoints/udp_endpoint.h"

#include <arpa/inet.h>
#include <netinet/ip.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "core/errors.h"
#include "emulator/fabric/path_ports.h"
#include "harness/live/endpoints/clock.h"
#include "harness/live/endpoints/wire.h"

namespace gw::endpoints {

namespace {

constexpr std::size_t kBatch = 32;               // datagrams per recvmmsg / sendmmsg
constexpr std::size_t kBufferBytes = 10 * 1024;  // one datagram (MTU 9000 + headers)

void set_buffer(int fd, int forced, int plain, int bytes) {
  if (setsockopt(fd, SOL_SOCKET, forced, &bytes, sizeof bytes) != 0) {
    (void)setsockopt(fd, SOL_SOCKET, plain, &bytes, sizeof bytes);  // unprivileged: capped by rmem_max
  }
}

}  // namespace

namespace {

// A non-blocking UDP socket with the endpoint's options, bound to `address`:`port`; -1 with
// `why` set when it cannot bind.
int bound_socket(const UdpEndpointConfig& cfg, std::uint16_t port, sockaddr_in& local, std::string& why) {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    throw EnvironmentError("endpoint: socket(): " + errno_text());
  }
  const int one = 1;
  (void)setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof one);
  (void)setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof one);
  set_buffer(fd, SO_SNDBUFFORCE, SO_SNDBUF, cfg.socket_buffer_bytes);
  set_buffer(fd, SO_RCVBUFFORCE, SO_RCVBUF, cfg.socket_buffer_bytes);
  local = sockaddr_in{};
  local.sin_family = AF_INET;
  local.sin_port = htons(port);
  if (inet_pton(AF_INET, cfg.bind_address.c_str(), &local.sin_addr) != 1) {
    close(fd);
    throw EnvironmentError("endpoint: not an IPv4 address: " + cfg.bind_address);
  }
  if (bind(fd, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0) {
    why = errno_text();
    close(fd);
    return -1;
  }
  socklen_t len = sizeof local;
  getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len);
  return fd;
}

}  // namespace

UdpEndpoint::UdpEndpoint(UdpEndpointConfig cfg)
    : cfg_(std::move(cfg)),
      driver_(QpSettings{cfg_.transport, cfg_.cc, cfg_.cc_params, cfg_.cc_context}, *this, counters_) {
  transport::validate(cfg_.transport);
  if (cfg_.paths > fabric::kMaxPaths) {
    throw std::invalid_argument("endpoint: at most " + std::to_string(fabric::kMaxPaths) + " paths");
  }
  // Timer slack 1 ns: epoll timeouts end when asked, not up to 50 us later (the default).
  (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  std::string why;
  fd_ = bound_socket(cfg_, cfg_.port, bound_, why);
  if (fd_ < 0) {
    throw EnvironmentError("endpoint: cannot bind UDP " + cfg_.bind_address + ":" +
                           std::to_string(cfg_.port) + ": " + why);
  }
  port_ = ntohs(bound_.sin_port);
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  const auto watch = [this](int fd) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    if (epoll_fd_ < 0 || epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
      throw EnvironmentError("endpoint: epoll: " + errno_text());
    }
  };
  try {
    watch(fd_);
    // Each path's socket takes the first free port of its range (two endpoints on one host
    // share the ranges).
    for (std::uint32_t k = 0; k < cfg_.paths; ++k) {
      int fd = -1;
      sockaddr_in local{};
      for (std::uint32_t i = 0; fd < 0 && i < fabric::kPathPortSpan; ++i) {
        fd = bound_socket(cfg_, fabric::path_port(k, i), local, why);
      }
      if (fd < 0) {
        throw EnvironmentError("endpoint: no free UDP port for path " + std::to_string(k) + ": " + why);
      }
      path_fds_.push_back(fd);
      path_ports_.push_back(ntohs(local.sin_port));
      watch(fd);
    }
  } catch (...) {
    close_sockets();
    throw;
  }
  out_buffers_.assign(kBatch, std::vector<std::uint8_t>(kBufferBytes));
  out_.resize(kBatch);
}

UdpEndpoint::~UdpEndpoint() {
  close_sockets();
}

void UdpEndpoint::close_sockets() {
  if (epoll_fd_ >= 0) {
    close(epoll_fd_);
    epoll_fd_ = -1;
  }
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
  for (int& fd : path_fds_) {
    close(fd);
  }
  path_fds_.clear();
}

void UdpEndpoint::post(std::uint32_t qp, const std::string& peer, std::uint64_t msg_id, std::uint64_t bytes,
                       Instant now, std::int32_t path) {
  QpDriver::require_sending_qp(qp);
  in_addr ip{};
  if (inet_pton(AF_INET, peer.c_str(), &ip) != 1) {
    throw std::invalid_argument("endpoint: not an IPv4 address: " + peer);
  }
  const PeerAddress to{ip.s_addr, htons(cfg_.peer_port)};
  if (const PeerAddress* open = driver_.peer(qp); open != nullptr && *open != to) {
    throw std::invalid_argument("endpoint: QP " + std::to_string(qp) + " is open toward " + peer_text(*open) +
                                ", not " + peer);
  }
  if (path != kNoPath && (path < 0 || static_cast<std::uint32_t>(path) >= cfg_.paths)) {
    throw std::invalid_argument("endpoint: QP " + std::to_string(qp) + " asked for path " +
                                std::to_string(path) + "; the endpoint has " + std::to_string(cfg_.paths));
  }
  driver_.post(qp, to, msg_id, bytes, now, path);
}

void UdpEndpoint::poll(Instant now) {
  receive_all(now);
  // Receiving halves first (their ACKs), then whatever those ACKs brought back over loopback
  // (both ends of a connection within one side live in this process), then everything due.
  // Otherwise, after the process was descheduled for longer than an RTO, a local connection's
  // retransmission timer would fire before the ACK waiting in this very process was sent.
  if (driver_.send_due(now, true)) {
    receive_all(now);
  }
  driver_.send_due(now, false);
}

void UdpEndpoint::receive_all(Instant now) {
  receive_from(fd_, now);
  for (const int fd : path_fds_) {
    receive_from(fd, now);
  }
}

void UdpEndpoint::receive_from(int fd, Instant now) {
  std::array<std::array<std::uint8_t, kBufferBytes>, 8> bufs;  // NOLINT: filled by the kernel
  std::array<mmsghdr, 8> msgs{};
  std::array<iovec, 8> iov{};
  std::array<sockaddr_in, 8> from{};
  std::array<std::array<char, CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(std::uint32_t)) +
                                  CMSG_SPACE(sizeof(timespec))>,
             8>
      control{};
  // Bounded so that a flood of arrivals cannot starve the sending side of the loop.
  for (int round = 0; round < 64; ++round) {
    for (std::size_t i = 0; i < msgs.size(); ++i) {
      iov[i] = {bufs[i].data(), bufs[i].size()};
      msgs[i] = {};
      msgs[i].msg_hdr.msg_name = &from[i];
      msgs[i].msg_hdr.msg_namelen = sizeof from[i];
      msgs[i].msg_hdr.msg_iov = &iov[i];
      msgs[i].msg_hdr.msg_iovlen = 1;
      msgs[i].msg_hdr.msg_control = control[i].data();
      msgs[i].msg_hdr.msg_controllen = control[i].size();
    }
    const int n = recvmmsg(fd, msgs.data(), static_cast<unsigned>(msgs.size()), MSG_DONTWAIT, nullptr);
    if (n <= 0) {
      return;
    }
    // Arrival: the clock read as the datagrams come out of the socket, so a `now` read before
    // the process waited for a CPU does not make them look early.
    const Instant arrival = std::max(now, at_ns(monotonic_ns() - cfg_.epoch_monotonic_ns));
    for (int i = 0; i < n; ++i) {
      std::uint8_t tos = 0;
      for (cmsghdr* c = CMSG_FIRSTHDR(&msgs[i].msg_hdr); c != nullptr; c = CMSG_NXTHDR(&msgs[i].msg_hdr, c)) {
        if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS) {
          std::memcpy(&tos, CMSG_DATA(c), 1);
        } else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
          std::uint32_t dropped = 0;
          std::memcpy(&dropped, CMSG_DATA(c), sizeof dropped);
          // Cumulative per socket, kept by the kernel: the endpoint's is their sum.
          std::uint32_t& was = overflow_[fd];
          counters_.socket_overflow += dropped - was;
          was = dropped;
        }
      }
      const bool remote = from[i].sin_addr.s_addr != bound_.sin_addr.s_addr;
      const std::uint16_t from_port = ntohs(from[i].sin_port);
      const std::int32_t path = cfg_.paths > 0 && from_port >= fabric::kPathPortBase
                                    ? static_cast<std::int32_t>(fabric::path_of_port(from_port))
                                    : kNoPath;
      const std::optional<Duration> owd = driver_.on_datagram(
          {bufs[i].data(), msgs[i].msg_len}, tos, {from[i].sin_addr.s_addr, from[i].sin_port}, remote,
          arrival, path < static_cast<std::int32_t>(cfg_.paths) ? path : kNoPath);
      if (owd) {
        one_way_delay_.record(ns_of(*owd));
      }
    }
    if (static_cast<std::size_t>(n) < msgs.size()) {
      return;
    }
  }
}

void UdpEndpoint::transmit(const transport::Segment& s, const PeerAddress& to, std::int32_t path) {
  Out& o = out_[out_count_];
  o.fd = path == kNoPath ? fd_ : path_fds_.at(static_cast<std::size_t>(path));
  o.size = encode_segment(s, out_buffers_[out_count_]);
  if (o.size == 0) {
    throw std::logic_error("endpoint: a segment does not fit a datagram buffer");
  }
  o.to = sockaddr_in{};
  o.to.sin_family = AF_INET;
  o.to.sin_port = to.port;
  o.to.sin_addr.s_addr = to.ip;
  o.tos = static_cast<std::uint8_t>(s.ecn);
  if (++out_count_ == kBatch) {
    flush();
  }
}

void UdpEndpoint::flush() {
  // One sendmmsg per run of datagrams from the same socket, in order.
  std::size_t first = 0;
  for (std::size_t i = 1; i <= out_count_; ++i) {
    if (i == out_count_ || out_[i].fd != out_[first].fd) {
      send_batch(out_[first].fd, first, i);
      first = i;
    }
  }
  out_count_ = 0;
}

void UdpEndpoint::send_batch(int fd, std::size_t first, std::size_t last) {
  std::array<mmsghdr, kBatch> msgs{};
  std::array<iovec, kBatch> iov{};
  std::array<std::array<char, CMSG_SPACE(sizeof(int))>, kBatch> control{};
  const std::size_t count = last - first;
  for (std::size_t j = 0; j < count; ++j) {
    const std::size_t i = first + j;
    iov[j] = {out_buffers_[i].data(), out_[i].size};
    msgs[j].msg_hdr.msg_name = &out_[i].to;
    msgs[j].msg_hdr.msg_namelen = sizeof out_[i].to;
    msgs[j].msg_hdr.msg_iov = &iov[j];
    msgs[j].msg_hdr.msg_iovlen = 1;
    msgs[j].msg_hdr.msg_control = control[j].data();
    msgs[j].msg_hdr.msg_controllen = control[j].size();
    cmsghdr* c = CMSG_FIRSTHDR(&msgs[j].msg_hdr);
    c->cmsg_level = IPPROTO_IP;
    c->cmsg_type = IP_TOS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    const int tos = out_[i].tos;
    std::memcpy(CMSG_DATA(c), &tos, sizeof tos);
  }
  std::size_t done = 0;
  int retries = 0;
  while (done < count) {
    const int n = sendmmsg(fd, msgs.data() + done, static_cast<unsigned>(count - done), MSG_DONTWAIT);
    if (n > 0) {
      for (std::size_t j = done; j < done + static_cast<std::size_t>(n); ++j) {
        ++counters_.datagrams_sent;
        counters_.bytes_sent += out_[first + j].size;
      }
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == ENOBUFS) && ++retries < 3) {
      continue;
    }
    // The host could not take it (buffer full, or an error such as no route): the datagram is
    // lost at the host, as a full NIC queue would lose it; the transport recovers it.
    ++counters_.send_dropped;
    ++done;
  }
}

void UdpEndpoint::wait(Instant until, Instant now, std::int64_t clock_offset_ns, int other_fd) {
  if (until <= now) {
    return;
  }
  if (other_fd >= 0) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = other_fd;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, other_fd, &ev) != 0 && errno != EEXIST) {
      throw EnvironmentError("endpoint: epoll_ctl: " + errno_text());
    }
  }
  const Duration left = until - now;
  const Duration spin = cfg_.spin_below;
  if (left > spin) {
    std::array<epoll_event, 2> events{};
    timespec* timeout = nullptr;
    timespec ts{};
    if (until != kNever) {
      const std::int64_t sleep_ns = ns_of(left - spin / 2);
      ts.tv_sec = sleep_ns / 1'000'000'000;
      ts.tv_nsec = sleep_ns % 1'000'000'000;
      timeout = &ts;
    }
    const int n = epoll_pwait2(epoll_fd_, events.data(), static_cast<int>(events.size()), timeout, nullptr);
    if (n != 0 || until == kNever || spin.count() == 0) {
      return;  // something to read (or EINTR), or no spin asked for: the caller polls
    }
  }
  // The last few microseconds: spin on the clock (a timer would overshoot them).
  const std::int64_t target = clock_offset_ns + ns_of(until);
  while (monotonic_ns() < target) {
  }
}

}  // namespace gw::endpoints
