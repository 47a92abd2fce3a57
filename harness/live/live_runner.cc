#include "harness/live/live_runner.h"
#include "harness/run/workloads/workload_kind.h"

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "core/errors.h"
#include "core/event_loop.h"
#include "core/histogram.h"
#include "core/paths.h"
#include "core/rng.h"
#include "emulator/engine/profile_writer.h"
#include "generators/transport/segment.h"
#include "harness/live/control_messages.h"
#include "harness/live/endpoints/clock.h"
#include "harness/live/endpoints/line_channel.h"
#include "harness/live/link_watch.h"
#include "harness/live/live_accounting.h"
#include "harness/live/live_flows.h"
#include "harness/live/live_host_counters.h"
#include "harness/live/live_ports.h"
#include "harness/live/live_process.h"
#include "harness/live/live_series.h"
#include "harness/run/collective_driver.h"
#include "harness/run/link_model.h"
#include "harness/run/queue_pairs.h"
#include "harness/sim/sim_runner.h"

namespace gw {

namespace {

namespace fs = std::filesystem;
using endpoints::LineChannel;

// Payload per packet that fits the bench's 1500-byte IP MTU: IP 20 + UDP 8 + BTH 12 + RETH 16
// + gradwall data metadata 32 + ICRC 4 leave 1408 bytes (a multiple of 4: no pad).
constexpr std::uint32_t kMaxLiveMtu = 1408;
// Frames in each af_packet ring of the emulator (2 KiB each, rx and tx per port: 128 MiB of
// kernel memory in all). The rx ring is all that holds arrivals while the emulator's lcore
// waits for a CPU, and its overflow is invisible to DPDK (docs/bench-machine.md): 16384 frames hold
// ~180 ms at 1 Gbit/s of 1.4 KB datagrams. The runner counts what overflows anyway
// (veth rx - the port's ipackets: "emu X->Y/rx_ring_overflow" in the accounting).
constexpr const char* kRingFrames = "16384";
// The emulator and the endpoints are the instruments of a live run: on a shared host (CI, a
// 2-vCPU VM with builds running) a process that waits for a CPU shows up as delay in the
// emulator and as late ACKs and spurious timeouts in the transport. They run at nice -10, so
// the scheduler's fair share favours them ~9:1 over ordinary jobs (CFS weights 9548 vs
// 1024) without real-time priority (which could starve the host).
constexpr const char* kPriority = "-10";

// The emulator's one lcore may run on any online CPU ("--lcores=0@(0-N)"): pinned to CPU 0
// (`-l 0`) it waits whenever CPU 0 is busy, even with another CPU idle.
std::string floating_lcore() {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return cpus > 1 ? "--lcores=0@(0-" + std::to_string(cpus - 1) + ")" : "--lcores=0@(0)";
}

std::atomic<int> g_interrupted{0};
extern "C" void on_interrupt(int sig) {
  g_interrupted = sig;
}

std::string seconds(Duration d) {
  std::ostringstream os;
  os.precision(3);
  os << std::fixed << static_cast<double>(d.count()) / 1e9 << " s";
  return os.str();
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

// The 1-minute load average (/proc/loadavg); 0 when unreadable.
double load_average() {
  std::ifstream in("/proc/loadavg");
  double one = 0;
  in >> one;
  return in ? one : 0.0;
}

// The host's CPU time so far, all CPUs (the "cpu" line of /proc/stat, proc(5)), in ticks.
struct CpuTimes {
  double busy = 0;   // user + nice + system + irq + softirq
  double steal = 0;  // taken by the hypervisor from this VM
  double total = 0;  // the above + idle + iowait
};

CpuTimes cpu_times() {
  std::ifstream in("/proc/stat");
  std::string label;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  in >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  if (!in || label != "cpu") {
    return {};
  }
  const double busy = user + nice + system + irq + softirq;
  return {busy, steal, busy + steal + idle + iowait};
}

// How busy the host's CPUs were between two readings: the live run's processes wait for a CPU
// when it is near 1 (docs/guide/live.md "Why they differ").
nlohmann::json cpu_section(const CpuTimes& a, const CpuTimes& b) {
  const double total = b.total - a.total;
  if (total <= 0) {
    return nullptr;
  }
  return {{"busy_fraction", (b.busy - a.busy) / total},
          {"steal_fraction", (b.steal - a.steal) / total},
          {"cpus", sysconf(_SC_NPROCESSORS_ONLN)},
          {"what",
           "share of all CPUs' time busy (and stolen by the hypervisor) while the run's real-time loop ran, "
           "from /proc/stat"}};
}

bool bench_is_up() {
  return fs::exists("/run/netns/gw-a") && fs::exists("/run/netns/gw-b");
}

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

  void run() {
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
  ~Teardown() { run(); }
};

int listen_unix(const std::string& path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (fd < 0 || path.size() >= sizeof addr.sun_path) {
    throw EnvironmentError("live mode: cannot make a unix socket at " + path);
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 || listen(fd, 4) != 0) {
    const std::string why = std::strerror(errno);
    close(fd);
    throw EnvironmentError("live mode: cannot listen on " + path + ": " + why);
  }
  return fd;
}

// The WAN profile with a_to_b carrying region 0 -> region 1 (emulator port 0 faces side A).
Profile emu_profile(const Scenario& s) {
  const fabric::WanLinkSpec& link = s.topology.wan.front();
  Profile p = link.profile;
  // Seeded from the scenario's seed (--seed), as the simulator seeds each hop (network.cc):
  // a profile's own seed would give every live run the same draws whatever the seed.
  p.seed = s.seed ^ hash_name("live emu");
  if (link.a != s.topology.regions[0].name) {
    if (!p.phases.empty()) {
      throw InputError(s.file, "$.topology.wan[0]",
                       "live mode: write this link as between [\"" + s.topology.regions[0].name + "\", \"" +
                           s.topology.regions[1].name +
                           "\"] (its profile has phases, which are not flipped)");
    }
    std::swap(p.a_to_b, p.b_to_a);
  }
  return p;
}

// α-β of the path between the sides (docs/references.md §5, as the simulator computes it): α = the
// WAN link's base one-way delay plus one full packet at the bottleneck, β = 1 / the bottleneck
// rate (the profile's rate, else the slower NIC).
coll::AlphaBeta alpha_beta(const Scenario& s, const Profile& p) {
  BitRate slowest = s.topology.regions[0].nic_rate;
  if (s.topology.regions[1].nic_rate.bps < slowest.bps) {
    slowest = s.topology.regions[1].nic_rate;
  }
  Duration delay{0};
  Duration rtt{0};
  for (const DirectionSpec* d : {&p.a_to_b, &p.b_to_a}) {
    if (d->delay) {
      delay = std::max(delay, d->delay->delay);
      rtt += d->delay->delay;
    }
    if (d->rate && !d->rate->rate.unlimited() && d->rate->rate.bps < slowest.bps) {
      slowest = d->rate->rate;
    }
  }
  return path_alpha_beta(delay, rtt, slowest, predicted_packet_bytes(s.transport.config.mtu_bytes));
}

class Coordinator final : public MessageService {
 public:
  Coordinator(coll::Placement placement, std::vector<LineChannel*> channels, std::array<LiveSide, 2> sides)
      : placement_(std::move(placement)), channels_(std::move(channels)), sides_(std::move(sides)) {}

  std::uint64_t send(std::uint32_t src, std::uint32_t dst, std::uint32_t channel, std::uint64_t bytes,
                     Traffic traffic, Instant now) override {
    (void)now;
    const auto key = std::make_tuple(src, dst, channel);
    auto it = connection_of_.find(key);
    if (it == connection_of_.end()) {
      it = connection_of_.emplace(key, static_cast<std::uint32_t>(connection_of_.size())).first;
    }
    // Data and control connections in QP ranges of their own, so that the series can tell
    // them apart (LiveSeries, kFirstControlQp).
    const std::uint32_t qp = (traffic == Traffic::kControl ? kFirstControlQp : kFirstQp) + 2 * it->second;
    const std::uint64_t id = next_message_++;
    post(placement_.region[src], qp, placement_.region[dst], id, bytes, {}, {});
    return id;
  }
  // Message `msg` of `bytes` on side `side`'s sending QP `qp`, toward side `peer_side`; `cc`
  // and `params` (when set) the controller the QP opens with (a flow's own).
  void post(std::uint32_t side, std::uint32_t qp, std::uint32_t peer_side, std::uint64_t msg,
            std::uint64_t bytes, const std::string& cc, const cc::CcParams& params) {
    channels_[side]->send(control::Send{qp, sides_[peer_side].address, msg, bytes, cc, params}.to_json());
  }
  std::size_t connections() const { return connection_of_.size(); }

 private:
  coll::Placement placement_;
  std::vector<LineChannel*> channels_;
  std::array<LiveSide, 2> sides_;
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::uint32_t> connection_of_;
  std::uint64_t next_message_ = 0;
};

// A stats message without its delay histograms, stamped with the run time it arrived at.
std::string timeline_line(nlohmann::json m, Instant at) {
  m.erase("one_way_delay_us");
  m.erase("one_way_delay_remote_us");
  m["at_ns"] = ns_of(at);
  return m.dump();
}

// result.json's live.tcp for a kernel TCP baseline: what was asked for, what TCP_INFO says
// the kernel ran, and the byte balance (written = read once every message was delivered).
// `open_ended`: the run has flows, which are still sending when it ends (their bytes in flight
// are written and not yet read); otherwise every byte written must have been read.
nlohmann::json tcp_section(const LiveOptions& o, const std::array<nlohmann::json, 2>& stats, bool completed,
                           bool open_ended) {
  std::uint64_t written = 0;
  std::uint64_t read = 0;
  std::uint64_t retrans = 0;
  std::uint64_t bytes_retrans = 0;
  std::set<std::string> seen;
  for (const nlohmann::json& s : stats) {
    if (!s.is_object()) {
      continue;
    }
    written += s.at("counters").value("bytes_written", std::uint64_t{0});
    read += s.at("counters").value("bytes_read", std::uint64_t{0});
    for (const nlohmann::json& q : s.at("qps")) {
      if (q.value("sending", false)) {
        seen.insert(q.value("congestion_control", ""));
        retrans += q.at("stats").value("tcpi_total_retrans", std::uint64_t{0});
        bytes_retrans += q.at("stats").value("tcpi_bytes_retrans", std::uint64_t{0});
      }
    }
  }
  return {{"congestion_control", o.tcp_cc},
          {"congestion_control_seen", seen},
          {"max_pacing_rate_bps", o.max_pacing_rate_bps},
          {"bytes_written", written},
          {"bytes_read", read},
          {"open_ended", open_ended},
          {"balanced", stats[0].is_object() && stats[1].is_object() &&
                           (open_ended ? read <= written : completed && written == read)},
          {"retransmits", retrans},
          {"bytes_retransmitted", bytes_retrans}};
}

}  // namespace

void check_live_scenario(const Scenario& s) {
  const auto& regions = s.topology.regions;
  if (regions.size() != 2 || regions[0].hosts == 0 || regions[1].hosts == 0) {
    throw InputError(s.file, "$.topology.regions",
                     "live mode runs two regions (region 0 on side A, region 1 on side B of the emulator) "
                     "and no relays; this scenario has " +
                         std::to_string(regions.size()) + " regions/relays");
  }
  if (s.topology.wan.size() != 1) {
    throw InputError(s.file, "$.topology.wan",
                     "live mode needs exactly one WAN link (the emulator between the two sides), got " +
                         std::to_string(s.topology.wan.size()));
  }
  std::size_t flows = 0;
  for (const auto& [list, path] : {std::pair{&s.workload.flows, std::string("$.workload.flows")},
                                   std::pair{&s.workload.background, std::string("$.background")}}) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      const FlowSpec& f = (*list)[i];
      flows += f.count;
    }
  }
  if (kFirstFlowQp + 2 * flows > kFirstControlQp) {
    throw InputError(s.file, "$.workload.flows",
                     "live mode runs at most " + std::to_string((kFirstControlQp - kFirstFlowQp) / 2) +
                         " flows (background included), got " + std::to_string(flows));
  }
  if (s.transport.config.mtu_bytes > kMaxLiveMtu) {
    throw InputError(s.file, "$.transport.mtu",
                     "live mode on the namespace bench carries at most " + std::to_string(kMaxLiveMtu) +
                         " payload bytes per packet (1500-byte IP MTU minus IP, UDP, BTH, RETH, gradwall's "
                         "32-byte data header and the ICRC); got " +
                         std::to_string(s.transport.config.mtu_bytes) + " (set \"mtu\": 1400)");
  }
}

namespace {

// What every step of a live run reads: the scenario, the options, where things are.
struct LiveContext {
  LiveContext(const Scenario& s, const LiveOptions& o) : scenario(s), options(o) {}
  const Scenario& scenario;
  const LiveOptions& options;
  bool ports = false;  // --ports: the user's interfaces, not the namespace bench
  std::array<LiveSide, 2> sides;
  std::array<std::string, 2> regions;
  fs::path work;
  std::string self;
  std::string scenario_file;
  bool tcp = false;  // a kernel TCP baseline
};

// The coordinator runs at the instruments' priority while the run lasts (it starts each step
// when the previous one is reported delivered), and SIGINT / SIGTERM end the run as a fault;
// both are restored however the run leaves, a throw included.
class RunSignalsAndPriority {
 public:
  RunSignalsAndPriority()
      : old_nice_(getpriority(PRIO_PROCESS, 0)),
        old_int_(std::signal(SIGINT, on_interrupt)),
        old_term_(std::signal(SIGTERM, on_interrupt)) {
    (void)setpriority(PRIO_PROCESS, 0, std::stoi(kPriority));
    g_interrupted = 0;
  }
  ~RunSignalsAndPriority() {
    std::signal(SIGINT, old_int_);
    std::signal(SIGTERM, old_term_);
    (void)setpriority(PRIO_PROCESS, 0, old_nice_);
  }
  RunSignalsAndPriority(const RunSignalsAndPriority&) = delete;
  RunSignalsAndPriority& operator=(const RunSignalsAndPriority&) = delete;

 private:
  int old_nice_;
  void (*old_int_)(int);
  void (*old_term_)(int);
};

// The namespace bench up (torn down by `td` if this run brought it up), or the user's ports up.
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

// Starts `gradwall emu` between the two sides' ports; a restarted one (after it died mid-run)
// writes its logs and stats to files of its own: emu-2.out, emu-stats-2.json, ... (its
// periodic stats, each second, are what is left of the counts of one that was killed).
class EmulatorLauncher {
 public:
  EmulatorLauncher(const LiveContext& c, fs::path profile_file, std::string dpdk_prefix)
      : c_(&c), profile_file_(std::move(profile_file)), dpdk_prefix_(std::move(dpdk_prefix)) {}

  std::unique_ptr<Child> start() {
    const std::string n = stats_files_.empty() ? "" : "-" + std::to_string(stats_files_.size() + 1);
    stats_files_.push_back(c_->work / ("emu-stats" + n + ".json"));
    out_file_ = c_->work / ("emu" + n + ".out");
    const std::vector<std::string> argv{
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
    return std::make_unique<Child>("emu", argv, out_file_.string(),
                                   (c_->work / ("emu" + n + ".err")).string());
  }
  const std::vector<fs::path>& stats_files() const { return stats_files_; }
  const fs::path& out_file() const { return out_file_; }

 private:
  const LiveContext* c_;
  fs::path profile_file_;
  std::string dpdk_prefix_;
  std::vector<fs::path> stats_files_;
  fs::path out_file_;
};

// One ping from side A to side B across the emulator: is it forwarding?
std::vector<std::string> ping_across(const LiveContext& c) {
  return {"ip", "netns", "exec", c.sides[0].netns, "ping", "-c", "1", "-W", "1", c.sides[1].address};
}

// Pings across until the emulator forwards; EnvironmentError when it does not by `ready_by`.
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

// One endpoint process per side (`gradwall endpoint`, or `endpoint-tcp` for a kernel TCP
// baseline), told to connect to the coordinator's socket `sock`.
void start_endpoints(const LiveContext& c, const std::string& sock, Teardown& td) {
  for (std::uint32_t side = 0; side < 2; ++side) {
    const std::string name = "endpoint " + c.regions[side];
    const std::string base = (c.work / ("endpoint-" + c.regions[side])).string();
    std::vector<std::string> argv{"nice",
                                  "-n",
                                  kPriority,
                                  "ip",
                                  "netns",
                                  "exec",
                                  c.sides[side].netns,
                                  c.self,
                                  c.tcp ? "endpoint-tcp" : "endpoint",
                                  "--control",
                                  sock,
                                  "--side",
                                  std::to_string(side),
                                  "--address",
                                  c.sides[side].address,
                                  "--scenario",
                                  c.scenario_file};
    if (c.tcp) {  // a kernel TCP baseline: the same protocol, TCP sockets (live_tcp_endpoint.cc)
      argv.insert(argv.end(), {"--cc", c.options.tcp_cc, "--max-pacing-rate-bps",
                               std::to_string(c.options.max_pacing_rate_bps)});
    } else {
      argv.insert(argv.end(), {"--io", c.options.endpoints});
    }
    td.endpoints.push_back(std::make_unique<Child>(name, argv, base + ".out", base + ".err"));
    std::cerr << "live: " << name << " started (pid " << td.endpoints.back()->pid() << ", netns "
              << c.sides[side].netns << ")\n";
  }
}

// The endpoints' control connections, by side, once each has said hello.
std::array<std::unique_ptr<LineChannel>, 2> accept_endpoints(const LiveContext& c, Teardown& td,
                                                             std::int64_t ready_by) {
  std::array<std::unique_ptr<LineChannel>, 2> ch;
  for (int accepted = 0; accepted < 2;) {
    pollfd p{td.listen_fd, POLLIN, 0};
    const bool late = endpoints::monotonic_ns() > ready_by + c.options.start_timeout.count();
    for (auto& e : td.endpoints) {
      if (!e->running() || late) {
        throw EnvironmentError("live mode: " + e->name() +
                               (late ? " did not connect in time" : " " + e->how_it_ended()));
      }
    }
    if (::poll(&p, 1, 100) <= 0) {
      continue;
    }
    auto channel = std::make_unique<LineChannel>(accept4(td.listen_fd, nullptr, nullptr, SOCK_CLOEXEC));
    const auto line = channel->receive_one(Duration{5'000'000'000});
    const std::optional<control::Hello> hello = line ? control::parse_hello(*line) : std::nullopt;
    if (!hello) {
      throw EnvironmentError("live mode: an endpoint connected but did not say hello");
    }
    if (hello->side > 1 || ch[hello->side]) {
      throw EnvironmentError("live mode: an endpoint said hello as side " + std::to_string(hello->side) +
                             ", which is not a side or has said hello already");
    }
    ch[hello->side] = std::move(channel);
    ++accepted;
  }
  return ch;
}

// Sends each endpoint the run's epoch and waits for both to be ready.
endpoints::RunTime start_endpoints_clock(const LiveContext& c, Teardown& td,
                                         const std::array<std::unique_ptr<LineChannel>, 2>& ch) {
  const endpoints::RunTime rt(endpoints::monotonic_ns());
  for (const auto& channel : ch) {
    channel->send(control::Start{rt.epoch_ns()}.to_json());
  }
  for (std::uint32_t side = 0; side < 2; ++side) {
    const auto ready = ch[side]->receive_one(c.options.start_timeout);
    if (!ready || !control::parse_ready(*ready)) {
      throw EnvironmentError(
          "live mode: endpoint " + c.regions[side] + " did not get ready; it " +
          (td.endpoints[side]->running() ? "is still running" : td.endpoints[side]->how_it_ended()));
    }
  }
  return rt;
}

// The run itself: the simulator's CollectiveDriver and the flows on an event loop that follows
// the real clock, the endpoints' deliveries and stats fed in as they come, the processes
// watched (an emulator that dies is restarted, up to options.emu_restarts times).
class RealTimeRun {
 public:
  RealTimeRun(const LiveContext& c, Teardown& td, EmulatorLauncher& emu,
              std::array<std::unique_ptr<LineChannel>, 2>& ch, const endpoints::RunTime& rt,
              const Profile& profile, std::vector<std::string>& faults)
      : c_(c),
        td_(td),
        emu_(emu),
        ch_(ch),
        rt_(rt),
        faults_(faults),
        placement_(placement_of(c.scenario)),
        coord_(placement_, {ch[0].get(), ch[1].get()}, c.sides),
        driver_(loop_, coord_, placement_, iteration_plans(c.scenario.workload),
                link_model(c.scenario, profile), c.scenario.workload.nccl),
        flows_(loop_, c.scenario, c.regions,
               [this](std::uint32_t side, std::uint32_t qp, std::uint32_t peer, std::uint64_t msg,
                      std::uint64_t bytes, const std::string& cc,
                      const cc::CcParams& params) { coord_.post(side, qp, peer, msg, bytes, cc, params); }),
        timeline_{std::ofstream(c.work / ("endpoint-" + c.regions[0] + "-timeline.jsonl")),
                  std::ofstream(c.work / ("endpoint-" + c.regions[1] + "-timeline.jsonl"))},
        series_(c.scenario.interval),
        links_({c.sides[0].port, c.sides[1].port}),
        restarts_left_(c.options.emu_restarts) {}

  // Until the work is done (a "flows" workload: workload.duration), the limit, an interrupt or
  // a process lost; returns when it stopped.
  Instant run();
  // The endpoints' last stats (final ones once stop_endpoints has run).
  void stop_endpoints();

  const CollectiveDriver& driver() const { return driver_; }
  const LiveFlows& flows() const { return flows_; }
  const Coordinator& coordinator() const { return coord_; }
  const LiveSeries& series() const { return series_; }
  const std::array<nlohmann::json, 2>& stats() const { return stats_; }

 private:
  static coll::Placement placement_of(const Scenario& s) {
    coll::Placement placement;
    for (std::uint32_t r = 0; r < 2; ++r) {
      for (std::uint32_t i = 0; i < s.topology.regions[r].hosts; ++i) {
        placement.region.push_back(r);
      }
    }
    return placement;
  }
  // Predicted times: the WAN link's α-β between the sides; within a side the ranks share a
  // process and the kernel's loopback path, modelled as the NIC (α = one packet, β = 1/NIC).
  static coll::LinkModel link_model(const Scenario& s, const Profile& profile) {
    const coll::AlphaBeta intra = path_alpha_beta(Duration{0}, Duration{0}, s.topology.regions[0].nic_rate,
                                                  predicted_packet_bytes(s.transport.config.mtu_bytes));
    return coll::LinkModel::two_level(2, intra, alpha_beta(s, profile));
  }
  void absorb(std::uint32_t side, std::vector<nlohmann::json> msgs);
  bool endpoints_lost(Instant now);
  bool emulator_lost(Instant now);
  void probe_restarted_emulator();

  struct Restart {
    Instant died;
    std::size_t fault;  // its entry in faults_
    Instant next_probe = kEpoch;
  };

  const LiveContext& c_;
  Teardown& td_;
  EmulatorLauncher& emu_;
  std::array<std::unique_ptr<LineChannel>, 2>& ch_;
  const endpoints::RunTime& rt_;
  std::vector<std::string>& faults_;
  EventLoop loop_;
  coll::Placement placement_;
  Coordinator coord_;
  CollectiveDriver driver_;
  LiveFlows flows_;
  std::array<nlohmann::json, 2> stats_{};
  // Every stats message of the run, a line each (DIR/live/endpoint-X-timeline.jsonl): the
  // counters and the queue pairs' state once a second, for finding when a run went wrong.
  std::array<std::ofstream, 2> timeline_;
  LiveSeries series_;  // the stats messages come at the scenario's interval
  LinkWatch links_;
  std::optional<Restart> restart_;
  int restarts_left_;
};

void RealTimeRun::absorb(std::uint32_t side, std::vector<nlohmann::json> msgs) {
  std::sort(msgs.begin(), msgs.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return a.value("at_ns", std::int64_t{0}) < b.value("at_ns", std::int64_t{0});
  });
  for (const nlohmann::json& m : msgs) {
    if (const std::optional<control::Delivered> d = control::parse_delivered(m)) {
      const Instant at = std::max(at_ns(d->at_ns), loop_.now());
      loop_.run_until(at);
      if (LiveFlows::owns(d->msg)) {
        flows_.delivered(d->msg, at_ns(d->at_ns));  // when it arrived, not when it was read
      } else if (!driver_.settled()) {
        driver_.delivered(d->msg, at);
      }
    } else if (control::is_stats(m)) {
      stats_.at(side) = m;
      series_.add(side, m, rt_.now());
      timeline_[side] << timeline_line(m, rt_.now()) << "\n";
    }
  }
}

bool RealTimeRun::endpoints_lost(Instant now) {
  bool lost = false;
  for (std::uint32_t side = 0; side < 2; ++side) {
    Child& e = *td_.endpoints[side];
    if (ch_[side]->closed() || !e.running()) {
      e.wait_for(Duration{1'000'000'000});
      faults_.push_back(e.name() + " (pid " + std::to_string(e.pid()) + ", netns " + c_.sides[side].netns +
                        ") " + e.how_it_ended() + " " + seconds(now - kEpoch) + " into the run");
      lost = true;
    }
  }
  return lost;
}

// A dead emulator is a fault; restarted while restarts are left (the endpoints' transport
// retransmits what it held). True when the run cannot go on.
bool RealTimeRun::emulator_lost(Instant now) {
  if (td_.emu->running()) {
    return false;
  }
  std::string fault = "emu (pid " + std::to_string(td_.emu->pid()) + ") " + td_.emu->how_it_ended() + " " +
                      seconds(now - kEpoch) + " into the run";
  bool lost = true;
  if (restarts_left_ > 0) {
    --restarts_left_;
    try {
      std::unique_ptr<Child> next = emu_.start();  // the dead one stays td_.emu if this throws
      td_.past_emus.push_back(std::move(td_.emu));
      td_.emu = std::move(next);
      fault += "; restarted (pid " + std::to_string(td_.emu->pid()) + ")";
      restart_ = Restart{now, faults_.size(), kEpoch};
      td_.probe.reset();
      std::cerr << "live: " << fault << "\n";
      lost = false;
    } catch (const EnvironmentError& e) {
      fault += "; could not restart it: " + std::string(e.what());
    }
  }
  faults_.push_back(fault);
  return lost;
}

// A ping across the restarted emulator every 200 ms: when is it forwarding again?
void RealTimeRun::probe_restarted_emulator() {
  if (!restart_) {
    return;
  }
  if (td_.probe && !td_.probe->running() && td_.probe->exited_ok()) {
    faults_[restart_->fault] +=
        ", forwarding again " + seconds(rt_.now() - restart_->died) + " after it died";
    restart_.reset();
    td_.probe.reset();
  } else if ((!td_.probe || !td_.probe->running()) && rt_.now() >= restart_->next_probe) {
    restart_->next_probe = rt_.now() + Duration{200'000'000};
    td_.probe = std::make_unique<Child>("ping", ping_across(c_), "/dev/null", "/dev/null");
  }
}

Instant RealTimeRun::run() {
  const bool flows_only = !workload_kind(c_.scenario.workload.kind).iterations;
  const Instant limit = kEpoch + c_.scenario.workload.duration;
  loop_.run_until(
      rt_.now());  // the run starts now, not at the epoch: the endpoints took a while to get ready
  driver_.start(loop_.now());
  flows_.start(loop_.now());
  while (flows_only || !driver_.settled()) {
    const Instant now = std::max(rt_.now(), loop_.now());
    if (now > limit) {
      break;
    }
    if (g_interrupted != 0) {
      faults_.push_back("the run was interrupted by " + signal_text(g_interrupted) + " " +
                        seconds(now - kEpoch) + " into the run");
      break;
    }
    loop_.run_until(now);
    links_.poll(now);
    for (std::uint32_t side = 0; side < 2; ++side) {
      absorb(side, ch_[side]->receive());
    }
    const bool lost = endpoints_lost(now);
    if (emulator_lost(now) || lost) {
      break;
    }
    probe_restarted_emulator();
    const Instant next = loop_.next_event_time();
    const std::int64_t wait_ms =
        next == kNever ? 10 : std::clamp<std::int64_t>((ns_of(next) - ns_of(rt_.now())) / 1'000'000, 0, 10);
    std::array<pollfd, 2> fds{pollfd{ch_[0]->fd(), POLLIN, 0}, pollfd{ch_[1]->fd(), POLLIN, 0}};
    (void)::poll(fds.data(), fds.size(), static_cast<int>(wait_ms));
  }
  const Instant stop = std::max(rt_.now(), loop_.now());
  if (restart_ && td_.emu->running()) {
    faults_[restart_->fault] += ", not seen forwarding again by the end of the run";
  }
  td_.probe.reset();
  links_.poll(stop + Duration{50'000'000});  // a port still down at the end
  for (std::string& f : links_.faults(stop)) {
    faults_.push_back(std::move(f));
  }
  if (!driver_.done() && faults_.empty()) {
    faults_.push_back("the workload did not finish within workload.duration (" +
                      seconds(c_.scenario.workload.duration) + ")");
  }
  return stop;
}

// "stop" to the endpoints still alive, their final stats, and their exit.
void RealTimeRun::stop_endpoints() {
  for (std::uint32_t side = 0; side < 2; ++side) {
    if (!td_.endpoints[side]->running() || ch_[side]->closed()) {
      continue;
    }
    ch_[side]->send(control::Stop{}.to_json());
    const std::int64_t end = endpoints::monotonic_ns() + 5'000'000'000;
    bool final = false;
    while (!final && endpoints::monotonic_ns() < end && !ch_[side]->closed()) {
      for (const nlohmann::json& m : ch_[side]->receive()) {
        if (control::is_stats(m)) {
          stats_.at(side) = m;
          final = m.value("final", false);
        }
      }
      pollfd p{ch_[side]->fd(), POLLIN, 0};
      (void)::poll(&p, 1, 50);
    }
    if (!td_.endpoints[side]->wait_for(Duration{5'000'000'000})) {
      faults_.push_back(td_.endpoints[side]->name() + " did not exit after stop");
    }
  }
}

// Every process down (endpoints, emulators): their records, and the emulator's exit as a fault.
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

// The endpoints' last words, whole (DIR/live/endpoint-X-stats.json), and the live section's
// view of them (without the delay histograms).
nlohmann::json endpoints_section(const LiveContext& c, const std::array<nlohmann::json, 2>& stats) {
  nlohmann::json out = nlohmann::json::array();
  for (std::uint32_t side = 0; side < 2; ++side) {
    std::ofstream(c.work / ("endpoint-" + c.regions[side] + "-stats.json")) << stats.at(side).dump() << "\n";
    nlohmann::json e = stats.at(side);
    if (e.is_object()) {
      e.erase("one_way_delay_us");
      e.erase("one_way_delay_remote_us");
      e.erase("t");
    }
    out.push_back({{"region", c.regions[side]},
                   {"netns", c.sides[side].netns},
                   {"address", c.sides[side].address},
                   {c.tcp ? "tcp_port" : "udp_port", c.tcp ? 4792 : transport::kRoceUdpPort},
                   {"last_stats", e}});
  }
  return out;
}

LiveContext context_of(const Scenario& scenario, const LiveOptions& options) {
  check_live_scenario(scenario);
  const bool ports = !options.ports[0].empty();
  if (options.bench != "netns" && !(ports && options.bench == "ports")) {
    throw InputError("--bench", "",
                     "only \"netns\" (ci/bench-netns) is supported, got \"" + options.bench + "\"");
  }
  if (geteuid() != 0) {
    throw EnvironmentError("live mode needs root (network namespaces, af_packet ports for the emulator)");
  }
  LiveContext c(scenario, options);
  c.ports = ports;
  // The namespace bench, or the given ports with the endpoints in the given namespaces.
  c.sides = ports ? port_sides(options.ports, options.endpoint_netns) : netns_bench_sides();
  c.regions = {scenario.topology.regions[0].name, scenario.topology.regions[1].name};
  c.work = fs::absolute(options.work_dir);
  fs::create_directories(c.work);
  c.self = fs::read_symlink("/proc/self/exe").string();
  c.scenario_file = fs::absolute(scenario.file).string();
  c.tcp = !options.tcp_cc.empty();
  return c;
}

}  // namespace

LiveRun run_live(const Scenario& scenario, const LiveOptions& options) {
  const LiveContext c = context_of(scenario, options);
  LiveRun run;
  RunSignalsAndPriority signals_and_priority;  // restored after the teardown (declared before it)
  Teardown td;
  const double load_at_start = load_average();

  // The bench and the emulator with the scenario's WAN profile.
  const Profile profile = emu_profile(scenario);
  const fs::path profile_file = c.work / "emu-profile.json";
  std::ofstream(profile_file) << profile_to_json(profile).dump(2) << "\n";
  bring_up_bench(c, td);
  // The hosts' counters are read on the namespace bench only (live_host_counters.h).
  const nlohmann::json hosts_before = c.ports ? nlohmann::json::object() : read_host_counters();
  td.dpdk_prefix = "gw-live-" + std::to_string(getpid());
  EmulatorLauncher emu(c, profile_file, td.dpdk_prefix);
  td.emu = emu.start();
  std::cerr << "live: emu started (pid " << td.emu->pid() << "), profile " << profile_file.string() << "\n";
  const std::int64_t ready_by = endpoints::monotonic_ns() + options.start_timeout.count();
  wait_forwarding(c, *td.emu, ready_by);

  // The endpoints, one per side, and their control connections.
  td.socket_dir = "/tmp/gw-live-" + std::to_string(getpid());
  fs::create_directories(td.socket_dir);
  const std::string sock = td.socket_dir + "/ctl.sock";
  td.listen_fd = listen_unix(sock);
  start_endpoints(c, sock, td);
  std::array<std::unique_ptr<LineChannel>, 2> ch = accept_endpoints(c, td, ready_by);
  const endpoints::RunTime rt = start_endpoints_clock(c, td, ch);

  RealTimeRun real_time(c, td, emu, ch, rt, profile, run.faults);
  const CpuTimes cpu_at_start = cpu_times();
  const Instant stop = real_time.run();
  const CpuTimes cpu_at_stop = cpu_times();
  const bool completed = real_time.driver().done();
  real_time.stop_endpoints();
  const nlohmann::json processes = stop_processes(td, emu, run.faults);
  const nlohmann::json emu_stats = emulator_stats(emu.stats_files());
  const nlohmann::json host_delta =
      c.ports ? nlohmann::json::object() : host_counter_delta(hosts_before, read_host_counters());
  // An emulator that left no final counts died with packets in it: one restarted, or the
  // last one killed (its periodic stats say "final": false). One that exited 1 on its own
  // checks did write them.
  const bool emulator_died =
      !td.past_emus.empty() || !(emu_stats.is_object() && emu_stats.value("final", false));
  td.run();

  SimResult& r = run.result;
  r.mode = "live";
  r.scenario = scenario.name;
  r.scenario_file = scenario.file;
  r.seed = scenario.seed;
  r.duration = stop - kEpoch;
  r.completed = completed;
  r.scenario_json = scenario.source;
  r.warmup_iterations = scenario.warmup_iterations;
  run.series_flows = real_time.series().fill(r.series, stop);
  const nlohmann::json unfinished = add_driver_results(real_time.driver(), true, r);
  const std::array<nlohmann::json, 2>& stats = real_time.stats();
  fill_counters(stats, emu_stats, host_delta, c.regions, c.tcp, !c.ports, emulator_died, r);
  real_time.flows().add_results(stats, stop, r);
  summarize_flows(r);
  run.live = {{"bench", options.bench},
              {"work_dir", c.work.string()},
              {"clock",
               "CLOCK_MONOTONIC of one host: one-way delays are exact on the namespace bench; "
               "endpoints on two hosts need PTP-synchronised clocks"},
              {"connections", real_time.coordinator().connections()},
              {"unfinished", unfinished},
              {"one_way_delay_between_sides_ns",
               percentiles_of(histogram_of(stats, "one_way_delay_remote_us").summary())},
              {"endpoints", endpoints_section(c, stats)},
              {"emulator", {{"profile", profile_file.string()}, {"stats", emu_stats}}},
              {"hosts", host_delta},
              {"load_average",
               {{"start", load_at_start},
                {"end", load_average()},
                {"cpus", sysconf(_SC_NPROCESSORS_ONLN)},
                {"what", "/proc/loadavg's 1-minute figure when the run started and when it ended"}}},
              {"cpu", cpu_section(cpu_at_start, cpu_at_stop)},
              {"processes", processes},
              {"faults", run.faults}};
  run.live["endpoint_kind"] = c.tcp ? std::string("tcp") : options.endpoints;  // udp, dpdk or tcp
  if (c.ports) {
    run.live["ports"] = {c.sides[0].port, c.sides[1].port};
  }
  if (c.tcp) {
    run.live["tcp"] = tcp_section(options, stats, completed, !real_time.flows().empty());
  }
  return run;
}

void add_live_result(nlohmann::json& result_json, const LiveRun& run) {
  result_json["live"] = run.live;
  // The series' flows are the sending queue pairs (live_series.h): say which, with their srtt.
  nlohmann::json& flows = result_json["series"]["flows"];
  for (std::size_t i = 0; i < flows.size() && i < run.series_flows.size(); ++i) {
    flows[i].update(run.series_flows[i]);
  }
}

void add_live_checks(nlohmann::json& report, const LiveRun& run) {
  if (run.live.contains("tcp")) {
    const nlohmann::json& t = run.live.at("tcp");
    const bool ok = t.at("balanced").get<bool>();
    report["checks"].push_back(
        {{"name", "tcp_bytes_balanced"},
         {"passed", ok},
         {"measured", t.at("bytes_read")},
         {"limit", t.at("bytes_written")},
         {"reason",
          !ok ? "bytes read " + t.at("bytes_read").dump() + " != bytes written " +
                    t.at("bytes_written").dump() +
                    " (a connection still held data when the run ended, or an endpoint failed)"
          : t.value("open_ended", false)
              ? "no TCP connection read more than was written to it (flows still sending at the end)"
              : "every byte written to a TCP socket was read at the other end"}});
    if (!ok) {
      report["verdict"] = "fail";
    }
  }
  std::string reason = "every process of the live run behaved";
  if (!run.faults.empty()) {
    reason.clear();
    for (const std::string& f : run.faults) {
      reason += (reason.empty() ? "" : "; ") + f;
    }
  }
  report["checks"].push_back({{"name", "live_processes"},
                              {"passed", run.faults.empty()},
                              {"measured", run.faults.size()},
                              {"limit", 0},
                              {"reason", reason}});
  if (!run.faults.empty()) {
    report["verdict"] = "fail";
  }
}

}  // namespace gw
