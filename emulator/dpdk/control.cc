#include "emulator/dpdk/control.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

#include "core/errors.h"
#include "core/http_request.h"
#include "core/json_reader.h"
#include "emulator/dpdk/exchange.h"
#include "emulator/dpdk/forwarder.h"
#include "emulator/engine/profile.h"

namespace gw {
namespace {

// A whole request must arrive within this: a client sending a byte every second would
// otherwise hold the endpoint (it serves one connection at a time) for hours.
constexpr auto kRequestDeadline = std::chrono::seconds(5);

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) {
    return {};
  }
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// Reads one request within kRequestDeadline; the reader says why when it is not one.
HttpRequestReader::State read_request(int fd, HttpRequestReader& reader) {
  const auto deadline = std::chrono::steady_clock::now() + kRequestDeadline;
  char chunk[4096];
  while (reader.state() == HttpRequestReader::State::kNeedMore) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) <= 0) {
      return HttpRequestReader::State::kNeedMore;  // too slow
    }
    const ssize_t n = recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) {
      return HttpRequestReader::State::kNeedMore;  // closed early
    }
    reader.feed(std::string_view(chunk, static_cast<std::size_t>(n)));
  }
  return reader.state();
}

void respond(int fd, int status, const nlohmann::json& body) {
  const char* reason = status == 200   ? "OK"
                       : status == 400 ? "Bad Request"
                       : status == 401 ? "Unauthorized"
                       : status == 404 ? "Not Found"
                       : status == 408 ? "Request Timeout"
                                       : "Service Unavailable";
  const std::string text = body.dump(2) + "\n";
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + reason +
                    "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(text.size()) +
                    "\r\nConnection: close\r\n";
  if (status == 401) {
    out += "WWW-Authenticate: Bearer\r\n";
  }
  out += "\r\n" + text;
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = send(fd, out.data() + done, out.size() - done, MSG_NOSIGNAL);
    if (n <= 0) {
      return;
    }
    done += static_cast<std::size_t>(n);
  }
}

// Compares without an early exit, so the time taken does not tell how much of a guess matched.
bool same_token(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = static_cast<unsigned char>(diff | (a[i] ^ (i < b.size() ? b[i] : 0)));
  }
  return diff == 0;
}

}  // namespace

std::string read_token_file(const std::string& file) {
  std::ifstream f(file);
  std::string line;
  if (!f || !std::getline(f, line)) {
    throw InputError(file, "", "cannot read the control token file");
  }
  line = trim(line);
  if (line.empty()) {
    throw InputError(file, "", "the control token (first line) is empty");
  }
  return line;
}

ListenAddress parse_listen_address(const std::string& option, const std::string& text) {
  const std::string usage =
      "must be PORT, IPV4:PORT or [IPV6]:PORT (e.g. 9465, 127.0.0.1:9465, [::1]:9465), got '" + text + "'";
  ListenAddress a;
  std::string port_text = text;
  a.host = "127.0.0.1";
  if (!text.empty() && text.front() == '[') {
    const auto close_bracket = text.find(']');
    if (close_bracket == std::string::npos || close_bracket + 1 >= text.size() ||
        text[close_bracket + 1] != ':') {
      throw InputError(option, "", usage);
    }
    a.host = text.substr(1, close_bracket - 1);
    a.ipv6 = true;
    port_text = text.substr(close_bracket + 2);
  } else if (const auto colon = text.rfind(':'); colon != std::string::npos) {
    if (text.find(':') != colon) {
      throw InputError(option, "", usage + " (an IPv6 address goes in brackets)");
    }
    if (colon > 0) {
      a.host = text.substr(0, colon);
    }
    port_text = text.substr(colon + 1);
  }
  if (port_text.empty() || port_text.size() > 5 ||
      port_text.find_first_not_of("0123456789") != std::string::npos || std::stoi(port_text) > 65535) {
    throw InputError(option, "", usage);
  }
  a.port = static_cast<std::uint16_t>(std::stoi(port_text));
  if (a.ipv6) {
    in6_addr v6{};
    if (inet_pton(AF_INET6, a.host.c_str(), &v6) != 1) {
      throw InputError(option, "", usage);
    }
    const bool mapped_loopback = IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
    a.loopback = IN6_IS_ADDR_LOOPBACK(&v6) || mapped_loopback;
  } else {
    in_addr v4{};
    if (inet_pton(AF_INET, a.host.c_str(), &v4) != 1) {
      throw InputError(option, "", usage);
    }
    a.loopback = (ntohl(v4.s_addr) >> 24) == 127;
  }
  return a;
}

std::string ListenAddress::text() const {
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

ControlServer::ControlServer(const ListenAddress& address, std::string token, Exchange& exchange, Hooks hooks)
    : token_(std::move(token)), exchange_(exchange), hooks_(std::move(hooks)) {
  if (token_.empty()) {
    throw InputError("--control-token-file", "", "the token is empty");
  }
  sockaddr_storage ss{};
  socklen_t ss_len = 0;
  if (address.ipv6) {
    auto* sa6 = reinterpret_cast<sockaddr_in6*>(&ss);
    sa6->sin6_family = AF_INET6;
    sa6->sin6_port = htons(address.port);
    (void)inet_pton(AF_INET6, address.host.c_str(), &sa6->sin6_addr);
    ss_len = sizeof(sockaddr_in6);
  } else {
    auto* sa4 = reinterpret_cast<sockaddr_in*>(&ss);
    sa4->sin_family = AF_INET;
    sa4->sin_port = htons(address.port);
    (void)inet_pton(AF_INET, address.host.c_str(), &sa4->sin_addr);
    ss_len = sizeof(sockaddr_in);
  }
  listen_fd_ = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  (void)setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (address.ipv6) {
    (void)setsockopt(listen_fd_, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  }
  if (listen_fd_ < 0 || bind(listen_fd_, reinterpret_cast<sockaddr*>(&ss), ss_len) != 0 ||
      listen(listen_fd_, 8) != 0) {
    const std::string why = std::strerror(errno);
    if (listen_fd_ >= 0) {
      close(listen_fd_);
    }
    throw EnvironmentError("--control: cannot listen on " + address.text() + ": " + why);
  }
  socklen_t len = sizeof ss;
  (void)getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&ss), &len);
  port_ = ntohs(address.ipv6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                             : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  thread_ = std::thread([this] { serve(); });
}

ControlServer::~ControlServer() {
  stop_.store(true);
  thread_.join();
  close(listen_fd_);
}

void ControlServer::serve() {
  while (!stop_.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) {
      continue;
    }
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      continue;
    }
    handle(fd);
    close(fd);
  }
}

void ControlServer::handle(int fd) {
  HttpRequestReader reader;
  const HttpRequestReader::State state = read_request(fd, reader);
  if (state == HttpRequestReader::State::kNeedMore) {
    respond(fd, 408, {{"error", "the request did not arrive whole within 5 s"}});
    return;
  }
  if (state == HttpRequestReader::State::kBad) {
    respond(fd, 400, {{"error", "not an HTTP/1.1 request: " + reader.error()}});
    return;
  }
  const HttpRequest& r = reader.request();
  if (!same_token(r.authorization, "Bearer " + token_)) {
    respond(fd, 401, {{"error", "needs the header `Authorization: Bearer TOKEN` (--control-token-file)"}});
    return;
  }
  if (r.method == "GET" && r.path == "/stats") {
    respond(fd, 200, hooks_.stats());
    return;
  }
  if (r.method != "POST" || r.path != "/profile") {
    respond(fd, 404, {{"error", "endpoints: GET /stats, POST /profile"}});
    return;
  }
  std::shared_ptr<const Profile> profile;
  try {
    // The strict parser: duplicate keys, nesting deeper than kMaxJsonDepth (a deep body would
    // otherwise exhaust the control thread's stack) and out-of-range numbers are refused.
    const nlohmann::json doc = parse_json_strict(r.body, "POST /profile");
    profile = std::make_shared<const Profile>(parse_profile(doc, "POST /profile"));
    check_queues_can_run(*profile, exchange_.queues(), "POST /profile");
  } catch (const nlohmann::json::exception& e) {
    respond(fd, 400, {{"error", std::string("POST /profile: not JSON: ") + e.what()}});
    return;
  } catch (const InputError& e) {
    respond(fd, 400, {{"error", e.what()}});
    return;
  }
  const std::uint64_t g = exchange_.offer(profile);
  // Both lanes look at every loop (at most an idle sleep apart): a second is plenty.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (std::chrono::steady_clock::now() < deadline &&
         (exchange_.applied(Direction::kAToB) < g || exchange_.applied(Direction::kBToA) < g)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (exchange_.applied(Direction::kAToB) < g || exchange_.applied(Direction::kBToA) < g) {
    respond(fd, 503,
            {{"error", "the data plane did not take the profile within 1 s (it will when it polls)"},
             {"generation", g}});
    return;
  }
  if (hooks_.applied) {
    hooks_.applied(*profile);
  }
  respond(fd, 200, {{"applied", true}, {"profile", profile->name}, {"generation", g}});
}

}  // namespace gw
