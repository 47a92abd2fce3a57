#include "harness/cli/run_baselines.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "core/errors.h"
#include "core/text_file.h"
#include "core/units.h"

namespace gw {

namespace fs = std::filesystem;

LiveBaselines parse_baselines(const std::optional<std::string>& list_text,
                              const std::optional<std::string>& max_rate, const std::string& mode) {
  LiveBaselines b;
  if (list_text) {
    if (mode != "live") {
      throw InputError("--baselines", "", "kernel TCP baselines run beside a live run: use --mode live");
    }
    std::stringstream list(*list_text);
    for (std::string name; std::getline(list, name, ',');) {
      if (std::find(b.names.begin(), b.names.end(), name) != b.names.end()) {
        throw InputError("--baselines", "", "\"" + name + "\" is listed twice");
      }
      check_tcp_congestion_control("--baselines", name);  // exit 2: unknown or not allowed
      b.names.push_back(name);
    }
    if (b.names.empty()) {
      throw InputError("--baselines", "", "give congestion controls, e.g. cubic,bbr");
    }
  }
  if (max_rate) {
    const std::string& text = *max_rate;
    const std::optional<BitRate> rate = parse_rate(text);
    if (b.names.empty()) {
      throw InputError("--max-pacing-rate", "", "paces the kernel TCP baselines: give --baselines too");
    }
    if (!rate || rate->unlimited() || rate->bps < 8) {
      throw InputError("--max-pacing-rate", "",
                       "a rate such as 45Mbit (at least 8bit), got \"" + text + "\"");
    }
    b.max_pacing_rate_bps = rate->bps;
  }
  return b;
}

void parse_host_pacer(const std::optional<std::string>& mode, const std::optional<std::string>& ce_threshold,
                      const std::optional<std::string>& horizon, LiveBaselines& b) {
  if (!mode && !ce_threshold && !horizon) {
    return;
  }
  if (b.names.empty()) {
    throw InputError(mode ? "--host-pacer" : (ce_threshold ? "--edt-ce-threshold" : "--edt-horizon"), "",
                     "host pacing applies to the kernel TCP baselines: give --baselines too (gradwall's own "
                     "endpoints pace in user space)");
  }
  if (mode) {
    const std::optional<hostpace::HostPacerMode> m = hostpace::host_pacer_mode(*mode);
    if (!m) {
      throw InputError("--host-pacer", "", "user, fq or edt-bpf, got \"" + *mode + "\"");
    }
    b.host_pacer.mode = *m;
  }
  const auto duration = [](const char* option, const std::optional<std::string>& text, Duration& into) {
    if (!text) {
      return;
    }
    const std::optional<Duration> d = parse_time(*text);
    if (!d || d->count() <= 0) {
      throw InputError(option, "", "a time such as 2ms, got \"" + *text + "\"");
    }
    into = *d;
  };
  duration("--edt-ce-threshold", ce_threshold, b.host_pacer.ce_threshold);
  duration("--edt-horizon", horizon, b.host_pacer.horizon);
  if ((ce_threshold || horizon) && b.host_pacer.mode != hostpace::HostPacerMode::edt_bpf) {
    throw InputError(ce_threshold ? "--edt-ce-threshold" : "--edt-horizon", "",
                     "sets the edt-bpf host pacer: give --host-pacer edt-bpf too");
  }
  std::string why;
  if (b.host_pacer.mode == hostpace::HostPacerMode::fq && !hostpace::kernel_has_fq(why)) {
    throw EnvironmentError("--host-pacer fq: " + why + "; --host-pacer edt-bpf marks and drops without it");
  }
}

nlohmann::json run_baselines(const Scenario& scenario, const LiveOptions& base, const std::string& out,
                             const LiveBaselines& b, const nlohmann::json& main_result) {
  nlohmann::json rows = nlohmann::json::array();
  nlohmann::json own = stack_summary("gradwall " + scenario.transport.cc + " (user space)", main_result);
  own["congestion_control"] = {scenario.transport.cc};
  own["result_file"] = (fs::path(out) / "result.json").string();
  rows.push_back(own);
  for (const std::string& name : b.names) {
    const fs::path dir = fs::path(out) / ("baseline-tcp-" + name);
    std::cerr << "live: kernel TCP baseline " << name << " into " << dir.string() << "\n";
    LiveOptions o = base;
    o.work_dir = (dir / "live").string();
    o.tcp_cc = name;
    o.max_pacing_rate_bps = b.max_pacing_rate_bps;
    o.host_pacer = b.host_pacer;
    try {
      const LiveRun run = run_live(scenario, o);
      nlohmann::json r = to_json(run.result);
      add_live_result(r, run);
      write_text_file_atomically((dir / "result.json").string(), r.dump(1) + "\n");
      nlohmann::json row = stack_summary("kernel tcp " + name, r);
      row["result_file"] = (dir / "result.json").string();
      rows.push_back(row);
    } catch (const EnvironmentError& e) {
      rows.push_back({{"stack", "kernel tcp " + name},
                      {"endpoint_kind", "tcp"},
                      {"completed", false},
                      {"faults", {std::string(e.what())}}});
    }
  }
  return rows;
}

void add_baseline_checks(nlohmann::json& report, const nlohmann::json& result) {
  if (!result.contains("tcp_baselines")) {
    return;
  }
  report["tcp_baselines"] = result["tcp_baselines"];
  std::string reason;
  std::size_t bad = 0;
  for (const nlohmann::json& row : result["tcp_baselines"]) {
    if (row.value("endpoint_kind", "") != "tcp") {
      continue;
    }
    const bool ok = row.value("completed", false) && row.value("faults", nlohmann::json::array()).empty() &&
                    row.value("bytes_balanced", false);
    if (!ok) {
      ++bad;
      reason += (reason.empty() ? "" : "; ") + row.value("stack", std::string()) + ": " +
                (row.value("faults", nlohmann::json::array()).empty()
                     ? std::string(row.value("completed", false) ? "bytes not balanced" : "did not complete")
                     : row["faults"].dump());
    }
  }
  report["checks"].push_back(
      {{"name", "tcp_baselines"},
       {"passed", bad == 0},
       {"measured", bad},
       {"limit", 0},
       {"reason", bad == 0 ? "every kernel TCP baseline completed with every byte read" : reason}});
  if (bad > 0) {
    report["verdict"] = "fail";
  }
}

}  // namespace gw
