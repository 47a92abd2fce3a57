#include "harness/advise/space.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "core/json_reader.h"
#include "core/units.h"
#include "harness/cli/run_points.h"
#include "harness/run/scenario.h"

namespace gw::advise {
namespace {

using nlohmann::json;

// Congestion controls worth a user's try on a WAN (docs/cc.md): loss-based, model-based,
// ECN-based and the data-centre ones RDMA NICs run.
const std::vector<std::string> kControllers{"cubic", "bbr", "dctcp", "prague", "dcqcn", "acc2"};
const std::vector<std::string> kAlgorithms{"ring", "hierarchical", "double_binary_tree"};

bool is_training(const std::string& kind) {
  return kind == "ddp" || kind == "fsdp" || kind == "diloco";
}

Axis cc_axis(const json& s) {
  Axis a{"cc", {{"", json::object(), 0}}, true};
  const std::string now = s.value("/transport/cc"_json_pointer, std::string("cubic"));
  for (const std::string& c : kControllers) {
    if (c != now) {
      a.values.push_back({"cc=" + c, {{"transport", {{"cc", c}}}}, 0});
    }
  }
  return a;
}

// The collective's own settings live under workload.collective for a collective run, under
// workload for a training job.
json workload_patch(const std::string& kind, const json& keys) {
  return kind == "collective" ? json{{"workload", {{"collective", keys}}}} : json{{"workload", keys}};
}

Axis algorithm_axis(const json& s, const std::string& kind) {
  Axis a{"algorithm", {{"", json::object(), 0}}, false};
  const json& w = s["workload"];
  const std::string now =
      (kind == "collective" ? w.value("/collective/algorithm"_json_pointer, std::string("ring"))
                            : w.value("algorithm", std::string("ring")));
  for (const std::string& alg : kAlgorithms) {
    if (alg != now) {
      a.values.push_back({"algorithm=" + alg, workload_patch(kind, {{"algorithm", alg}}), 0});
    }
  }
  return a;
}

// NCCL's channels (NCCL_MIN_NCHANNELS) and buffer (NCCL_BUFFSIZE, 4 MiB by default): with a
// long RTT, NCCL's window of channels x buffer per round trip bounds the rate.
Axis nccl_axis(const json& s, const std::string& kind) {
  Axis a{"nccl", {{"", json::object(), 0}}, false};
  const json& w = s["workload"];
  const int channels =
      kind == "collective" ? w.value("/collective/channels"_json_pointer, 1) : w.value("channels", 1);
  const int more = std::min(64, channels * 4);
  if (more != channels) {
    a.values.push_back(
        {"NCCL_MIN_NCHANNELS=" + std::to_string(more), workload_patch(kind, {{"channels", more}}), 0});
  }
  const bool modelled = !(w.contains("nccl") && w["nccl"].is_boolean() && !w["nccl"].get<bool>());
  if (modelled) {
    const std::uint64_t buff = 16ull << 20;
    json nccl = w.contains("nccl") && w["nccl"].is_object() ? w["nccl"] : json::object();
    nccl["buffsize"] = std::to_string(buff) + "B";
    a.values.push_back({"NCCL_BUFFSIZE=" + std::to_string(buff), {{"workload", {{"nccl", nccl}}}}, 0});
    // QPs per connection (NCCL_IB_QPS_PER_CONNECTION) and the LL128 protocol (NCCL_PROTO):
    // modelled (docs/scenarios.md `nccl`), each tried on its own.
    json qps = nccl;
    qps.erase("buffsize");
    qps["qps_per_connection"] = 4;
    a.values.push_back({"NCCL_IB_QPS_PER_CONNECTION=4", {{"workload", {{"nccl", qps}}}}, 0});
    json ll128 = nccl;
    ll128.erase("buffsize");
    ll128["protocol"] = "ll128";
    a.values.push_back({"NCCL_PROTO=LL128", {{"workload", {{"nccl", ll128}}}}, 0});
    if (more != channels) {
      json both = workload_patch(kind, {{"channels", more}});
      both["workload"]["nccl"] = nccl;
      a.values.push_back(
          {"NCCL_MIN_NCHANNELS=" + std::to_string(more) + " NCCL_BUFFSIZE=" + std::to_string(buff), both, 0});
    }
  }
  return a;
}

// PyTorch DDP's bucket_cap_mb: fewer, larger buckets pay α fewer times; smaller ones overlap
// more of the backward pass.
Axis bucket_axis() {
  Axis a{"bucket", {{"", json::object(), 0}}, false};
  for (const int mb : {10, 100}) {
    a.values.push_back({"bucket_cap_mb=" + std::to_string(mb),
                        {{"workload", {{"bucket", std::to_string(mb) + "MiB"}, {"bucket_bytes", nullptr}}}},
                        0});
  }
  return a;
}

// DDP every step, or DiLoCo with H inner steps (docs/scenarios.md "diloco": its convergence
// caveat goes with the advice). Two outer steps: one warms up, one is measured.
Axis sync_axis() {
  Axis a{"sync", {{"", json::object(), 0}}, false};
  for (const int h : {8, 32}) {
    a.values.push_back({"diloco H=" + std::to_string(h),
                        {{"workload",
                          {{"kind", "diloco"},
                           {"inner_steps", h},
                           {"iterations", 2 * h},
                           {"first_bucket", nullptr},
                           {"first_bucket_bytes", nullptr}}}},
                        0});
  }
  return a;
}

Axis paths_axis(const json& s) {
  Axis a{"paths", {{"", json::object(), 0}}, false};
  const std::string now = s.value("/controller/policy"_json_pointer, std::string("static"));
  for (const std::string p : {"static", "ecmp", "plb", "te"}) {
    if (p != now) {
      a.values.push_back({"path policy=" + p, {{"controller", {{"policy", p}, {"compare", nullptr}}}}, 0});
    }
  }
  return a;
}

// "rate 10Gbit" in a netem string times `k` (the other words kept as they are); the rate in
// bit/s is added to `gbps`. Words are split on spaces, as netem's own arguments are.
std::string scale_netem(const std::string& netem, double k, double& gbps) {
  std::vector<std::string> words;
  std::istringstream in(netem);
  for (std::string w; in >> w;) {
    words.push_back(w);
  }
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] != "rate") {
      continue;
    }
    const std::optional<BitRate> r = parse_rate(words[i + 1]);
    if (!r) {
      return netem;  // the scenario's own check names it
    }
    const double bps = static_cast<double>(r->bps);
    gbps += bps * (k - 1) / 1e9;
    char text[48];
    std::snprintf(text, sizeof text, "%.0fbit", bps * k);
    words[i + 1] = text;
    std::string out;
    for (const std::string& w : words) {
      out += (out.empty() ? "" : " ") + w;
    }
    return out;
  }
  return netem;
}

json scale_direction(json d, double k, double& gbps) {
  if (d.contains("rate") && d["rate"].contains("rate_gbps")) {
    gbps += d["rate"]["rate_gbps"].get<double>() * (k - 1);
    d["rate"]["rate_gbps"] = d["rate"]["rate_gbps"].get<double>() * k;
  }
  if (d.contains("queue") && d["queue"].contains("limit_bytes")) {  // the buffer stays one BDP
    d["queue"]["limit_bytes"] = std::llround(d["queue"]["limit_bytes"].get<double>() * k);
  }
  return d;
}

// Every WAN link's rate (and buffer) times k: a scaled copy of each profile in profiles_dir.
Value scaled_wan(const json& s, const std::string& file, double k,
                 const std::filesystem::path& profiles_dir) {
  json doc = s;
  absolute_profiles(doc, file);
  json wan = doc["topology"]["wan"];
  double gbps = 0;
  for (std::size_t i = 0; i < wan.size(); ++i) {
    json& link = wan[i];
    if (link.contains("limit_bytes")) {
      link["limit_bytes"] = std::llround(link["limit_bytes"].get<double>() * k);
    }
    if (link.contains("netem") && link["netem"].is_string()) {
      link["netem"] = scale_netem(link["netem"].get<std::string>(), k, gbps);
    } else if (link.contains("netem")) {
      double most = 0;
      for (const char* dir : {"a_to_b", "b_to_a"}) {
        double one = 0;
        link["netem"][dir] = scale_netem(link["netem"][dir].get<std::string>(), k, one);
        most = std::max(most, one);
      }
      gbps += most;
    } else if (link.contains("profile")) {
      json prof = read_json_file(resolve_profile(link["profile"].get<std::string>(), file));
      double most = 0;  // a link's capacity: its faster direction
      for (const char* dir : {"a_to_b", "b_to_a"}) {
        if (prof.contains(dir)) {
          double one = 0;
          prof[dir] = scale_direction(prof[dir], k, one);
          most = std::max(most, one);
        }
      }
      gbps += most;
      std::filesystem::create_directories(profiles_dir);
      char name[64];
      std::snprintf(name, sizeof name, "wan-%zu-x%g.json", i, k);
      const std::filesystem::path out = std::filesystem::absolute(profiles_dir / name);
      std::ofstream(out) << prof.dump(2) << "\n";
      link["profile"] = out.string();
    }
  }
  char label[64];
  std::snprintf(label, sizeof label, "WAN capacity x%g (+%.0f Gbit/s)", k, gbps);
  return {label, {{"topology", {{"wan", wan}}}}, gbps};
}

}  // namespace

std::vector<Axis> remedy_space(const json& s, const std::string& file,
                               const std::filesystem::path& profiles_dir) {
  std::vector<Axis> axes{cc_axis(s)};
  const std::string kind = s.value("/workload/kind"_json_pointer, std::string());
  if (kind == "collective" || is_training(kind)) {
    axes.push_back(algorithm_axis(s, kind));
    axes.push_back(nccl_axis(s, kind));
  }
  if (kind == "ddp") {
    axes.push_back(bucket_axis());
    axes.push_back(sync_axis());
  }
  if (s.contains("routes")) {
    for (const json& r : s["routes"]) {
      if (r.contains("paths") && r["paths"].size() > 1) {
        axes.push_back(paths_axis(s));
        break;
      }
    }
  }
  if (s.value("/cost/usd_per_gbps_month"_json_pointer, 0.0) > 0) {
    Axis a{"capacity", {{"", json::object(), 0}}, false};
    for (const double k : {2.0, 4.0}) {
      a.values.push_back(scaled_wan(s, file, k, profiles_dir));
    }
    axes.push_back(a);
  }
  return axes;
}

Value capacity_value(const json& scenario, const std::string& file, double k,
                     const std::filesystem::path& profiles_dir) {
  return scaled_wan(scenario, file, k, profiles_dir);
}

json apply(const json& scenario, const std::vector<Axis>& axes, const std::vector<std::size_t>& choice) {
  json doc = scenario;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    doc.merge_patch(axes[k].values[choice[k]].patch);
  }
  return doc;
}

std::string label_of(const std::vector<Axis>& axes, const std::vector<std::size_t>& choice) {
  std::string out;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    const std::string& l = axes[k].values[choice[k]].label;
    if (!l.empty()) {
      out += (out.empty() ? "" : ", ") + l;
    }
  }
  return out.empty() ? "as the scenario says" : out;
}

}  // namespace gw::advise
