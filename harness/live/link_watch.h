// The emulator's two ports as the kernel sees them during a live run. A port taken down
// mid-run (`ip link set gw-b-emu down`, a cable pulled on a lab bench) loses every packet
// while it is down; the run goes on (the transport retransmits once it is back), but its
// figures include the outage, so the outage is a fault of the run: when, which port, how long.
#pragma once

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "core/time.h"

namespace gw {

class LinkWatch {
 public:
  // `ports`: interface names in this process's network namespace (/sys/class/net/NAME).
  explicit LinkWatch(std::array<std::string, 2> ports);

  // Reads each port's operstate, at most every 50 ms of `now` (the run's clock).
  void poll(Instant now);
  // One line per outage ("port gw-b-emu went down 4.100 s into the run and came back up
  // 2.050 s later"; "... was still down at the end"), in the order they began.
  std::vector<std::string> faults(Instant end) const;

 private:
  struct Port {
    std::string name;
    bool up = true;
    Instant down_since{};
    std::vector<std::pair<Instant, Instant>> outages;  // [down, up)
  };
  std::array<Port, 2> ports_;
  Instant next_poll_{};
};

// "up" unless /sys/class/net/NAME/operstate says otherwise ("unknown" counts as up: virtual
// interfaces report it when they carry traffic); a port that is gone counts as down.
bool link_is_up(const std::string& name);

}  // namespace gw
