#include "harness/live/emu_control.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "core/errors.h"
#include "harness/live/endpoints/clock.h"

namespace gw {

namespace {

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

// Closes the socket however the request ends.
struct Socket {
  int fd;
  ~Socket() {
    if (fd >= 0) {
      close(fd);
    }
  }
};

// Waits until `fd` is ready for `events` or the deadline (CLOCK_MONOTONIC ns) passes.
bool ready(int fd, short events, std::int64_t deadline) {
  const std::int64_t left_ms = (deadline - endpoints::monotonic_ns()) / 1'000'000;
  pollfd p{fd, events, 0};
  return left_ms >= 0 && ::poll(&p, 1, static_cast<int>(left_ms) + 1) == 1;
}

}  // namespace

nlohmann::json EmuControl::stats(Duration timeout) const {
  const std::int64_t deadline = endpoints::monotonic_ns() + timeout.count();
  const std::string where = "the emulator's control endpoint 127.0.0.1:" + std::to_string(port_);
  Socket s{socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)};
  const sockaddr_in to = loopback(port_);
  if (s.fd < 0 ||
      (connect(s.fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0 && errno != EINPROGRESS)) {
    throw EnvironmentError(where + ": cannot connect: " + std::strerror(errno));
  }
  const std::string request = "GET /stats HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token_ +
                              "\r\nConnection: close\r\n\r\n";
  std::size_t sent = 0;
  while (sent < request.size()) {
    if (!ready(s.fd, POLLOUT, deadline)) {
      throw EnvironmentError(where + ": no connection within the timeout");
    }
    const ssize_t n = send(s.fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
      throw EnvironmentError(where + ": " + std::strerror(errno));
    }
    sent += n > 0 ? static_cast<std::size_t>(n) : 0;
  }
  std::string response;
  std::array<char, 16384> buf{};
  while (true) {
    if (!ready(s.fd, POLLIN, deadline)) {
      throw EnvironmentError(where + ": no whole answer to GET /stats within the timeout");
    }
    const ssize_t n = recv(s.fd, buf.data(), buf.size(), 0);
    if (n == 0) {
      break;  // Connection: close ends the answer
    }
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
      throw EnvironmentError(where + ": " + std::strerror(errno));
    }
    response.append(buf.data(), n > 0 ? static_cast<std::size_t>(n) : 0);
  }
  const std::size_t body = response.find("\r\n\r\n");
  if (response.rfind("HTTP/1.1 200", 0) != 0 || body == std::string::npos) {
    throw EnvironmentError(where + ": GET /stats answered \"" + response.substr(0, response.find('\r')) +
                           "\"");
  }
  try {
    return nlohmann::json::parse(response.substr(body + 4));
  } catch (const nlohmann::json::exception& e) {
    throw EnvironmentError(where + ": GET /stats did not answer JSON: " + e.what());
  }
}

std::uint16_t EmuControl::free_port() {
  Socket s{socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  sockaddr_in a = loopback(0);
  socklen_t len = sizeof a;
  if (s.fd < 0 || bind(s.fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(s.fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    throw EnvironmentError(std::string("live mode: no free TCP port on 127.0.0.1: ") + std::strerror(errno));
  }
  return ntohs(a.sin_port);
}

}  // namespace gw
