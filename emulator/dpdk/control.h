// `gradwall emu --control ADDR:PORT --control-token-file F`: a tiny HTTP/1.1 server on its own
// thread (one request per connection, then close) for run-time control:
//   GET  /stats     200, the live counters as JSON (the --stats-json shape, held = live)
//   POST /profile   body = a profile document (docs/profiles.md). 200 {"applied": true, ...}
//                   once both lanes run it (DirectionEngine::reconfigure: packets in flight
//                   stay); 400 {"error": "..."} with the validation message for a bad profile,
//                   and the old profile keeps running.
// Every request needs `Authorization: Bearer TOKEN` (the token file's first line): 401
// without it or with a wrong one. A request must arrive whole within 5 s (408) and within
// HttpRequestReader's limits (400). IPv4 or IPv6; meant for loopback (the command refuses other
// addresses unless told to: the token travels in clear).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "emulator/engine/spec.h"

namespace gw {

class Exchange;

// A TCP listening address as --control takes it: `PORT` or `:PORT` (loopback, 127.0.0.1),
// `IPV4:PORT`, `[IPV6]:PORT` (e.g. [::1]:9465); --metrics too, less IPv6 (its civetweb has
// none). Throws InputError naming `option`.
struct ListenAddress {
  std::string host;  // without brackets
  bool ipv6 = false;
  std::uint16_t port = 0;
  bool loopback = false;     // 127.0.0.0/8, ::1, ::ffff:127.x.y.z
  std::string text() const;  // host:port, IPv6 in brackets
};
ListenAddress parse_listen_address(const std::string& option, const std::string& text);

class ControlServer {
 public:
  struct Hooks {
    std::function<nlohmann::json()> stats;        // GET /stats
    std::function<void(const Profile&)> applied;  // after a POST /profile took effect
  };
  // Throws InputError for a malformed address or an empty token, EnvironmentError when it
  // cannot listen.
  ControlServer(const ListenAddress& address, std::string token, Exchange& exchange, Hooks hooks);
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  int port() const { return port_; }

 private:
  void serve();
  void handle(int fd);

  std::string token_;
  Exchange& exchange_;
  Hooks hooks_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// The token from a token file: its first line, surrounding whitespace removed. Throws
// InputError when the file cannot be read or the token is empty.
std::string read_token_file(const std::string& file);

}  // namespace gw
