// gradwall profile from-netem 'ARGS' | profile to-netem FILE
#include <boost/program_options.hpp>
#include <iostream>

#include "core/errors.h"
#include "emulator/engine/engine.h"
#include "emulator/engine/netem.h"
#include "emulator/engine/profile.h"
#include "emulator/engine/profile_writer.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"

namespace gw {
namespace po = boost::program_options;

int cmd_profile_from_netem(const Args& args) {
  po::options_description opts(
      "gradwall profile from-netem 'ARGS' [options]\n\n"
      "Prints the profile equivalent to a tc-netem(8) argument string, e.g.\n"
      "  gradwall profile from-netem 'delay 25ms 2ms 25% loss gemodel 1% 10% rate 10gbit'\n"
      "Both directions get the same impairment. What iproute2 rejects is rejected with the\n"
      "same meaning.\nOptions");
  std::string name = "from-netem";
  opts.add_options()("help,h", "this help")("name", po::value<std::string>(&name)->default_value(name),
                                            "profile name")(
      "args", po::value<std::vector<std::string>>()->composing(), "netem arguments");
  po::positional_options_description pos;
  pos.add("args", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help") || !vm.count("args")) {
    (vm.count("help") ? std::cout : std::cerr) << opts << "\n";
    return vm.count("help") ? kExitOk : kExitBadInput;
  }
  // Accept both one quoted string and the words as separate arguments.
  std::string text;
  for (const auto& a : vm["args"].as<std::vector<std::string>>()) {
    text += (text.empty() ? "" : " ") + a;
  }
  const NetemResult r = netem_to_direction(split_args(text));
  Profile p;
  p.name = name;
  p.description = "tc-netem: " + text;
  p.seed = r.seed.value_or(1);
  p.a_to_b = r.dir;
  p.b_to_a = r.dir;
  nlohmann::json j = profile_to_json(p);
  // What we print must load back to the same settings: check it with the real loader.
  try {
    parse_profile(j, "<from-netem>");
  } catch (const InputError& e) {
    throw EnvironmentError(std::string("internal error: the profile written does not load back: ") +
                           e.what());
  }
  // Print the version and names first, as the shipped profiles read.
  nlohmann::ordered_json ordered;
  for (const char* key : {"gradwall", "name", "description", "seed"}) {
    if (j.contains(key)) {
      ordered[key] = j[key];
    }
  }
  for (const auto& [key, value] : j.items()) {
    if (!ordered.contains(key)) {
      ordered[key] = value;
    }
  }
  std::cout << ordered.dump(2) << "\n";
  return kExitOk;
}

int cmd_profile_to_netem(const Args& args) {
  po::options_description opts(
      "gradwall profile to-netem FILE [options]\n\n"
      "Prints the netem-expressible part of one direction of a profile as iproute2's\n"
      "`tc qdisc show` prints netem options; what netem cannot express is listed on stderr.\nOptions");
  std::string direction = "a_to_b";
  opts.add_options()("help,h", "this help")(
      "direction", po::value<std::string>(&direction)->default_value(direction), "a_to_b or b_to_a")(
      "command", "print arguments for `tc qdisc add ... netem` (exact units, distribution names) instead")(
      "file", po::value<std::string>(), "profile");
  po::positional_options_description pos;
  pos.add("file", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help") || !vm.count("file")) {
    (vm.count("help") ? std::cout : std::cerr) << opts << "\n";
    return vm.count("help") ? kExitOk : kExitBadInput;
  }
  if (direction != "a_to_b" && direction != "b_to_a") {
    throw InputError("--direction", "", "must be a_to_b or b_to_a, got \"" + direction + "\"");
  }
  const Profile p = load_profile(vm["file"].as<std::string>());
  const DirectionSpec& d = direction == "a_to_b" ? p.a_to_b : p.b_to_a;
  NetemPrintOptions o;
  o.form = vm.count("command") ? NetemForm::kCommand : NetemForm::kShow;
  std::vector<std::string> lost;
  std::cout << direction_to_netem(d, lost, o) << "\n";
  for (const auto& l : lost) {
    std::cerr << "gradwall: not expressible in netem: " << l << "\n";
  }
  if (!p.classes.empty()) {
    std::cerr << "gradwall: not expressible in netem: " << p.classes.size() << " traffic class(es)\n";
  }
  if (!p.phases.empty()) {
    std::cerr << "gradwall: not expressible in netem: " << p.phases.size() << " phase(s)\n";
  }
  if (p.streams.per_flow) {
    std::cerr << "gradwall: not expressible in netem: per-flow random streams (netem draws from one)\n";
  }
  return kExitOk;
}

}  // namespace gw
