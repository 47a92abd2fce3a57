// One JSON document per line over a stream socket: how the live coordinator and its endpoint
// processes talk (a filesystem-path unix socket, which crosses network namespaces). Messages
// are per collective step and per run, never per packet, so JSON's cost does not matter.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/time.h"

namespace gw::endpoints {

class LineChannel {
 public:
  // Takes ownership of a connected stream socket.
  explicit LineChannel(int fd);
  ~LineChannel();
  LineChannel(LineChannel&& other) noexcept;
  LineChannel& operator=(LineChannel&&) = delete;
  LineChannel(const LineChannel&) = delete;
  LineChannel& operator=(const LineChannel&) = delete;

  // Connects to a unix socket at `path`; throws EnvironmentError when it cannot.
  static LineChannel connect(const std::string& path);

  int fd() const { return fd_; }
  // Writes one line (blocking until all of it is written). False when the peer is gone.
  bool send(const nlohmann::json& msg);
  // Every complete line that can be read now without blocking. Sets closed() at end of file.
  // Throws std::runtime_error for a line that is not JSON.
  std::vector<nlohmann::json> receive();
  // Blocks up to `timeout` for the next message; nullopt on timeout or end of file.
  std::optional<nlohmann::json> receive_one(Duration timeout);
  bool closed() const { return closed_; }

 private:
  int fd_ = -1;
  std::string in_;
  std::vector<nlohmann::json> pending_;
  bool closed_ = false;
};

}  // namespace gw::endpoints
