// gradwall emu --profile FILE [--duration S] [--stats-json FILE] [options] -- EAL-ARGS
//
// The DPDK inline emulator: port 0 faces side A, port 1 side B; one lcore (the main one)
// forwards both directions through the profile. On this machine (no hugepages, no NICs):
//   gradwall emu --profile p.json --duration 60 --stats-json s.json --
//     --no-huge -m 512 --no-pci --file-prefix=gw -l 0
//     --vdev=net_af_packet0,iface=gw-a-emu,framecnt=4096
//     --vdev=net_af_packet1,iface=gw-b-emu,framecnt=4096
// (one command line)// with the namespace bench from `ci/bench-netns up`. Ends on SIGINT/SIGTERM or after
// --duration; exit 0 when every packet is accounted for and every mbuf is back in the pool,
// 1 when not, 2 bad input, 3 when DPDK or the ports fail (the message says how to fix it).
#include <algorithm>
#include <atomic>
#include <boost/program_options.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "core/errors.h"
#include "core/text_file.h"
#include "emulator/dpdk/capture.h"
#include "emulator/dpdk/control.h"
#include "emulator/dpdk/eal.h"
#include "emulator/dpdk/exchange.h"
#include "emulator/dpdk/forwarder.h"
#include "emulator/dpdk/int_stamp.h"
#include "emulator/dpdk/metrics.h"
#include "emulator/dpdk/port.h"
#include "emulator/dpdk/sizing.h"
#include "emulator/engine/profile.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"

namespace gw {
namespace po = boost::program_options;
namespace {

// The only global state: a signal handler can reach nothing else. Handlers only set flags.
std::atomic<bool> g_stop{false};
std::atomic<bool> g_reload{false};

extern "C" void on_stop_signal(int /*sig*/) {
  g_stop.store(true, std::memory_order_relaxed);
}

extern "C" void on_reload_signal(int /*sig*/) {
  g_reload.store(true, std::memory_order_relaxed);
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  struct sigaction hup {};
  hup.sa_handler = on_reload_signal;
  sigemptyset(&hup.sa_mask);
  sigaction(SIGHUP, &hup, nullptr);
}

void write_json_file(const std::string& file, const nlohmann::json& j) {
  write_text_file_atomically(file, j.dump(2) + "\n");
}

// The profile in force, named in the stats; set by the reload paths (other threads).
class CurrentProfile {
 public:
  explicit CurrentProfile(std::string name) : name_(std::move(name)) {}
  void set(std::string name) {
    const std::lock_guard<std::mutex> lock(m_);
    name_ = std::move(name);
  }
  std::string get() const {
    const std::lock_guard<std::mutex> lock(m_);
    return name_;
  }

 private:
  mutable std::mutex m_;
  std::string name_;
};

// The counters the lanes last published (at most a publish interval old), as --stats-json
// writes them; "final": false (ports' driver counters and the mbuf check come at exit).
nlohmann::json live_stats_json(const Exchange& ex, const CurrentProfile& profile, double seconds) {
  EmuStats s;
  s.a_to_b = ex.read(Direction::kAToB).stats;
  s.b_to_a = ex.read(Direction::kBToA).stats;
  s.seconds = seconds;
  nlohmann::json j = to_json(s);
  j.erase("ports");
  j.erase("mempool");
  j.erase("all_mbufs_returned");
  j["profile"] = profile.get();
  j["final"] = false;
  return j;
}

// The emulator's housekeeping thread: SIGHUP reloads and the --stats-interval writer. It
// never touches the data plane except through the Exchange.
class Monitor {
 public:
  Monitor(Exchange& ex, CurrentProfile& current, std::string profile_file, double interval_s,
          std::string stats_json)
      : ex_(ex),
        current_(current),
        profile_file_(std::move(profile_file)),
        interval_s_(interval_s),
        stats_json_(std::move(stats_json)),
        thread_([this] { loop(); }) {}
  ~Monitor() {
    stop_.store(true);
    thread_.join();
  }
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

 private:
  void reload() {
    try {
      auto p = std::make_shared<const Profile>(load_profile(profile_file_));
      check_queues_can_run(*p, ex_.queues(), profile_file_);
      const std::string name = p->name;
      const std::uint64_t g = ex_.offer(std::move(p));
      current_.set(name);
      std::cerr << "gradwall emu: SIGHUP: profile " << name << " from " << profile_file_
                << " handed to the data plane (generation " << g << ")\n";
    } catch (const InputError& e) {
      std::cerr << "gradwall emu: SIGHUP: profile rejected, the old one keeps running: " << e.what() << "\n";
    }
  }

  void report(double seconds) {
    const nlohmann::json j = live_stats_json(ex_, current_, seconds);
    std::cerr << "gradwall emu: " << static_cast<long>(seconds) << " s";
    for (const char* lane : {"a_to_b", "b_to_a"}) {
      const auto& d = j[lane];
      std::cerr << "; " << lane << " received " << d["received"].get<std::uint64_t>() << " sent "
                << d["sent"].get<std::uint64_t>() << " dropped " << d["dropped_total"].get<std::uint64_t>()
                << " held " << d["held"].get<std::uint64_t>();
    }
    std::cerr << "\n";
    if (!stats_json_.empty()) {
      try {
        write_json_file(stats_json_, j);
      } catch (const EnvironmentError& e) {
        std::cerr << "gradwall emu: --stats-interval: " << e.what() << "\n";
      }
    }
  }

  void loop() {
    const auto start = std::chrono::steady_clock::now();
    auto next_report = start + std::chrono::duration<double>(interval_s_);
    while (!stop_.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (g_reload.exchange(false)) {
        reload();
      }
      const auto now = std::chrono::steady_clock::now();
      if (interval_s_ > 0 && now >= next_report) {
        report(std::chrono::duration<double>(now - start).count());
        next_report += std::chrono::duration<double>(interval_s_);
      }
    }
  }

  Exchange& ex_;
  CurrentProfile& current_;
  std::string profile_file_;
  double interval_s_;
  std::string stats_json_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

Duration seconds_option(double s, const char* name) {
  if (!(s >= 0) || s > 1e6) {
    throw InputError(std::string("--") + name, "",
                     "must be a number of seconds in [0, 1e6], got " + std::to_string(s));
  }
  return Duration{static_cast<std::int64_t>(s * 1e9)};
}

// What the command line asks for.
struct EmuRequest {
  std::string profile_file;
  std::string stats_json;
  std::string metrics;  // normalised to IPV4:PORT once checked
  std::string capture_dir;
  std::string control;
  std::string control_token_file;
  std::optional<ListenAddress> control_address;
  double duration_s = 0;
  double drain_s = 0.5;
  double stats_interval_s = 0;
  double capture_max_mb = 100;
  unsigned idle_sleep_us = 100;
  unsigned publish_ms = 100;
  std::uint32_t mbufs = 0;                  // 0: sized from the profile
  std::optional<std::uint32_t> copy_slots;  // unset: the pool's size
  unsigned queues = 1;
  std::string layout = "queues";
  std::uint32_t max_frame_bytes = 2048;
  unsigned int_dscp = kIntDefaultDscp;
  int rt_priority = 0;
  bool busy_poll = false;
  Args eal_args;  // everything after the first `--`
};

po::options_description emu_options(EmuRequest& r) {
  po::options_description opts(
      "gradwall emu --profile FILE [options] -- EAL-ARGS\n\n"
      "Forwards between two DPDK ports through the profile's impairments: port 0 faces side A\n"
      "(its traffic goes through a_to_b), port 1 side B (b_to_a). With two lcores (-l 0,1) each\n"
      "direction has its own; with one (-l 0) one lcore does both. When nothing was received and\n"
      "nothing held is due sooner, it sleeps --idle-sleep-us between polls (rx may then wait that\n"
      "long) unless --busy-poll. On SIGINT/SIGTERM or after --duration it stops receiving, keeps\n"
      "sending what is held at its release time for up to --drain seconds, then frees the rest\n"
      "(counted as dropped: shutdown), closes the ports and checks that received + duplicates =\n"
      "sent + dropped + held in each direction and that every mbuf is back in the pool.\n"
      "SIGHUP re-reads the profile file (a bad one is rejected, the old one keeps running).\n"
      "EAL-ARGS are DPDK's own, e.g. without hugepages:\n"
      "  -- --no-huge -m 512 --no-pci --file-prefix=gw -l 0 \\\n"
      "     --vdev=net_af_packet0,iface=gw-a-emu,framecnt=4096 "
      "--vdev=net_af_packet1,iface=gw-b-emu,framecnt=4096\n"
      "Exit: 0 balanced, 1 accounting or mbuf check failed, 2 bad input, 3 DPDK/ports failed.\nOptions");
  opts.add_options()("help,h", "this help")("profile", po::value<std::string>(&r.profile_file),
                                            "profile file (required)")(
      "duration", po::value<double>(&r.duration_s),
      "stop by itself after S seconds (default: run until a signal)")(
      "stats-json", po::value<std::string>(&r.stats_json),
      "write the counters to FILE as JSON at exit (and every --stats-interval)")(
      "stats-interval", po::value<double>(&r.stats_interval_s),
      "every S seconds: rewrite --stats-json with the live counters and print a line on stderr")(
      "publish-ms", po::value<unsigned>(&r.publish_ms)->default_value(r.publish_ms),
      "how often (ms, 10-1000) the lanes publish their counters to --stats-json, --metrics and --control's "
      "GET /stats")(
      "metrics", po::value<std::string>(&r.metrics),
      "serve Prometheus metrics on PORT (loopback) or IPV4:PORT (e.g. 9464, 127.0.0.1:9464; port 0 = "
      "any free)")("capture", po::value<std::string>(&r.capture_dir),
                   "write DIR/port{0,1}-{in,out}.pcap: what each port received and sent")(
      "capture-max-mb", po::value<double>(&r.capture_max_mb)->default_value(r.capture_max_mb),
      "size bound per capture file (MiB); past it frames are counted, not written")(
      "control", po::value<std::string>(&r.control),
      "HTTP control endpoint on PORT (loopback), IPV4:PORT or [IPV6]:PORT (GET /stats, POST /profile); "
      "needs --control-token-file; loopback only unless --control-allow-remote")(
      "control-allow-remote", "let --control listen on a non-loopback address (the token travels in clear)")(
      "control-token-file", po::value<std::string>(&r.control_token_file),
      "file whose first line is the bearer token the control endpoint requires")(
      "drain", po::value<double>(&r.drain_s)->default_value(r.drain_s),
      "seconds to keep sending held packets after stop")(
      "busy-poll", "never sleep when idle (lowest rx latency, one CPU per lcore at 100 %)")(
      "idle-sleep-us", po::value<unsigned>(&r.idle_sleep_us)->default_value(r.idle_sleep_us),
      "sleep when idle (nothing received, nothing due sooner); 0 = --busy-poll")(
      "rt-priority", po::value<int>(&r.rt_priority),
      "run the forwarding lcores SCHED_FIFO at this priority (1-99; root): timely wakeups on a busy "
      "machine; use with the idle back-off, not --busy-poll (the kernel throttles real-time spinning)")(
      "mbufs", po::value<std::uint32_t>(&r.mbufs),
      "mbufs in the pool, instead of the size worked out from the profile (rate x longest hold "
      "+ queue limits, full-size frames; docs/guide/emu.md); each takes ~2.3 KiB of EAL memory")(
      "copy-slots", po::value<std::uint32_t>(),
      "per direction, hold up to N small frames (<= 128 B) as copies and free their mbufs on entry "
      "(faster at small frames: docs/guide/emu.md); 0 = hold every frame in its mbuf; default: the "
      "pool's mbuf count")(
      "max-frame-bytes", po::value<std::uint32_t>(&r.max_frame_bytes)->default_value(r.max_frame_bytes),
      "largest frame one mbuf holds (data room = this + 128 B headroom); jumbo frames: 9018, or with "
      "af_packet framesz=F at least F - 32 (e.g. 10240 for framesz=10240); over 1518 the ports are asked "
      "for a jumbo MTU")(
      "queues", po::value<unsigned>(&r.queues)->default_value(r.queues),
      "rx/tx queue pairs per port (1-16; RSS on addresses and TCP/UDP ports keeps a flow on one queue): "
      "one lane per direction and queue, each with its own engine, spread over the EAL lcores (-l); "
      "profiles with a shared bottleneck (rate, queue, limit_packets, incast, slot) need 1 "
      "(docs/guide/emu.md)")(
      "layout", po::value<std::string>(&r.layout)->default_value(r.layout),
      "with --queues > 1, how lanes share the lcores: queues (an lcore runs both directions of its "
      "queues: balanced whatever the traffic's direction) or directions (half the lcores run a_to_b, "
      "half b_to_a: a direction's shared bottleneck is claimed from fewer lcores; docs/guide/emu.md)")(
      "int-dscp", po::value<unsigned>(&r.int_dscp)->default_value(r.int_dscp),
      "DSCP marking frames that carry an INT-MD header after TCP/UDP; the profile's queue telemetry "
      "(queue.int) is written into them (docs/guide/emu.md)");

  return opts;
}

// --copy-slots at most this: 8 GiB of 128-byte slots per direction (and a slot number never
// reaches FrameStore::kNone).
constexpr std::uint32_t kMaxCopySlots = 1U << 26;

// --queues at most this.
constexpr unsigned kMaxQueues = 16;

// Sizes and settings in their ranges.
void check_ranges(const EmuRequest& r) {
  if (!(r.capture_max_mb > 0 && r.capture_max_mb <= 1e6)) {
    throw InputError("--capture-max-mb", "", "must be in (0, 1e6], got " + std::to_string(r.capture_max_mb));
  }
  if (r.control.empty() != r.control_token_file.empty()) {
    throw InputError("--control", "", "--control and --control-token-file go together");
  }
  if (r.max_frame_bytes < 1518 || r.max_frame_bytes > 65535 - 128) {
    throw InputError("--max-frame-bytes", "",
                     "must be in [1518, 65407], got " + std::to_string(r.max_frame_bytes));
  }
  if (r.copy_slots && *r.copy_slots > kMaxCopySlots) {
    throw InputError("--copy-slots", "",
                     "must be in [0, " + std::to_string(kMaxCopySlots) +
                         "] (8 GiB of copies per direction), got " + std::to_string(*r.copy_slots));
  }
  if (r.queues < 1 || r.queues > kMaxQueues) {
    throw InputError("--queues", "",
                     "must be in [1, " + std::to_string(kMaxQueues) + "], got " + std::to_string(r.queues));
  }
  if (r.layout != "queues" && r.layout != "directions") {
    throw InputError("--layout", "", "must be queues or directions, got \"" + r.layout + "\"");
  }
  if (r.queues > 1 && !r.capture_dir.empty()) {
    throw InputError("--capture", "", "captures one queue pair per port: use --queues 1 with --capture");
  }
  if (r.int_dscp > 63) {
    throw InputError("--int-dscp", "", "must be a DSCP in [0, 63], got " + std::to_string(r.int_dscp));
  }
}

// --control on loopback unless --control-allow-remote; --metrics on IPv4 (civetweb).
void check_listen_addresses(EmuRequest& r, bool allow_remote) {
  if (!r.control.empty()) {
    r.control_address = parse_listen_address("--control", r.control);
    if (!r.control_address->loopback && !allow_remote) {
      throw InputError(
          "--control", "",
          r.control_address->host +
              " is not a loopback address; the endpoint changes the running profile and its token "
              "travels in clear: use 127.0.0.1 or [::1], or give --control-allow-remote");
    }
  }
  if (!r.metrics.empty()) {
    const ListenAddress m = parse_listen_address("--metrics", r.metrics);
    if (m.ipv6) {
      // Debian's civetweb (under prometheus-cpp) is built without IPv6: it cannot bind [::1].
      throw InputError("--metrics", "",
                       "IPv6 is not supported here (civetweb without IPv6); use PORT or IPV4:PORT");
    }
    r.metrics = m.text();
  }
}

// The request, or nullopt after printing the help. InputError names the option at fault.
std::optional<EmuRequest> parse_request(const Args& args) {
  EmuRequest r;
  const po::options_description opts = emu_options(r);
  Args ours = args;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {
      ours.assign(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(i));
      r.eal_args.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
  }
  po::variables_map vm;
  po::store(po::command_line_parser(ours).options(opts).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return std::nullopt;
  }
  if (r.profile_file.empty()) {
    throw InputError("emu", "",
                     "needs --profile FILE and EAL arguments after `--` (see gradwall emu --help)");
  }
  if (vm.count("mbufs") && r.mbufs < 4096) {
    throw InputError("--mbufs", "",
                     "must be at least 4096 (rx/tx rings of two ports), got " + std::to_string(r.mbufs));
  }
  if (vm.count("stats-interval") && !(r.stats_interval_s >= 0.1 && r.stats_interval_s <= 86400)) {
    throw InputError("--stats-interval", "",
                     "must be seconds in [0.1, 86400], got " + std::to_string(r.stats_interval_s));
  }
  if (r.publish_ms < 10 || r.publish_ms > 1000) {
    throw InputError("--publish-ms", "", "must be in [10, 1000], got " + std::to_string(r.publish_ms));
  }
  if (vm.count("rt-priority") && (r.rt_priority < 1 || r.rt_priority > 99)) {
    throw InputError("--rt-priority", "", "must be in [1, 99], got " + std::to_string(r.rt_priority));
  }
  r.busy_poll = vm.count("busy-poll") > 0;
  if (vm.count("copy-slots")) {
    r.copy_slots = vm["copy-slots"].as<std::uint32_t>();
  }
  check_ranges(r);
  check_listen_addresses(r, vm.count("control-allow-remote") > 0);
  return r;
}

ForwarderOptions forwarder_options(const EmuRequest& r) {
  ForwarderOptions fo;
  fo.int_dscp = static_cast<std::uint8_t>(r.int_dscp);
  fo.rt_priority = r.rt_priority;
  fo.queues = static_cast<std::uint16_t>(r.queues);
  fo.layout = r.layout == "directions" ? LaneLayout::kDirections : LaneLayout::kQueues;
  fo.duration = seconds_option(r.duration_s, "duration");
  fo.drain = seconds_option(r.drain_s, "drain");
  fo.idle_sleep = r.busy_poll ? Duration{0} : Duration{std::chrono::microseconds(r.idle_sleep_us)};
  fo.publish_interval = Duration{std::chrono::milliseconds(r.publish_ms)};
  return fo;
}

// The mbuf pool's size and data room: --mbufs or worked out from the profile (docs/guide/emu.md),
// said on stderr.
struct PoolPlan {
  std::uint32_t mbufs = 0;
  std::uint16_t data_room = 0;
};

PoolPlan plan_pool(const Profile& profile, const PortIds& ids, const ForwarderOptions& fo,
                   const EmuRequest& r) {
  const BitRate link{std::max(port_speed(ids.a).bps, port_speed(ids.b).bps)};
  const PoolSizing sizing = size_mbuf_pool(
      profile, link,
      mbufs_outside_the_profile(1 + static_cast<unsigned>(fo.worker_lcores.size()), fo.queues));
  PoolPlan plan;
  plan.mbufs = r.mbufs > 0 ? r.mbufs : sizing.mbufs;
  // Ports that can chain mbufs (scattered rx) take long frames in default-size mbufs; the
  // others (af_packet) need each frame in one mbuf.
  const bool chained =
      r.max_frame_bytes > kDefaultMbufDataRoom - 128U && can_scatter(ids.a) && can_scatter(ids.b);
  plan.data_room = chained ? kDefaultMbufDataRoom : mbuf_data_room(r.max_frame_bytes);
  std::cerr << "gradwall emu: mbuf pool " << plan.mbufs << " mbufs of " << plan.data_room << " data bytes"
            << (chained ? " (longer frames in chained mbufs)" : "") << ", ~"
            << pool_mib(plan.mbufs, mbuf_object_bytes(plan.data_room)) << " MiB of EAL memory ("
            << (r.mbufs > 0 ? "--mbufs" : "sized from the profile") << ": in flight a_to_b "
            << sizing.in_flight_a_to_b << " + b_to_a " << sizing.in_flight_b_to_a << " + ports and caches "
            << sizing.fixed << " at " << static_cast<double>(link.bps) / 1e9 << " Gbit/s link, minimum "
            << kMinMbufs << ")\n";
  return plan;
}

// --capture: the four pcap files, wired into the forwarder.
void start_capture(const EmuRequest& r, std::optional<Capture>& capture, ForwarderOptions& fo) {
  if (r.capture_dir.empty()) {
    return;
  }
  capture.emplace(r.capture_dir, static_cast<std::uint64_t>(r.capture_max_mb * 1024 * 1024));
  fo.capture_a_in = capture->port_in(0);
  fo.capture_a_out = capture->port_out(0);
  fo.capture_b_in = capture->port_in(1);
  fo.capture_b_out = capture->port_out(1);
}

// --control: GET /stats (the counters since `started`), POST /profile.
void start_control(const EmuRequest& r, const std::string& token, Exchange& exchange, CurrentProfile& current,
                   const std::chrono::steady_clock::time_point& started,
                   std::optional<ControlServer>& server) {
  if (r.control.empty()) {
    return;
  }
  ControlServer::Hooks hooks;
  hooks.stats = [&exchange, &current, &started] {
    return live_stats_json(exchange, current,
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  };
  hooks.applied = [&current](const Profile& p) {
    current.set(p.name);
    std::cerr << "gradwall emu: control: profile " << p.name << " applied\n";
  };
  server.emplace(*r.control_address, token, exchange, hooks);
  std::cerr << "gradwall emu: control endpoint on "
            << (r.control_address->ipv6 ? "[" + r.control_address->host + "]" : r.control_address->host)
            << ":" << server->port() << "\n";
}

// The run's counters on stdout, and in --stats-json (final).
void report_stats(const EmuStats& stats, const std::string& profile, const nlohmann::json& capture_json,
                  const std::string& stats_json) {
  std::cout << "gradwall emu: forwarded for " << stats.seconds << " s through profile " << profile << "\n"
            << to_table(stats);
  for (const auto& f : capture_json) {
    std::cout << "capture " << f["file"].get<std::string>() << ": " << f["captured"]
              << " frames written, not captured: " << f["ring_full"] << " (ring full), " << f["size_limit"]
              << " (size limit)\n";
  }
  if (!stats_json.empty()) {
    nlohmann::json j = to_json(stats);
    j["profile"] = profile;
    j["final"] = true;
    if (!capture_json.is_null()) {
      j["capture"] = capture_json;
    }
    write_json_file(stats_json, j);
  }
}

// Which lcore runs which lane (lane_layout), for the start-up line.
std::string lanes_said(const ForwarderOptions& fo) {
  const std::vector<unsigned> layout =
      lane_layout(fo.queues, 1 + static_cast<unsigned>(fo.worker_lcores.size()), fo.layout);
  std::string out = std::to_string(fo.queues) + (fo.queues == 1 ? " queue" : " queues") + " per port;";
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const unsigned lcore = layout[i] == 0 ? main_lcore() : fo.worker_lcores[layout[i] - 1];
    out += std::string(i == 0 ? " " : ", ") + (i % 2 == 0 ? "a_to_b" : "b_to_a") + "/q" +
           std::to_string(i / 2) + " on lcore " + std::to_string(lcore);
  }
  if (fo.worker_lcores.size() + 1 > layout.size()) {
    out += " (lcores past " + std::to_string(layout.size()) + " idle: more lcores than lanes)";
  }
  return out;
}

}  // namespace

int cmd_emu(const Args& args) {
  const std::optional<EmuRequest> r = parse_request(args);
  if (!r) {
    return kExitOk;  // --help
  }
  ForwarderOptions fo = forwarder_options(*r);
  const Profile profile = load_profile(r->profile_file);
  check_queues_can_run(profile, fo.queues, r->profile_file);
  const std::string token = r->control.empty() ? std::string() : read_token_file(r->control_token_file);

  install_signal_handlers();
  const Eal eal(r->eal_args);
  const PortIds ids = first_two_ports();
  fo.worker_lcores = worker_lcores();
  const PoolPlan plan = plan_pool(profile, ids, fo, *r);
  MbufPool pool("gw_mbufs", plan.mbufs, plan.data_room);
  EthPort a(ids.a, pool.get(), r->max_frame_bytes, fo.queues);
  EthPort b(ids.b, pool.get(), r->max_frame_bytes, fo.queues);
  fo.port_a = ids.a;
  fo.port_b = ids.b;
  fo.pool = pool.get();
  fo.copy_slots = r->copy_slots.value_or(std::min(plan.mbufs, kMaxCopySlots));

  Exchange exchange(fo.queues);
  fo.exchange = &exchange;
  CurrentProfile current(profile.name);
  std::optional<MetricsServer> metrics_server;
  if (!r->metrics.empty()) {
    metrics_server.emplace(r->metrics, exchange, a.name(), b.name());
    std::cerr << "gradwall emu: metrics on http://" << r->metrics.substr(0, r->metrics.rfind(':')) << ":"
              << metrics_server->port() << "/metrics\n";
  }
  std::optional<Capture> capture;
  start_capture(*r, capture, fo);
  const auto started = std::chrono::steady_clock::now();
  std::optional<ControlServer> control_server;
  start_control(*r, token, exchange, current, started, control_server);
  std::cerr << "gradwall emu: " << a.name() << " = side A, " << b.name() << " = side B, profile "
            << profile.name << "; " << lanes_said(fo) << "; forwarding\n";
  EmuStats stats;
  {
    const Monitor monitor(exchange, current, r->profile_file, r->stats_interval_s, r->stats_json);
    stats = run_forwarder(profile, fo, g_stop);
  }
  control_server.reset();
  if (fo.rt_priority > 0 && std::any_of(stats.lcores.begin(), stats.lcores.end(),
                                        [](const LcoreStats& l) { return !l.realtime; })) {
    std::cerr
        << "gradwall emu: --rt-priority: a forwarding lcore could not be made SCHED_FIFO (needs root or "
           "CAP_SYS_NICE); it ran at normal priority\n";
  }
  const nlohmann::json capture_json = capture ? capture->finish() : nlohmann::json();
  stats.port_a = a.stats();
  stats.port_b = b.stats();
  a.close();
  b.close();
  stats.pool_size = pool.size();
  stats.pool_available = pool.available();
  report_stats(stats, current.get(), capture_json, r->stats_json);
  // The metrics endpoint stays up until here: a scrape after traffic stopped sees the final
  // counters (published by the lanes after their drain).
  metrics_server.reset();
  const bool ok = stats.a_to_b.accounting_error().empty() && stats.b_to_a.accounting_error().empty() &&
                  stats.pool_available == stats.pool_size;
  return ok ? kExitOk : kExitCheckFailed;
}

}  // namespace gw
