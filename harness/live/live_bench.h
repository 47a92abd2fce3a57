// The bench a live run runs on (live_runner.cc): the namespace bench (ci/bench-netns) or the
// user's ports brought up, `gradwall emu` started between the sides with the scenario's WAN
// profile and seen forwarding, and everything the run set up torn down again.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "emulator/engine/spec.h"
#include "harness/live/live_context.h"
#include "harness/live/live_process.h"
#include "harness/run/scenario.h"

namespace gw {

// Everything the run set up, undone in reverse order by the destructor, whatever happened.
struct Teardown {
  std::vector<std::unique_ptr<Child>> endpoints;
  std::unique_ptr<Child> emu;                     // the emulator now
  std::vector<std::unique_ptr<Child>> past_emus;  // emulators that died and were restarted
  std::unique_ptr<Child> probe;                   // a ping checking a restarted emulator forwards
  std::string script;
  bool bench_ours = false;
  std::string dpdk_prefix;
  std::string socket_dir;
  int listen_fd = -1;

  void run();
  ~Teardown() { run(); }
};

// The namespace bench up (torn down by `td` if this run brought it up), or the user's ports up.
void bring_up_bench(const LiveContext& c, Teardown& td);

// Starts `gradwall emu` between the two sides' ports; a restarted one (after it died mid-run)
// writes its logs and stats to files of its own: emu-2.out, emu-stats-2.json, ... (its
// periodic stats, each second, are what is left of the counts of one that was killed).
class EmulatorLauncher {
 public:
  EmulatorLauncher(const LiveContext& c, std::filesystem::path profile_file, std::string dpdk_prefix)
      : c_(&c), profile_file_(std::move(profile_file)), dpdk_prefix_(std::move(dpdk_prefix)) {}

  std::unique_ptr<Child> start();
  // Path steering reads the emulator's counters at run time: its control endpoint on
  // 127.0.0.1:`port` with the token in `token_file`, counters published every 20 ms.
  void serve_control(std::uint16_t port, std::filesystem::path token_file) {
    control_port_ = port;
    token_file_ = std::move(token_file);
  }
  const std::vector<std::filesystem::path>& stats_files() const { return stats_files_; }
  const std::filesystem::path& out_file() const { return out_file_; }

 private:
  const LiveContext* c_;
  std::filesystem::path profile_file_;
  std::string dpdk_prefix_;
  std::uint16_t control_port_ = 0;  // 0: no control endpoint
  std::filesystem::path token_file_;
  std::vector<std::filesystem::path> stats_files_;
  std::filesystem::path out_file_;
};

// One ping from side A to side B across the emulator: is it forwarding?
std::vector<std::string> ping_across(const LiveContext& c);

// Pings across until the emulator forwards; EnvironmentError when it does not by `ready_by`.
void wait_forwarding(const LiveContext& c, Child& emu, std::int64_t ready_by);

// Every process down (endpoints, emulators): their records, and the emulator's exit as a fault.
nlohmann::json stop_processes(Teardown& td, const EmulatorLauncher& emu, std::vector<std::string>& faults);

}  // namespace gw
