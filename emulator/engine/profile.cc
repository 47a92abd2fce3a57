#include "emulator/engine/profile.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <set>

#include "core/errors.h"
#include "core/json_reader.h"
#include "emulator/engine/phase_start.h"

namespace gw {
namespace {

namespace fs = std::filesystem;

std::pair<nlohmann::json, nlohmann::json> directions(const JsonReader& r) {
  const bool ab = r.has("a_to_b");
  const bool ba = r.has("b_to_a");
  nlohmann::json a = ab ? r.raw().at("a_to_b") : (ba ? r.raw().at("b_to_a") : nlohmann::json::object());
  nlohmann::json b = ba ? r.raw().at("b_to_a") : a;
  return {a, b};
}

// "streams": "per_queue" (netem's one stream per stage, the default) or "per_flow"; or an
// object {"per": "queue" | "flow", "max_flows": N, "idle_*": D} (flow_streams.h).
FlowStreamSettings parse_streams(const JsonReader& r) {
  FlowStreamSettings s;
  if (!r.has("streams")) {
    return s;
  }
  if (!r.raw().at("streams").is_object()) {
    s.per_flow = r.choice("streams", {"per_queue", "per_flow"}, "per_queue") == "per_flow";
    return s;
  }
  const JsonReader o = r.object("streams");
  s.per_flow = o.choice("per", {"queue", "flow"}, "queue") == "flow";
  const auto max_flows = o.optional_integer("max_flows", 1, std::int64_t{1} << 24);
  const auto idle = o.duration("idle", Duration{1'000'000}, Duration{std::int64_t{86'400} * 1'000'000'000});
  if (!s.per_flow && (max_flows || idle)) {
    o.fail("per", "must be \"flow\" for max_flows and idle to mean anything");
  }
  s.max_flows = max_flows ? static_cast<std::uint64_t>(*max_flows) : s.max_flows;
  s.idle = idle.value_or(s.idle);
  o.finish();
  return s;
}

}  // namespace

Profile parse_profile(const nlohmann::json& doc, const std::string& file) {
  const JsonReader r(doc, file);
  Profile p;
  p.file = file;
  if (!r.has("gradwall")) {
    r.fail("gradwall", std::string("is required (\"") + kProfileVersion + "\")");
  }
  const std::string version = r.string("gradwall");
  if (version != kProfileVersion) {
    r.fail("gradwall", std::string("must be \"") + kProfileVersion + "\", got \"" + version + "\"");
  }
  p.name = r.optional_string("name").value_or(fs::path(file).stem().string());
  p.description = r.optional_string("description").value_or("");
  r.allow("source");
  r.optional_string("source");
  p.seed = r.optional_seed("seed").value_or(1);
  p.seed_b_to_a = r.optional_seed("seed_b_to_a");
  p.streams = parse_streams(r);

  const auto [a_json, b_json] = directions(r);
  const std::string a_path = r.has("a_to_b") ? "$.a_to_b" : "$.b_to_a";
  const std::string b_path = r.has("b_to_a") ? "$.b_to_a" : a_path;
  p.a_to_b = parse_direction(a_json, file, a_path);
  p.b_to_a = parse_direction(b_json, file, b_path);

  // Each class's directions as JSON, so that phases can patch them.
  struct ClassJson {
    nlohmann::json a;
    nlohmann::json b;
    bool one_direction = true;
  };
  std::vector<ClassJson> class_json;
  if (r.has("classes")) {
    for (const auto& c : r.objects("classes")) {
      ClassSpec cs;
      cs.name = c.string("name");
      for (const auto& earlier : p.classes) {
        if (earlier.name == cs.name) {
          c.fail("name", "\"" + cs.name + "\" names two classes");
        }
      }
      cs.match = parse_match(c.object("match"));
      const auto [ca, cb] = directions(c);
      const std::string ca_path = c.path_of(c.has("a_to_b") ? "a_to_b" : "b_to_a");
      const std::string cb_path = c.has("b_to_a") ? c.path_of("b_to_a") : ca_path;
      cs.a_to_b = parse_direction(ca, file, ca_path);
      cs.b_to_a = parse_direction(cb, file, cb_path);
      class_json.push_back({ca, cb, !(c.has("a_to_b") && c.has("b_to_a"))});
      c.finish();
      p.classes.push_back(std::move(cs));
    }
  }

  // Applies a phase's patch object {a_to_b, b_to_a} to a pair of directions.
  const auto patch_pair = [](const JsonReader& ph, nlohmann::json& a, nlohmann::json& b, bool one_direction) {
    if (ph.has("a_to_b")) {
      ph.object("a_to_b");
      a.merge_patch(ph.raw().at("a_to_b"));
      if (one_direction && !ph.has("b_to_a")) {
        b.merge_patch(ph.raw().at("a_to_b"));
      }
    }
    if (ph.has("b_to_a")) {
      ph.object("b_to_a");
      b.merge_patch(ph.raw().at("b_to_a"));
      if (one_direction && !ph.has("a_to_b")) {
        a.merge_patch(ph.raw().at("b_to_a"));
      }
    }
  };

  if (r.has("phases")) {
    nlohmann::json cur_a = a_json;
    nlohmann::json cur_b = b_json;
    Duration last{-1};
    for (const auto& ph : r.objects("phases")) {
      PhaseSpec ps;
      last = ps.at = phase_start(ph, last);
      ps.name = ph.optional_string("name").value_or("phase " + std::to_string(p.phases.size() + 1));
      // Each phase is an RFC 7386 merge patch on the directions as they were before it; a
      // patch given only for a_to_b applies to b_to_a too when the profile gave one direction.
      patch_pair(ph, cur_a, cur_b, !(r.has("a_to_b") && r.has("b_to_a")));
      if (const auto classes = ph.optional_object("classes")) {
        std::set<std::string, std::less<>> names;
        for (const auto& c : p.classes) {
          names.insert(c.name);
        }
        for (const auto& [name, patch] : classes->raw().items()) {
          const auto it = std::find_if(p.classes.begin(), p.classes.end(),
                                       [&n = name](const ClassSpec& c) { return c.name == n; });
          if (it == p.classes.end()) {
            std::string reason = "no class is named \"" + name + "\"";
            if (const auto near = closest(name, names)) {
              reason += " (did you mean \"" + *near + "\"?)";
            }
            classes->fail(name, reason);
          }
          const JsonReader cp = classes->object(name);
          ClassJson& cj = class_json[static_cast<std::size_t>(it - p.classes.begin())];
          patch_pair(cp, cj.a, cj.b, cj.one_direction);
          cp.finish();
        }
      }
      ph.finish();
      const std::string where = ph.path();
      ps.a_to_b = parse_direction(cur_a, file, where + ".a_to_b");
      ps.b_to_a = parse_direction(cur_b, file, where + ".b_to_a");
      for (std::size_t i = 0; i < class_json.size(); ++i) {
        const std::string cwhere = where + ".classes." + p.classes[i].name;
        ps.classes.push_back({parse_direction(class_json[i].a, file, cwhere + ".a_to_b"),
                              parse_direction(class_json[i].b, file, cwhere + ".b_to_a")});
      }
      p.phases.push_back(std::move(ps));
    }
  }
  r.finish();
  return p;
}

Profile load_profile(const std::string& file) {
  return parse_profile(read_json_file(file), file);
}

}  // namespace gw
