// What every step of a live run shares (live_runner.cc, live_bench.h, live_coordinator.h): the
// run's context (the scenario, the options, where the sides and the files are), the processes'
// priority, the interrupt flag and how durations are written in faults.
#pragma once

#include <array>
#include <atomic>
#include <filesystem>
#include <sstream>
#include <string>

#include "core/time.h"
#include "harness/live/live_ports.h"
#include "harness/live/live_runner.h"
#include "harness/run/scenario.h"

namespace gw {

// The emulator and the endpoints are the instruments of a live run: on a shared host (CI, a
// 2-vCPU VM with builds running) a process that waits for a CPU shows up as delay in the
// emulator and as late ACKs and spurious timeouts in the transport. They run at nice -10, so
// the scheduler's fair share favours them ~9:1 over ordinary jobs (CFS weights 9548 vs
// 1024) without real-time priority (which could starve the host).
inline constexpr const char* kPriority = "-10";

// The signal (SIGINT, SIGTERM) that interrupted the run, 0 while none has (live_runner.cc sets
// the handler for the run's duration).
extern std::atomic<int> g_interrupted;

inline std::string seconds(Duration d) {
  std::ostringstream os;
  os.precision(3);
  os << std::fixed << static_cast<double>(d.count()) / 1e9 << " s";
  return os.str();
}

// What every step of a live run reads: the scenario, the options, where things are.
struct LiveContext {
  LiveContext(const Scenario& s, const LiveOptions& o) : scenario(s), options(o) {}
  const Scenario& scenario;
  const LiveOptions& options;
  bool ports = false;  // --ports: the user's interfaces, not the namespace bench
  std::array<LiveSide, 2> sides;
  std::array<std::string, 2> regions;
  std::filesystem::path work;
  std::string self;
  std::string scenario_file;
  bool tcp = false;  // a kernel TCP baseline
};

}  // namespace gw
