// gradwall profile validate | probe
#include <algorithm>
#include <boost/program_options.hpp>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "core/errors.h"
#include "core/json_reader.h"
#include "core/paths.h"
#include "core/units.h"
#include "emulator/engine/profile.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/scenario.h"
#include "harness/sim/probe.h"

namespace gw {
namespace po = boost::program_options;

namespace {

po::variables_map parse(const Args& args, const po::options_description& opts,
                        const po::positional_options_description& pos) {
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  po::notify(vm);
  return vm;
}

}  // namespace

std::uint64_t parse_seed_option(const std::string& text) {
  const bool digits = !text.empty() && text.size() <= 20 &&
                      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits) {
    errno = 0;
    const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
    if (errno == 0) {
      return v;
    }
  }
  throw InputError("--seed", "", "must be an integer in [0, 2^64-1], got \"" + text + "\"");
}

std::string default_profile_path() {
  for (const auto& dir : data_search_dirs("wan")) {
    const std::string f = dir + "/cross-continent.json";
    if (std::filesystem::exists(f)) {
      return f;
    }
  }
  throw EnvironmentError(
      "the default profile wan/cross-continent.json was not found (searched the data folders; set "
      "GRADWALL_DATA_DIR)");
}

int cmd_profile_validate(const Args& args) {
  po::options_description opts(
      "gradwall profile validate FILE...\n\nValidates profiles and scenarios; each error names the file, the "
      "JSON path and "
      "the reason.\nOptions");
  opts.add_options()("help,h", "this help")("file", po::value<std::vector<std::string>>()->composing(),
                                            "files");
  po::positional_options_description pos;
  pos.add("file", -1);
  const auto vm = parse(args, opts, pos);
  if (vm.count("help") || !vm.count("file")) {
    (vm.count("help") ? std::cout : std::cerr) << opts << "\n";
    return vm.count("help") ? kExitOk : kExitBadInput;
  }
  int rc = kExitOk;
  for (const auto& f : vm["file"].as<std::vector<std::string>>()) {
    try {
      // A scenario says so in its "gradwall" key; everything else is read as a profile.
      nlohmann::json doc;
      try {
        doc = read_json_file(f);
      } catch (const InputError&) {
        doc = nullptr;  // load_profile reports it
      }
      if (document_kind(doc) == "scenario/v1") {
        const Scenario s = parse_scenario(doc, f);
        std::size_t flows = 0;
        for (const FlowSpec& fl : s.workload.flows) {
          flows += fl.count;
        }
        std::cout << f << ": ok (scenario \"" << s.name << "\", " << s.topology.regions.size()
                  << " regions and relays, " << s.topology.wan.size() << " WAN links, " << flows
                  << (flows == 1 ? " flow)\n" : " flows)\n");
        continue;
      }
      const Profile p = load_profile(f);
      std::cout << f << ": ok (profile \"" << p.name << "\", " << p.classes.size()
                << (p.classes.size() == 1 ? " class, " : " classes, ") << p.phases.size()
                << (p.phases.size() == 1 ? " phase)\n" : " phases)\n");
    } catch (const InputError& e) {
      std::cerr << e.what() << "\n";
      rc = kExitBadInput;
    }
  }
  return rc;
}

namespace {

// The probe's settings from its command line, checked (exit 2 naming the option).
ProbeOptions probe_options(ProbeOptions o, const std::string& rate, const std::string& ecn,
                           const std::string& direction, std::int64_t packets, std::int64_t size,
                           std::int64_t flows, const po::variables_map& vm) {
  const auto r = parse_rate(rate);
  if (!r || r->bps == 0) {
    throw InputError("--rate", "", "\"" + rate + "\" is not a rate (e.g. 100Mbit, 10Gbit)");
  }
  o.rate = *r;
  if (ecn == "none") {
    o.ecn = Ecn::kNotEct;
  } else if (ecn == "ect0") {
    o.ecn = Ecn::kEct0;
  } else if (ecn == "ect1") {
    o.ecn = Ecn::kEct1;
  } else {
    throw InputError("--ecn", "", "must be none, ect0 or ect1, got \"" + ecn + "\"");
  }
  if (direction != "a_to_b" && direction != "b_to_a") {
    throw InputError("--direction", "", "must be a_to_b or b_to_a, got \"" + direction + "\"");
  }
  o.direction = direction == "a_to_b" ? Direction::kAToB : Direction::kBToA;
  if (packets < 1 || packets > 1'000'000'000) {
    throw InputError("--packets", "", "must be in [1, 1000000000], got " + std::to_string(packets));
  }
  if (size < 64 || size > 65535) {
    throw InputError("--size", "", "must be in [64, 65535] bytes, got " + std::to_string(size));
  }
  if (flows < 1 || flows > 65535) {
    throw InputError("--flows", "", "must be in [1, 65535], got " + std::to_string(flows));
  }
  o.packets = static_cast<std::uint64_t>(packets);
  o.size_bytes = static_cast<std::uint32_t>(size);
  o.flows = static_cast<std::uint32_t>(flows);
  if (vm.count("seed")) {
    o.seed = parse_seed_option(vm["seed"].as<std::string>());
  }
  return o;
}

void print_probe(const ImpairmentSummary& s, const Profile& profile, const std::string& file,
                 const ProbeOptions& o, const std::string& rate, const std::string& direction, bool json) {
  if (json) {
    nlohmann::json j = to_json(s);
    j["profile"] = profile.name;
    j["direction"] = direction;
    j["seed"] = o.seed.value_or(profile.seed);
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "profile " << profile.name << " (" << file << "), " << direction << ", seed "
              << o.seed.value_or(profile.seed) << "\n"
              << "offered " << o.packets << " x " << o.size_bytes << " B at " << rate << " in " << o.flows
              << " flow(s)\n\n"
              << to_table(s);
  }
}

}  // namespace

int cmd_profile_probe(const Args& args) {
  po::options_description opts(
      "gradwall profile probe [FILE] [options]\n\n"
      "Pushes synthetic constant-rate traffic through one direction of a profile in virtual\n"
      "time and prints what happened. FILE defaults to the shipped default WAN profile.\nOptions");
  std::string rate = "100Mbit";
  std::string ecn = "none";
  std::string direction = "a_to_b";
  ProbeOptions o;
  // Signed, so that "-5" is an error rather than 2^64 - 5 packets.
  std::int64_t packets = static_cast<std::int64_t>(o.packets);
  std::int64_t size = o.size_bytes;
  std::int64_t flows = o.flows;
  opts.add_options()("help,h", "this help")(
      "packets", po::value<std::int64_t>(&packets)->default_value(packets), "packets to send (1 to 10^9)")(
      "size", po::value<std::int64_t>(&size)->default_value(size), "frame size in bytes (64 to 65535)")(
      "rate", po::value<std::string>(&rate)->default_value(rate), "offered load, tc units (100Mbit, 10Gbit)")(
      "flows", po::value<std::int64_t>(&flows)->default_value(flows),
      "flows (distinct UDP source ports, 1 to 65535)")("ecn",
                                                       po::value<std::string>(&ecn)->default_value(ecn),
                                                       "ECN codepoint of the traffic: none, ect0, ect1")(
      "seed", po::value<std::string>(), "random seed, 0 to 2^64-1 (overrides the profile's)")(
      "direction", po::value<std::string>(&direction)->default_value(direction), "a_to_b or b_to_a")(
      "json", "print JSON instead of a table")("file", po::value<std::string>(), "profile");
  po::positional_options_description pos;
  pos.add("file", 1);
  const auto vm = parse(args, opts, pos);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  o = probe_options(o, rate, ecn, direction, packets, size, flows, vm);
  const std::string file = vm.count("file") ? vm["file"].as<std::string>() : default_profile_path();
  const Profile profile = load_profile(file);
  const ImpairmentSummary s = run_probe(profile, o);
  print_probe(s, profile, file, o, rate, direction, vm.count("json") > 0);
  return accounting_error(s).empty() ? kExitOk : kExitCheckFailed;
}

}  // namespace gw
