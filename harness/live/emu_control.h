// The coordinator's client of the emulator's control endpoint (`gradwall emu --control`,
// docs/guide/emu.md): GET /stats, the counters the lanes last published (the path controller
// reads each path's class counters there every interval, live_steering.h), and POST /profile,
// which the coordinator uses to change the paths' links at run time (their phases).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/time.h"

namespace gw {

class EmuControl {
 public:
  // The endpoint on 127.0.0.1:`port`, with bearer token `token`.
  EmuControl(std::uint16_t port, std::string token) : port_(port), token_(std::move(token)) {}

  // GET /stats within `timeout`; throws EnvironmentError when the endpoint cannot be reached,
  // does not answer 200 in time, or answers something that is not JSON.
  nlohmann::json stats(Duration timeout = Duration{500'000'000}) const;
  // POST /profile: the emulator runs `profile` (a profile document) from when this returns;
  // throws EnvironmentError when it is refused (with the emulator's reason) or not answered.
  void apply(const nlohmann::json& profile, Duration timeout = Duration{2'000'000'000}) const;

  // A TCP port on 127.0.0.1 that nothing listens on now (bound and released), for --control.
  static std::uint16_t free_port();

 private:
  // One request, its answer's body (any status): (status, body).
  std::pair<int, std::string> request(const std::string& method, const std::string& path,
                                      const std::string& body, Duration timeout) const;
  std::uint16_t port_;
  std::string token_;
};

}  // namespace gw
