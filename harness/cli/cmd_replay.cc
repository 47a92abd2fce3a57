// gradwall replay IN.pcap OUT.pcap --profile FILE
#include <boost/program_options.hpp>
#include <iostream>

#include "core/errors.h"
#include "emulator/engine/profile.h"
#include "emulator/replay/replay.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"

namespace gw {
namespace po = boost::program_options;

int cmd_replay(const Args& args) {
  po::options_description opts(
      "gradwall replay IN.pcap OUT.pcap --profile FILE [options]\n\n"
      "Impairs a capture offline: each packet enters one direction of the profile at its\n"
      "capture time; OUT gets what is delivered, at its release time, with CE marks and bit\n"
      "errors applied to the bytes and duplicates written twice. Drops are left out.\nOptions");
  ReplayOptions o;
  std::string direction = "a_to_b";
  opts.add_options()("help,h", "this help")("profile", po::value<std::string>(&o.profile),
                                            "profile file (required)")(
      "direction", po::value<std::string>(&direction)->default_value(direction), "a_to_b or b_to_a")(
      "seed", po::value<std::string>(), "random seed, 0 to 2^64-1 (overrides the profile's)")(
      "json", "print the summary as JSON")("in", po::value<std::string>(&o.input), "input pcap")(
      "out", po::value<std::string>(&o.output), "output pcap");
  po::positional_options_description pos;
  pos.add("in", 1).add("out", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  if (o.input.empty() || o.output.empty() || o.profile.empty()) {
    throw InputError("replay", "", "needs IN.pcap, OUT.pcap and --profile FILE (see gradwall replay --help)");
  }
  if (direction != "a_to_b" && direction != "b_to_a") {
    throw InputError("--direction", "", "must be a_to_b or b_to_a, got \"" + direction + "\"");
  }
  o.direction = direction == "a_to_b" ? Direction::kAToB : Direction::kBToA;
  if (vm.count("seed")) {
    o.seed = parse_seed_option(vm["seed"].as<std::string>());
  }
  const Profile profile = load_profile(o.profile);
  const ReplaySummary s = replay(profile, o);
  const ImpairmentSummary& sum = s.impairment;
  if (vm.count("json")) {
    nlohmann::json j = to_json(sum);
    j["input"] = o.input;
    j["output"] = o.output;
    j["profile"] = profile.name;
    j["direction"] = direction;
    j["seed"] = o.seed.value_or(profile.seed);
    j["snapshot_truncated"] = s.snapshot_truncated;
    j["corrupt_beyond_capture"] = s.corrupt_beyond_capture;
    j["input_time_went_back"] = s.input_time_went_back;
    j["gaps_shortened"] = s.gaps_shortened;
    j["idle_skipped_ns"] = s.idle_skipped.count();
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "replayed " << o.input << " -> " << o.output << " through profile " << profile.name << " ("
              << direction << ", seed " << o.seed.value_or(profile.seed) << ")\n\n"
              << to_table(sum);
    if (s.snapshot_truncated > 0 || s.input_time_went_back > 0) {
      std::cout << "input\n  snapshot-truncated      " << s.snapshot_truncated
                << "\n  time went back          " << s.input_time_went_back << "\n";
    }
    if (s.gaps_shortened > 0) {
      std::cout << "idle gaps (cross traffic not simulated: docs/guide/replay.md)\n  shortened               "
                << s.gaps_shortened << " (" << static_cast<double>(s.idle_skipped.count()) / 1e9
                << " s cut)\n";
    }
  }
  return accounting_error(sum).empty() ? kExitOk : kExitCheckFailed;
}

}  // namespace gw
