#include "harness/run/workloads/reading.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "core/errors.h"
#include "core/paths.h"
#include "core/text_file.h"
#include "generators/cc/learned.h"

#include "generators/collectives/step_graph.h"

#include "harness/cli/run_cost.h"

namespace gw {

namespace fs = std::filesystem;

std::uint32_t total_hosts(const fabric::TopologySpec& topo) {
  std::uint32_t n = 0;
  for (const auto& r : topo.regions) {
    n += r.hosts;
  }
  return n;
}

std::int64_t hosts_of(const fabric::TopologySpec& t, const std::string& name) {
  for (const auto& r : t.regions) {
    if (r.name == name) {
      return r.hosts;
    }
  }
  return 0;
}

bool has_region(const fabric::TopologySpec& t, const std::string& name) {
  for (const auto& r : t.regions) {
    if (r.name == name && r.hosts > 0) {
      return true;
    }
  }
  return false;
}

coll::Placement placement_of(const fabric::TopologySpec& topo) {
  coll::Placement placement;
  for (std::uint32_t r = 0; r < topo.regions.size(); ++r) {
    for (std::uint32_t h = 0; h < topo.regions[r].hosts; ++h) {
      placement.region.push_back(r);
    }
  }
  return placement;
}

void check_schedule(const JsonReader& w, const std::string& key, const coll::CollectiveSpec& cs,
                    const fabric::TopologySpec& topo) {
  try {
    // The ring's graph is formulas (any size); other algorithms are built to be checked.
    if (cs.algorithm == coll::Algorithm::kRing ||
        estimate_steps(cs, total_hosts(topo)) <= kMaxValidatedSteps) {
      (void)coll::step_graph(cs, placement_of(topo));
    }
  } catch (const coll::CollectiveError& e) {
    w.fail(key, e.reason);
  }
}

std::uint32_t load_policy(const JsonReader& r, const std::string& key, const std::string& name) {
  // Where the file is: as given (absolute, or relative to the working directory), beside the
  // scenario, then in the shipped policies (profiles/policies, installed share/gradwall/policies).
  std::vector<fs::path> tries{fs::path(name)};
  if (fs::path(name).is_relative()) {
    tries.push_back(fs::path(r.file()).parent_path() / name);
    for (const std::string& dir : data_search_dirs("policies")) {
      tries.push_back(fs::path(dir) / name);
      tries.push_back(fs::path(dir) / (name + ".json"));
    }
  }
  const auto found =
      std::find_if(tries.begin(), tries.end(), [](const fs::path& f) { return fs::is_regular_file(f); });
  if (found == tries.end()) {
    r.fail(key, "no policy file \"" + name + "\" (as given, beside the scenario, or shipped in policies/)");
  }
  const std::string file = fs::weakly_canonical(*found).string();
  // Each file is read and registered once per process (runs, sweeps and advise load a scenario
  // many times).
  static std::mutex mutex;
  static std::map<std::string, std::uint32_t> loaded;
  const std::lock_guard lock(mutex);
  if (const auto it = loaded.find(file); it != loaded.end()) {
    return it->second;
  }
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(read_text_file(file, 64 << 20, "policy file"));
  } catch (const nlohmann::json::exception& e) {
    r.fail(key, "policy file " + file + ": not JSON: " + e.what());
  }
  try {
    const std::uint32_t id =
        cc::register_policy(std::make_shared<const cc::LearnedPolicy>(cc::parse_policy(doc)));
    loaded[file] = id;
    return id;
  } catch (const cc::PolicyError& e) {
    throw InputError(file, e.path, e.reason);
  }
}

cc::CcParams read_cc_params(const JsonReader& r, const std::string& key) {
  cc::CcParams params;
  if (!r.has(key)) {
    return params;
  }
  const JsonReader obj = r.object(key);
  for (const auto& [name, value] : obj.raw().items()) {
    if (name == "policy" && value.is_string()) {  // the learned controller's policy file
      params[name] = load_policy(obj, name, value.get<std::string>());
      continue;
    }
    params[name] = obj.number(name, -1e18, 1e18);
  }
  return params;
}

void default_learned_policy(const JsonReader& r, const std::string& cc, cc::CcParams& params) {
  if (cc == "learned" && !params.contains("policy")) {
    params["policy"] = load_policy(r, "cc", kDefaultPolicy);
  }
}

coll::NcclConfig read_nccl(const JsonReader& w) {
  coll::NcclConfig n;
  if (!w.has("nccl")) {
    return n;
  }
  if (w.raw().at("nccl").is_boolean()) {
    n.enabled = w.boolean("nccl", true);
    return n;
  }
  const JsonReader j = w.object("nccl");
  const std::string protocol = j.choice("protocol", {"simple", "ll128", "ll"}, "simple");
  coll::parse_protocol(protocol, n.protocol);
  n.steps = static_cast<std::uint32_t>(j.optional_integer("steps", 1, 64).value_or(n.steps));
  n.buffsize = j.bytes("buffsize", 4096, std::uint64_t{1} << 34).value_or(0);
  if (n.buffer_wire_bytes() / n.steps < 512) {
    j.fail(j.has("steps") ? "steps" : "buffsize",
           "a slot of " + std::to_string(n.buffer_wire_bytes() / n.steps) +
               " bytes (buffsize / steps) is below NCCL's smallest useful slot of 512 bytes");
  }
  n.channels = static_cast<std::uint32_t>(j.optional_integer("channels", 1, 64).value_or(0));
  n.qps_per_connection =
      static_cast<std::uint32_t>(j.optional_integer("qps_per_connection", 1, 128).value_or(1));
  n.split_data_on_qps = j.boolean("split_data_on_qps", false);
  // The socket transport: NCCL_NSOCKS_PERTHREAD x NCCL_SOCKET_NTHREADS sockets per connection,
  // each message cut across them (NCCL's socket transport splits every request).
  if (j.has("nsocks_perthread") || j.has("socket_nthreads")) {
    if (j.has("qps_per_connection")) {
      j.fail("qps_per_connection",
             "is for the IB transport; nsocks_perthread / socket_nthreads set the socket transport");
    }
    const auto nsocks = j.optional_integer("nsocks_perthread", 1, 64).value_or(1);
    const auto nthreads = j.optional_integer("socket_nthreads", 1, 16).value_or(1);
    if (nsocks * nthreads > 64) {
      j.fail("nsocks_perthread", "nsocks_perthread x socket_nthreads is at most 64 (NCCL's limit)");
    }
    n.qps_per_connection = static_cast<std::uint32_t>(nsocks * nthreads);
    n.split_data_on_qps = true;
  }
  n.p2p_chunk_bytes = j.bytes("p2p_net_chunksize", 512, std::uint64_t{1} << 30).value_or(n.p2p_chunk_bytes);
  j.finish();
  return n;
}

}  // namespace gw
