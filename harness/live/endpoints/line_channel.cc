#include "harness/live/endpoints/line_channel.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "core/errors.h"
#include "harness/live/endpoints/clock.h"

namespace gw::endpoints {

LineChannel::LineChannel(int fd) : fd_(fd) {}

LineChannel::~LineChannel() {
  if (fd_ >= 0) {
    close(fd_);
  }
}

LineChannel::LineChannel(LineChannel&& other) noexcept
    : fd_(other.fd_), in_(std::move(other.in_)), pending_(std::move(other.pending_)), closed_(other.closed_) {
  other.fd_ = -1;
}

LineChannel LineChannel::connect(const std::string& path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (fd < 0 || path.size() >= sizeof addr.sun_path) {
    throw EnvironmentError("cannot open a unix socket for " + path);
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    const std::string why = std::strerror(errno);
    close(fd);
    throw EnvironmentError("cannot connect to " + path + ": " + why);
  }
  return LineChannel(fd);
}

bool LineChannel::send(const nlohmann::json& msg) {
  const std::string line = msg.dump() + "\n";
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::send(fd_, line.data() + done, line.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd_, POLLOUT, 0};
      (void)::poll(&p, 1, 100);
      continue;
    }
    if (n <= 0) {
      closed_ = true;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::vector<nlohmann::json> LineChannel::receive() {
  std::array<char, 65536> buf{};
  while (!closed_) {
    const ssize_t n = recv(fd_, buf.data(), buf.size(), MSG_DONTWAIT);
    if (n > 0) {
      in_.append(buf.data(), static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
      closed_ = true;
    } else if (errno == EINTR) {
      continue;
    }
    break;
  }
  std::vector<nlohmann::json> out;
  out.swap(pending_);
  std::size_t start = 0;
  for (std::size_t nl = in_.find('\n'); nl != std::string::npos; nl = in_.find('\n', start)) {
    out.push_back(nlohmann::json::parse(in_.begin() + static_cast<std::ptrdiff_t>(start),
                                        in_.begin() + static_cast<std::ptrdiff_t>(nl)));
    start = nl + 1;
  }
  in_.erase(0, start);
  return out;
}

std::optional<nlohmann::json> LineChannel::receive_one(Duration timeout) {
  const std::int64_t deadline = monotonic_ns() + timeout.count();
  while (true) {
    std::vector<nlohmann::json> got = receive();
    if (!got.empty()) {
      nlohmann::json first = std::move(got.front());
      pending_.insert(pending_.end(), std::make_move_iterator(got.begin() + 1),
                      std::make_move_iterator(got.end()));
      return first;
    }
    const std::int64_t left = deadline - monotonic_ns();
    if (closed_ || left <= 0) {
      return std::nullopt;
    }
    pollfd p{fd_, POLLIN, 0};
    (void)::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left / 1'000'000 + 1, 1000)));
  }
}

}  // namespace gw::endpoints
