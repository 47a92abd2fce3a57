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
#include <atomic>
#include <boost/program_options.hpp>
#include <csignal>
#include <fstream>
#include <iostream>

#include "core/errors.h"
#include "emulator/dpdk/eal.h"
#include "emulator/dpdk/forwarder.h"
#include "emulator/dpdk/port.h"
#include "emulator/engine/profile.h"
#include "harness/cli.h"
#include "harness/commands.h"

namespace gw {
namespace po = boost::program_options;
namespace {

// The one piece of global state: a signal handler can reach nothing else. It only sets the flag.
std::atomic<bool> g_stop{false};

extern "C" void on_stop_signal(int /*sig*/) {
  g_stop.store(true, std::memory_order_relaxed);
}

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

Duration seconds_option(double s, const char* name) {
  if (!(s >= 0) || s > 1e6) {
    throw InputError(std::string("--") + name, "",
                     "must be a number of seconds in [0, 1e6], got " + std::to_string(s));
  }
  return Duration{static_cast<std::int64_t>(s * 1e9)};
}

}  // namespace

int cmd_emu(const Args& args) {
  po::options_description opts(
      "gradwall emu --profile FILE [options] -- EAL-ARGS\n\n"
      "Forwards between two DPDK ports through the profile's impairments: port 0 faces side A\n"
      "(its traffic goes through a_to_b), port 1 side B (b_to_a). One lcore does both\n"
      "directions. When nothing was received and nothing held is due sooner, it sleeps\n"
      "--idle-sleep-us between polls (rx may then wait that long; --idle-sleep-us 0 busy-polls).\n"
      "On SIGINT/SIGTERM or after --duration it stops receiving, keeps sending\n"
      "what is held at its release time for up to --drain seconds, then frees the rest\n"
      "(counted as dropped: shutdown), closes the ports and checks that received + duplicates =\n"
      "sent + dropped + held in each direction and that every mbuf is back in the pool.\n"
      "EAL-ARGS are DPDK's own, e.g. without hugepages:\n"
      "  -- --no-huge -m 512 --no-pci --file-prefix=gw -l 0 \\\n"
      "     --vdev=net_af_packet0,iface=gw-a-emu,framecnt=4096 "
      "--vdev=net_af_packet1,iface=gw-b-emu,framecnt=4096\n"
      "Exit: 0 balanced, 1 accounting or mbuf check failed, 2 bad input, 3 DPDK/ports failed.\nOptions");
  std::string profile_file;
  std::string stats_json;
  double duration_s = 0;
  double drain_s = 0.5;
  unsigned idle_sleep_us = 100;
  std::uint32_t mbufs = 32767;
  opts.add_options()("help,h", "this help")("profile", po::value<std::string>(&profile_file),
                                            "profile file (required)")(
      "duration", po::value<double>(&duration_s),
      "stop by itself after S seconds (default: run until a signal)")(
      "stats-json", po::value<std::string>(&stats_json), "write the exit counters to FILE as JSON")(
      "drain", po::value<double>(&drain_s)->default_value(drain_s),
      "seconds to keep sending held packets after stop")(
      "idle-sleep-us", po::value<unsigned>(&idle_sleep_us)->default_value(idle_sleep_us),
      "sleep when idle (nothing received, nothing due sooner); 0 = busy poll")(
      "mbufs", po::value<std::uint32_t>(&mbufs)->default_value(mbufs),
      "mbufs in the pool (2^n - 1 is best); each takes ~2.3 KiB of EAL memory");

  // Everything after the first `--` belongs to the EAL.
  Args ours = args;
  Args eal_args;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {
      ours.assign(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(i));
      eal_args.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
  }
  po::variables_map vm;
  po::store(po::command_line_parser(ours).options(opts).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  if (profile_file.empty()) {
    throw InputError("emu", "",
                     "needs --profile FILE and EAL arguments after `--` (see gradwall emu --help)");
  }
  if (mbufs < 4096) {
    throw InputError("--mbufs", "",
                     "must be at least 4096 (rx/tx rings of two ports), got " + std::to_string(mbufs));
  }
  ForwarderOptions fo;
  fo.duration = seconds_option(duration_s, "duration");
  fo.drain = seconds_option(drain_s, "drain");
  fo.idle_sleep = std::chrono::microseconds(idle_sleep_us);
  const Profile profile = load_profile(profile_file);

  install_stop_handlers();
  const Eal eal(eal_args);
  MbufPool pool("gw_mbufs", mbufs, kDefaultMbufDataRoom);
  const PortIds ids = first_two_ports();
  EthPort a(ids.a, pool.get());
  EthPort b(ids.b, pool.get());
  std::cerr << "gradwall emu: " << a.name() << " = side A, " << b.name() << " = side B, profile "
            << profile.name << "; forwarding\n";
  fo.port_a = ids.a;
  fo.port_b = ids.b;
  fo.pool = pool.get();
  EmuStats stats = run_forwarder(profile, fo, g_stop);
  stats.port_a = a.stats();
  stats.port_b = b.stats();
  a.close();
  b.close();
  stats.pool_size = pool.size();
  stats.pool_available = pool.available();

  std::cout << "gradwall emu: forwarded for " << stats.seconds << " s through profile " << profile.name
            << "\n"
            << to_table(stats);
  if (!stats_json.empty()) {
    nlohmann::json j = to_json(stats);
    j["profile"] = profile.name;
    std::ofstream f(stats_json);
    f << j.dump(2) << "\n";
    if (!f) {
      throw EnvironmentError("cannot write " + stats_json);
    }
  }
  const bool ok = stats.a_to_b.accounting_error().empty() && stats.b_to_a.accounting_error().empty() &&
                  stats.pool_available == stats.pool_size;
  return ok ? kExitOk : kExitCheckFailed;
}

}  // namespace gw
