// gradwall replay IN.pcap OUT.pcap --profile FILE
#include <boost/program_options.hpp>
#include <iostream>

#include "core/errors.h"
#include "emulator/engine/profile.h"
#include "emulator/replay/replay.h"
#include "harness/cli.h"
#include "harness/commands.h"

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
  opts.add_options()("help,h", "this help")
      ("profile", po::value<std::string>(&o.profile), "profile file (required)")
      ("direction", po::value<std::string>(&direction)->default_value(direction), "a_to_b or b_to_a")
      ("seed", po::value<std::uint64_t>(), "random seed (overrides the profile's)")
      ("json", "print the summary as JSON")
      ("in", po::value<std::string>(&o.input), "input pcap")
      ("out", po::value<std::string>(&o.output), "output pcap");
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
    o.seed = vm["seed"].as<std::uint64_t>();
  }
  const Profile profile = load_profile(o.profile);
  const ReplaySummary s = replay(profile, o);
  const auto held = s.packets_in + s.duplicated - s.delivered - s.dropped_total();
  if (vm.count("json")) {
    nlohmann::json dropped = nlohmann::json::object();
    for (std::size_t i = 0; i < s.dropped.size(); ++i) {
      dropped[drop_cause_name(static_cast<DropCause>(i))] = s.dropped[i];
    }
    const nlohmann::json j = {
        {"input", o.input}, {"output", o.output}, {"profile", profile.name}, {"direction", direction},
        {"seed", o.seed.value_or(profile.seed)}, {"packets_in", s.packets_in}, {"bytes_in", s.bytes_in},
        {"delivered", s.delivered}, {"bytes_delivered", s.bytes_delivered}, {"dropped", dropped},
        {"dropped_total", s.dropped_total()}, {"marked_ce", s.marked_ce}, {"duplicated", s.duplicated},
        {"corrupted", s.corrupted}, {"reordered", s.reordered}, {"held_at_end", held},
        {"snapshot_truncated", s.snapshot_truncated},
        {"delay_ns", {{"count", s.delay.count}, {"mean", s.delay.mean.count()}, {"min", s.delay.min.count()},
                      {"p50", s.delay.p50.count()}, {"p90", s.delay.p90.count()}, {"p99", s.delay.p99.count()},
                      {"p999", s.delay.p999.count()}, {"max", s.delay.max.count()}}}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "replayed " << o.input << " -> " << o.output << " through " << profile.name << " (" << direction
              << ", seed " << o.seed.value_or(profile.seed) << ")\n"
              << "  in " << s.packets_in << ", written " << s.delivered << ", dropped " << s.dropped_total()
              << ", marked CE " << s.marked_ce << ", duplicated " << s.duplicated << ", corrupted "
              << s.corrupted << ", reordered " << s.reordered << "\n";
  }
  return held == 0 ? kExitOk : kExitCheckFailed;
}

}  // namespace gw
