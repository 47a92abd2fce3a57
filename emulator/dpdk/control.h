// `gradwall emu --control ADDR:PORT --control-token-file F`: a tiny HTTP/1.1 server on its own
// thread (one request per connection, then close) for run-time control:
//   GET  /stats     200, the live counters as JSON (the --stats-json shape, held = live)
//   POST /profile   body = a profile document (docs/profiles.md). 200 {"applied": true, ...}
//                   once both lanes run it (DirectionEngine::reconfigure: packets in flight
//                   stay); 400 {"error": "..."} with the validation message for a bad profile,
//                   and the old profile keeps running.
// Every request needs `Authorization: Bearer TOKEN` (the token file's first line): 401
// without it or with a wrong one. IPv4 addresses only; meant for loopback.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "emulator/engine/spec.h"

namespace gw {

class Exchange;

class ControlServer {
 public:
  struct Hooks {
    std::function<nlohmann::json()> stats;        // GET /stats
    std::function<void(const Profile&)> applied;  // after a POST /profile took effect
  };
  // Throws InputError for a malformed address or an empty token, EnvironmentError when it
  // cannot listen.
  ControlServer(const std::string& address, std::string token, Exchange& exchange, Hooks hooks);
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
