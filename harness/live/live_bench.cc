// A live run's bench (live_bench.h): the namespaces or ports, the emulator, the teardown.
#include "harness/live/live_bench.h"

#include <unistd.h>

#include <algorithm>

#include "core/errors.h"
#include "core/paths.h"
#include "core/rng.h"
#include "harness/live/endpoints/clock.h"

namespace gw {

namespace {

namespace fs = std::filesystem;

// Frames in each af_packet ring of the emulator (2 KiB each, rx and tx per port: 128 MiB of
// kernel memory in all). The rx ring is all that holds arrivals while the emulator's lcore
// waits for a CPU, and its overflow is invisible to DPDK (docs/bench-machine.md): 16384 frames hold
// ~180 ms at 1 Gbit/s of 1.4 KB datagrams. The runner counts what overflows anyway
// (veth rx - the port's ipackets: "emu X->Y/rx_ring_overflow" in the accounting).
constexpr const char* kRingFrames = "16384";

// The emulator's one lcore may run on any online CPU ("--lcores=0@(0-N)"): pinned to CPU 0
// (`-l 0`) it waits whenever CPU 0 is busy, even with another CPU idle.
std::string floating_lcore() {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return cpus > 1 ? "--lcores=0@(0-" + std::to_string(cpus - 1) + ")" : "--lcores=0@(0)";
}

std::string bench_script() {
  for (const std::string& dir : data_search_dirs("")) {
    const fs::path p = fs::path(dir).parent_path() / "ci" / "bench-netns";
    if (fs::exists(p)) {
      return p.string();
    }
  }
  throw EnvironmentError(
      "live mode: cannot find ci/bench-netns (set GRADWALL_DATA_DIR to the source tree's profiles/)");
}

bool bench_is_up() {
  return fs::exists("/run/netns/gw-a") && fs::exists("/run/netns/gw-b");
}

}  // namespace

void Teardown::run() {
  endpoints.clear();  // kills and reaps what is still alive
  probe.reset();
  if (emu) {
    emu->stop(Duration{10'000'000'000});
  }
  if (bench_ours && !script.empty()) {
    run_command({script, "down"});
    bench_ours = false;
  }
  if (!dpdk_prefix.empty()) {
    std::error_code ec;
    fs::remove_all(fs::path("/var/run/dpdk") / dpdk_prefix, ec);
    fs::remove("/var/run/dpdk", ec);  // only when empty: others' folders stay
    dpdk_prefix.clear();
  }
  if (listen_fd >= 0) {
    close(listen_fd);
    listen_fd = -1;
  }
  if (!socket_dir.empty()) {
    std::error_code ec;
    fs::remove_all(socket_dir, ec);
    socket_dir.clear();
  }
}

void bring_up_bench(const LiveContext& c, Teardown& td) {
  if (c.ports) {  // the user's interfaces: up, nothing else changed
    for (const LiveSide& side : c.sides) {
      if (run_command({"ip", "link", "set", side.port, "up"}) != 0) {
        throw EnvironmentError("live mode: cannot bring " + side.port + " up");
      }
    }
    return;
  }
  td.script = bench_script();
  td.bench_ours = !bench_is_up();
  if (run_command({td.script, "up"}) != 0) {
    throw EnvironmentError("live mode: " + td.script + " up failed");
  }
}

std::unique_ptr<Child> EmulatorLauncher::start() {
  const std::string n = stats_files_.empty() ? "" : "-" + std::to_string(stats_files_.size() + 1);
  stats_files_.push_back(c_->work / ("emu-stats" + n + ".json"));
  out_file_ = c_->work / ("emu" + n + ".out");
  std::vector<std::string> argv{
      "nice",
      "-n",
      kPriority,
      c_->self,
      "emu",
      "--profile",
      profile_file_.string(),
      "--stats-json",
      stats_files_.back().string(),
      "--stats-interval",
      "1",
      "--",
      "--no-huge",
      "-m",
      "512",
      "--no-pci",
      "--file-prefix=" + dpdk_prefix_,
      floating_lcore(),
      "--vdev=net_af_packet0,iface=" + c_->sides[0].port + ",framecnt=" + kRingFrames,
      "--vdev=net_af_packet1,iface=" + c_->sides[1].port + ",framecnt=" + kRingFrames};
  if (control_port_ != 0) {
    const auto eal = std::find(argv.begin(), argv.end(), "--");
    argv.insert(eal, {"--control", "127.0.0.1:" + std::to_string(control_port_), "--control-token-file",
                      token_file_.string(), "--publish-ms", "20"});
  }
  return std::make_unique<Child>("emu", argv, out_file_.string(), (c_->work / ("emu" + n + ".err")).string());
}

std::vector<std::string> ping_across(const LiveContext& c) {
  return {"ip", "netns", "exec", c.sides[0].netns, "ping", "-c", "1", "-W", "1", c.sides[1].address};
}

void wait_forwarding(const LiveContext& c, Child& emu, std::int64_t ready_by) {
  bool forwarding = false;
  while (!forwarding && endpoints::monotonic_ns() < ready_by && emu.running() && g_interrupted == 0) {
    forwarding = run_command(ping_across(c)) == 0;
  }
  if (!forwarding) {
    emu.stop(Duration{2'000'000'000});
    throw EnvironmentError("live mode: the emulator did not forward between the sides within " +
                           seconds(c.options.start_timeout) + "; emu " + emu.how_it_ended() + " (logs in " +
                           c.work.string() + ")");
  }
}

nlohmann::json stop_processes(Teardown& td, const EmulatorLauncher& emu, std::vector<std::string>& faults) {
  nlohmann::json processes = nlohmann::json::array();
  for (auto& e : td.endpoints) {
    e->kill_and_reap();
    processes.push_back(e->to_json());
  }
  td.emu->stop(Duration{10'000'000'000});
  for (auto& e : td.past_emus) {
    processes.push_back(e->to_json());
  }
  processes.push_back(td.emu->to_json());
  if (td.emu->exit_code() == 1) {
    faults.push_back("emu: its packet accounting or mbuf check failed at exit (see " +
                     emu.out_file().string() + ")");
  } else if (!td.emu->exited_ok() && faults.empty()) {
    faults.push_back("emu " + td.emu->how_it_ended());
  }
  return processes;
}

}  // namespace gw
