#include "harness/live/emu_control.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
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

std::pair<int, std::string> EmuControl::request(const std::string& method, const std::string& path,
                                                const std::string& body, Duration timeout) const {
  const std::int64_t deadline = endpoints::monotonic_ns() + timeout.count();
  const std::string where =
      "the emulator's control endpoint 127.0.0.1:" + std::to_string(port_) + ", " + method + " " + path;
  Socket s{socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)};
  const sockaddr_in to = loopback(port_);
  if (s.fd < 0 ||
      (connect(s.fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0 && errno != EINPROGRESS)) {
    throw EnvironmentError(where + ": cannot connect: " + std::strerror(errno));
  }
  std::string text = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token_ +
                     "\r\nConnection: close\r\n";
  if (!body.empty()) {
    text += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  }
  text += "\r\n" + body;
  std::size_t sent = 0;
  while (sent < text.size()) {
    if (!ready(s.fd, POLLOUT, deadline)) {
      throw EnvironmentError(where + ": no connection within the timeout");
    }
    const ssize_t n = send(s.fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
      throw EnvironmentError(where + ": " + std::strerror(errno));
    }
    sent += n > 0 ? static_cast<std::size_t>(n) : 0;
  }
  std::string response;
  std::array<char, 16384> buf{};
  while (true) {
    if (!ready(s.fd, POLLIN, deadline)) {
      throw EnvironmentError(where + ": no whole answer within the timeout");
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
  const std::size_t end = response.find("\r\n\r\n");
  int status = 0;
  if (response.rfind("HTTP/1.1 ", 0) != 0 || end == std::string::npos ||
      std::sscanf(response.c_str() + 9, "%d", &status) != 1) {
    throw EnvironmentError(where + ": not an HTTP answer: \"" + response.substr(0, 80) + "\"");
  }
  return {status, response.substr(end + 4)};
}

nlohmann::json EmuControl::stats(Duration timeout) const {
  const auto [status, body] = request("GET", "/stats", "", timeout);
  if (status != 200) {
    throw EnvironmentError("the emulator's GET /stats answered " + std::to_string(status) + ": " + body);
  }
  try {
    return nlohmann::json::parse(body);
  } catch (const nlohmann::json::exception& e) {
    throw EnvironmentError(std::string("the emulator's GET /stats did not answer JSON: ") + e.what());
  }
}

void EmuControl::apply(const nlohmann::json& profile, Duration timeout) const {
  const auto [status, body] = request("POST", "/profile", profile.dump(), timeout);
  if (status != 200) {
    throw EnvironmentError("the emulator refused POST /profile (" + std::to_string(status) + "): " + body);
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
