// Parts of result.json's live section (live_runner.cc): how busy the host was while the run
// ran, the endpoints' last stats and a kernel TCP baseline's byte balance.
#pragma once

#include <array>

#include <nlohmann/json.hpp>

#include "harness/live/live_context.h"
#include "harness/live/live_runner.h"

namespace gw {

// The 1-minute load average (/proc/loadavg); 0 when unreadable.
double load_average();

// The host's CPU time so far, all CPUs (the "cpu" line of /proc/stat, proc(5)), in ticks.
struct CpuTimes {
  double busy = 0;   // user + nice + system + irq + softirq
  double steal = 0;  // taken by the hypervisor from this VM
  double total = 0;  // the above + idle + iowait
};

CpuTimes cpu_times();

// How busy the host's CPUs were between two readings: the live run's processes wait for a CPU
// when it is near 1 (docs/guide/live.md "Why they differ").
nlohmann::json cpu_section(const CpuTimes& a, const CpuTimes& b);

// result.json's live.tcp for a kernel TCP baseline: what was asked for, what TCP_INFO says
// the kernel ran, and the byte balance (written = read once every message was delivered).
// `open_ended`: the run has flows, which are still sending when it ends (their bytes in flight
// are written and not yet read); otherwise every byte written must have been read.
nlohmann::json tcp_section(const LiveOptions& o, const std::array<nlohmann::json, 2>& stats, bool completed,
                           bool open_ended);

// The endpoints' last words, whole (DIR/live/endpoint-X-stats.json), and the live section's
// view of them (without the delay histograms).
nlohmann::json endpoints_section(const LiveContext& c, const std::array<nlohmann::json, 2>& stats);

}  // namespace gw
