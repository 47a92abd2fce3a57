// `gradwall run --mode live --baselines cubic,bbr`: the same scenario run again once per kernel
// TCP congestion control, compared with the user-space run (docs/guide/live.md "Kernel TCP
// baselines").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/live/live_runner.h"
#include "harness/run/scenario.h"

namespace gw {

// --baselines / --max-pacing-rate (live mode): kernel TCP runs of the same scenario.
struct LiveBaselines {
  std::vector<std::string> names;
  std::uint64_t max_pacing_rate_bps = 0;
  hostpace::HostPacerOptions host_pacer;
};

// From the options' text (absent: not given); InputError naming the option for a bad one.
LiveBaselines parse_baselines(const std::optional<std::string>& list,
                              const std::optional<std::string>& max_rate, const std::string& mode);

// `--host-pacer MODE [--edt-ce-threshold T] [--edt-horizon T]` into b.host_pacer: InputError
// naming the option for a bad value or one without --baselines; EnvironmentError (exit 3) for
// fq on a kernel that has no fq qdisc.
void parse_host_pacer(const std::optional<std::string>& mode, const std::optional<std::string>& ce_threshold,
                      const std::optional<std::string>& horizon, LiveBaselines& b);

// Runs the scenario once per baseline (OUT/baseline-tcp-NAME/result.json) and returns the
// comparison table: the user-space run first, then each kernel TCP run. A baseline that
// cannot run (environment) is a row with its error; the other rows still run.
nlohmann::json run_baselines(const Scenario& scenario, const LiveOptions& base, const std::string& out,
                             const LiveBaselines& b, const nlohmann::json& main_result);

// A `tcp_baselines` check: every baseline completed every op, without faults, every byte
// read that was written. The table itself goes into report.json for the writers.
void add_baseline_checks(nlohmann::json& report, const nlohmann::json& result);

}  // namespace gw
