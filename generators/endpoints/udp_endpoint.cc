#include "generators/endpoints/udp_endpoint.h"

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
#include "generators/endpoints/clock.h"
#include "generators/endpoints/wire.h"

namespace gw::endpoints {

namespace {

constexpr std::size_t kBatch = 32;               // datagrams per recvmmsg / sendmmsg
constexpr std::size_t kBufferBytes = 10 * 1024;  // one datagram (MTU 9000 + headers)
constexpr int kPollsPerQp = 64;                  // segments one QP may emit per round (fairness)
// How far behind a late QP may be polled: a stall up to this long (an endpoint waiting for a
// CPU on a loaded host) costs no rate, it leaves as a burst afterwards (at 45 Mbit/s, 20 ms is
// 77 packets of 1.4 KB, which the emulator's queue smooths); a longer one loses the rest.
constexpr Duration kCatchUp{20'000'000};

std::string errno_text() {
  return std::strerror(errno);
}

void set_buffer(int fd, int forced, int plain, int bytes) {
  if (setsockopt(fd, SOL_SOCKET, forced, &bytes, sizeof bytes) != 0) {
    (void)setsockopt(fd, SOL_SOCKET, plain, &bytes, sizeof bytes);  // unprivileged: capped by rmem_max
  }
}

std::string address_text(const sockaddr_in& a) {
  std::array<char, INET_ADDRSTRLEN> text{};
  inet_ntop(AF_INET, &a.sin_addr, text.data(), text.size());
  return std::string(text.data()) + ":" + std::to_string(ntohs(a.sin_port));
}

}  // namespace

UdpEndpoint::UdpEndpoint(UdpEndpointConfig cfg) : cfg_(std::move(cfg)) {
  transport::validate(cfg_.transport);
  // Timer slack 1 ns: epoll timeouts end when asked, not up to 50 us later (the default).
  (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    throw EnvironmentError("endpoint: socket(): " + errno_text());
  }
  const int one = 1;
  (void)setsockopt(fd_, IPPROTO_IP, IP_RECVTOS, &one, sizeof one);
  (void)setsockopt(fd_, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof one);
  set_buffer(fd_, SO_SNDBUFFORCE, SO_SNDBUF, cfg_.socket_buffer_bytes);
  set_buffer(fd_, SO_RCVBUFFORCE, SO_RCVBUF, cfg_.socket_buffer_bytes);
  sockaddr_in local{};
  local.sin_family = AF_INET;
  local.sin_port = htons(cfg_.port);
  if (inet_pton(AF_INET, cfg_.bind_address.c_str(), &local.sin_addr) != 1) {
    close(fd_);
    throw EnvironmentError("endpoint: not an IPv4 address: " + cfg_.bind_address);
  }
  if (bind(fd_, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0) {
    const std::string why = errno_text();
    close(fd_);
    throw EnvironmentError("endpoint: cannot bind UDP " + cfg_.bind_address + ":" +
                           std::to_string(cfg_.port) + ": " + why);
  }
  socklen_t len = sizeof local;
  getsockname(fd_, reinterpret_cast<sockaddr*>(&local), &len);
  port_ = ntohs(local.sin_port);
  bound_ = local;
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = fd_;
  if (epoll_fd_ < 0 || epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd_, &ev) != 0) {
    const std::string why = errno_text();
    close(fd_);
    throw EnvironmentError("endpoint: epoll: " + why);
  }
  out_buffers_.assign(kBatch, std::vector<std::uint8_t>(kBufferBytes));
  out_.resize(kBatch);
}

UdpEndpoint::~UdpEndpoint() {
  if (epoll_fd_ >= 0) {
    close(epoll_fd_);
  }
  if (fd_ >= 0) {
    close(fd_);
  }
}

UdpEndpoint::Slot& UdpEndpoint::open(std::uint32_t qp, const sockaddr_in& peer, bool sending) {
  Slot slot;
  cc::CcContext ctx = cfg_.cc_context;
  ctx.mss_bytes = cfg_.transport.mtu_bytes;
  slot.qp = std::make_unique<transport::QueuePair>(
      cfg_.transport, qp, sending ? qp + 1 : qp - 1,
      cc::make_congestion_control(sending ? cfg_.cc : "fixed", ctx,
                                  sending ? cfg_.cc_params : cc::CcParams{}));
  slot.peer = peer;
  slot.sending = sending;
  return slots_.emplace(qp, std::move(slot)).first->second;
}

void UdpEndpoint::post(std::uint32_t qp, const std::string& peer, std::uint64_t msg_id, std::uint64_t bytes,
                       Instant now) {
  if (qp % 2 != 0) {
    throw std::invalid_argument("endpoint: sending QP numbers are even, got " + std::to_string(qp));
  }
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(cfg_.peer_port);
  if (inet_pton(AF_INET, peer.c_str(), &to.sin_addr) != 1) {
    throw std::invalid_argument("endpoint: not an IPv4 address: " + peer);
  }
  auto it = slots_.find(qp);
  Slot* slot = nullptr;
  if (it == slots_.end()) {
    slot = &open(qp, to, true);
  } else {
    slot = &it->second;
    if (slot->peer.sin_addr.s_addr != to.sin_addr.s_addr || slot->peer.sin_port != to.sin_port) {
      throw std::invalid_argument("endpoint: QP " + std::to_string(qp) + " is open toward " +
                                  address_text(slot->peer) + ", not " + peer);
    }
  }
  slot->last_now = std::max(slot->last_now, now);
  slot->qp->post_message(slot->last_now, msg_id, bytes);
  schedule(*slot, qp, now);
}

void UdpEndpoint::schedule(Slot& slot, std::uint32_t qp, Instant now) {
  if (slot.due != kNever) {
    due_.erase({slot.due, qp});
  }
  const Instant next = slot.qp->next_wakeup();
  slot.due = next == kNever ? kNever : std::max(next, now);
  if (slot.due != kNever) {
    due_.insert({slot.due, qp});
  }
}

void UdpEndpoint::collect(Slot& slot, std::uint32_t qp) {
  for (const transport::Completion& c : slot.qp->completions()) {
    if (c.kind == transport::CompletionKind::kReceived) {
      deliveries_.push_back(Delivery{qp, c.msg_id, c.bytes, c.posted, c.completed});
    }
  }
  slot.qp->clear_completions();
}

void UdpEndpoint::poll(Instant now) {
  receive_all(now);
  // Receiving halves first (their ACKs), then whatever those ACKs brought back over loopback
  // (both ends of a connection within one side live in this process), then everything due.
  // Otherwise, after the process was descheduled for longer than an RTO, a local connection's
  // retransmission timer would fire before the ACK waiting in this very process was sent.
  if (send_due(now, true)) {
    receive_all(now);
  }
  send_due(now, false);
}

void UdpEndpoint::receive_all(Instant now) {
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
    const int n = recvmmsg(fd_, msgs.data(), static_cast<unsigned>(msgs.size()), MSG_DONTWAIT, nullptr);
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
          counters_.socket_overflow = dropped;  // cumulative, kept by the kernel
        }
      }
      on_datagram(bufs[i].data(), msgs[i].msg_len, from[i], tos, arrival);
    }
    if (static_cast<std::size_t>(n) < msgs.size()) {
      return;
    }
  }
}

void UdpEndpoint::on_datagram(const std::uint8_t* data, std::size_t size, const sockaddr_in& from,
                              std::uint8_t tos, Instant now) {
  ++counters_.datagrams_received;
  counters_.bytes_received += size;
  const auto ecn = static_cast<transport::Ecn>(tos & 0x3);
  std::optional<transport::Segment> s = decode_segment({data, size}, 0, ecn);
  if (!s) {
    ++counters_.undecodable;
    return;
  }
  auto it = slots_.find(s->dst_qp);
  Slot* slot = nullptr;
  if (it != slots_.end()) {
    slot = &it->second;
  } else if (s->kind == transport::SegmentKind::kData && s->dst_qp % 2 == 1) {
    slot = &open(s->dst_qp, from, false);  // replies go back where the data came from
    ++counters_.receiving_qps_opened;
  } else {
    ++counters_.unknown_qp;
    return;
  }
  s->src_qp = slot->qp->remote_qp();
  if (slot->sending && slot->due <= now) {
    // What the QP should have sent before this arrival leaves first, at its own instants.
    // Fed the arrival first, the QP's clock would jump to the arrival time and every packet
    // due before it would be paced from there: each late wakeup would cost its lateness and
    // the long-run rate would fall short of the pacing rate (by ~30 % at 45 Mbit/s here).
    emit(*slot, s->dst_qp, now);
  }
  // `now` is the arrival time (read after now was); the QP must never see its time go back.
  const Instant qp_now = std::max(slot->last_now, now);
  slot->last_now = qp_now;
  if (s->kind == transport::SegmentKind::kData) {
    const std::int64_t owd = ns_of(now) - ns_of(s->sent);
    if (owd >= 0) {
      one_way_delay_.record(owd);
      ++owd_us_[owd / 1000];
      if (from.sin_addr.s_addr != bound_.sin_addr.s_addr) {
        ++owd_remote_us_[owd / 1000];
      }
    }
  }
  slot->qp->on_segment(qp_now, *s);
  collect(*slot, s->dst_qp);
  schedule(*slot, s->dst_qp, qp_now);
}

bool UdpEndpoint::send_due(Instant now, bool receivers_only) {
  std::vector<std::uint32_t> due;
  for (auto it = due_.begin(); it != due_.end() && it->first <= now; ++it) {
    if (!receivers_only || !slots_.at(it->second).sending) {
      due.push_back(it->second);
    }
  }
  bool sent = false;
  for (const std::uint32_t qp : due) {
    Slot& slot = slots_.at(qp);
    const int emitted = emit(slot, qp, now);
    sent = sent || emitted > 0;
    if (emitted == 0 && slot.due <= now) {
      // Due but nothing to send (a closed window): ask again a nanosecond later rather than
      // spinning at one instant (as the simulator's host does).
      due_.erase({slot.due, qp});
      slot.due = now + Duration{1};
      due_.insert({slot.due, qp});
    }
  }
  flush();
  return sent;
}

int UdpEndpoint::emit(Slot& slot, std::uint32_t qp, Instant now) {
  // Late wakeups (a timer, a descheduled process) must not slow the pacing down: the QP
  // paces each packet from the instant it is polled, so a QP that wanted to run at `due`
  // is polled at the instants it asked for, up to kCatchUp in the past, and the packets
  // that fell due meanwhile leave now as a burst. They carry those instants as their send
  // time, so the one-way delays and RTTs measured include the lateness.
  Instant t = std::max({slot.due, slot.last_now, now - kCatchUp});
  int emitted = 0;
  while (emitted < kPollsPerQp) {
    std::optional<transport::Segment> s = slot.qp->poll(t);
    slot.last_now = t;
    if (s) {
      ++emitted;
      Out& o = out_[out_count_];
      o.size = encode_segment(*s, out_buffers_[out_count_]);
      if (o.size == 0) {
        throw std::logic_error("endpoint: a segment does not fit a datagram buffer");
      }
      o.to = slot.peer;
      o.tos = static_cast<std::uint8_t>(s->ecn);
      if (++out_count_ == kBatch) {
        flush();
      }
    }
    const Instant next = slot.qp->next_wakeup();
    if (next > now || (next <= t && !s)) {
      break;  // nothing due before the real time, or due but nothing to send (closed window)
    }
    t = std::max(t, next);
  }
  collect(slot, qp);
  schedule(slot, qp, now);
  return emitted;
}

void UdpEndpoint::flush() {
  std::array<mmsghdr, kBatch> msgs{};
  std::array<iovec, kBatch> iov{};
  std::array<std::array<char, CMSG_SPACE(sizeof(int))>, kBatch> control{};
  for (std::size_t i = 0; i < out_count_; ++i) {
    iov[i] = {out_buffers_[i].data(), out_[i].size};
    msgs[i].msg_hdr.msg_name = &out_[i].to;
    msgs[i].msg_hdr.msg_namelen = sizeof out_[i].to;
    msgs[i].msg_hdr.msg_iov = &iov[i];
    msgs[i].msg_hdr.msg_iovlen = 1;
    msgs[i].msg_hdr.msg_control = control[i].data();
    msgs[i].msg_hdr.msg_controllen = control[i].size();
    cmsghdr* c = CMSG_FIRSTHDR(&msgs[i].msg_hdr);
    c->cmsg_level = IPPROTO_IP;
    c->cmsg_type = IP_TOS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    const int tos = out_[i].tos;
    std::memcpy(CMSG_DATA(c), &tos, sizeof tos);
  }
  std::size_t done = 0;
  int retries = 0;
  while (done < out_count_) {
    const int n = sendmmsg(fd_, msgs.data() + done, static_cast<unsigned>(out_count_ - done), MSG_DONTWAIT);
    if (n > 0) {
      for (std::size_t i = done; i < done + static_cast<std::size_t>(n); ++i) {
        ++counters_.datagrams_sent;
        counters_.bytes_sent += out_[i].size;
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
  out_count_ = 0;
}

Instant UdpEndpoint::next_wakeup() const {
  return due_.empty() ? kNever : due_.begin()->first;
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

std::vector<Delivery> UdpEndpoint::take_deliveries() {
  std::vector<Delivery> out;
  out.swap(deliveries_);
  return out;
}

std::vector<UdpEndpoint::QpView> UdpEndpoint::queue_pairs() const {
  std::vector<QpView> out;
  for (const auto& [qp, slot] : slots_) {
    out.push_back(QpView{qp, slot.sending, address_text(slot.peer), slot.qp.get()});
  }
  return out;
}

}  // namespace gw::endpoints
