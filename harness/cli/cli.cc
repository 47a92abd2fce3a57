#include "harness/cli/cli.h"

#include <boost/program_options/errors.hpp>
#include <iostream>
#include <map>
#include <string>

#include "core/errors.h"
#include "harness/cli/commands.h"

namespace gw {
namespace {

struct Command {
  const char* words;
  const char* summary;
  int (*run)(const Args&);
};

const Command kCommands[] = {
    {"profile validate", "validate profiles (file, JSON path and reason for each error)",
     cmd_profile_validate},
    {"profile from-netem", "print the profile equivalent to a tc-netem argument string",
     cmd_profile_from_netem},
    {"profile to-netem", "print a profile's netem-expressible part as `tc qdisc show` does",
     cmd_profile_to_netem},
    {"profile probe", "push synthetic traffic through a profile in virtual time", cmd_profile_probe},
    {"replay", "impair a pcap capture offline", cmd_replay},
    {"emu", "forward between two DPDK ports through a profile (inline emulator)", cmd_emu},
    {"run", "run a scenario (virtual time, or live through gradwall emu); write result.json and the reports",
     cmd_run},
    {"compare", "compare two runs (report.json or result.json); exit 1 on a regression", cmd_compare},
    {"sweep", "run a grid of a scenario's settings; one comparison report", cmd_sweep},
    {"advise", "search the cheapest change that makes a scenario pass; ranked advice and settings to paste",
     cmd_advise},
    {"train", "learn the `learned` controller's pacing policy in the simulator", cmd_train},
    {"endpoint", nullptr, cmd_endpoint},          // hidden: one side of a live run (live_runner.h)
    {"endpoint-tcp", nullptr, cmd_endpoint_tcp},  // hidden: one side of a kernel-TCP baseline run
};

void usage(std::ostream& os) {
  os << "usage: gradwall <command> [options]   (gradwall <command> --help for its options)\n\ncommands:\n";
  for (const Command& c : kCommands) {
    if (c.summary == nullptr) {
      continue;
    }
    const std::string w = c.words;
    os << "  " << w << std::string(w.size() < 22 ? 22 - w.size() : 1, ' ') << c.summary << "\n";
  }
  os << "\nexit codes: 0 ok, 1 check failed, 2 bad input, 3 environment or runtime failure\n";
}

}  // namespace

int cli_main(int argc, char** argv) {
  const Args all(argv + 1, argv + argc);
  if (all.empty() || all[0] == "--help" || all[0] == "-h" || all[0] == "help") {
    usage(all.empty() ? std::cerr : std::cout);
    return all.empty() ? kExitBadInput : kExitOk;
  }
  if (all[0] == "--version") {
    std::cout << "gradwall 0.1.0\n";
    return kExitOk;
  }
  for (const Command& c : kCommands) {
    const std::string words = c.words;
    const auto space = words.find(' ');
    const bool two = space != std::string::npos;
    if (all[0] != words.substr(0, space) || (two && (all.size() < 2 || all[1] != words.substr(space + 1)))) {
      continue;
    }
    const Args rest(all.begin() + (two ? 2 : 1), all.end());
    try {
      return c.run(rest);
    } catch (const InputError& e) {
      std::cerr << "gradwall: " << e.what() << "\n";
      return kExitBadInput;
    } catch (const boost::program_options::error& e) {
      std::cerr << "gradwall " << words << ": " << e.what() << " (see gradwall " << words << " --help)\n";
      return kExitBadInput;
    } catch (const EnvironmentError& e) {
      std::cerr << "gradwall: " << e.what() << "\n";
      return kExitEnvironment;
    } catch (const std::exception& e) {
      std::cerr << "gradwall: internal error: " << e.what() << "\n";
      return kExitEnvironment;
    }
  }
  if (all[0] == "profile") {
    std::cerr << "gradwall: unknown profile command"
              << (all.size() > 1 ? " \"" + all[1] + "\"" : std::string{}) << "\n\n";
  } else {
    std::cerr << "gradwall: unknown command \"" << all[0] << "\"\n\n";
  }
  usage(std::cerr);
  return kExitBadInput;
}

}  // namespace gw
