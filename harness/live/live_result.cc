// The parts of a live run's result.json "live" section (live_result.h).
#include "harness/live/live_result.h"

#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <set>
#include <string>

#include "generators/transport/rocev2.h"

namespace gw {

double load_average() {
  std::ifstream in("/proc/loadavg");
  double one = 0;
  in >> one;
  return in ? one : 0.0;
}

CpuTimes cpu_times() {
  std::ifstream in("/proc/stat");
  std::string label;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  in >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  if (!in || label != "cpu") {
    return {};
  }
  const double busy = user + nice + system + irq + softirq;
  return {busy, steal, busy + steal + idle + iowait};
}

nlohmann::json cpu_section(const CpuTimes& a, const CpuTimes& b) {
  const double total = b.total - a.total;
  if (total <= 0) {
    return nullptr;
  }
  return {{"busy_fraction", (b.busy - a.busy) / total},
          {"steal_fraction", (b.steal - a.steal) / total},
          {"cpus", sysconf(_SC_NPROCESSORS_ONLN)},
          {"what",
           "share of all CPUs' time busy (and stolen by the hypervisor) while the run's real-time loop ran, "
           "from /proc/stat"}};
}

nlohmann::json tcp_section(const LiveOptions& o, const std::array<nlohmann::json, 2>& stats, bool completed,
                           bool open_ended) {
  std::uint64_t written = 0;
  std::uint64_t read = 0;
  std::uint64_t retrans = 0;
  std::uint64_t bytes_retrans = 0;
  std::set<std::string> seen;
  for (const nlohmann::json& s : stats) {
    if (!s.is_object()) {
      continue;
    }
    written += s.at("counters").value("bytes_written", std::uint64_t{0});
    read += s.at("counters").value("bytes_read", std::uint64_t{0});
    for (const nlohmann::json& q : s.at("qps")) {
      if (q.value("sending", false)) {
        seen.insert(q.value("congestion_control", ""));
        retrans += q.at("stats").value("tcpi_total_retrans", std::uint64_t{0});
        bytes_retrans += q.at("stats").value("tcpi_bytes_retrans", std::uint64_t{0});
      }
    }
  }
  // Each side's host pacer as its endpoint reported it (live_tcp_endpoint.cc).
  nlohmann::json pacer_sides = nlohmann::json::array();
  for (const nlohmann::json& s : stats) {
    pacer_sides.push_back(s.is_object() ? s.value("host_pacer", nlohmann::json()) : nlohmann::json());
  }
  return {{"congestion_control", o.tcp_cc},
          {"congestion_control_seen", seen},
          {"max_pacing_rate_bps", o.max_pacing_rate_bps},
          {"host_pacer",
           {{"mode", hostpace::host_pacer_name(o.host_pacer.mode)},
            {"ce_threshold_ns", o.host_pacer.ce_threshold.count()},
            {"horizon_ns", o.host_pacer.horizon.count()},
            {"sides", pacer_sides}}},
          {"bytes_written", written},
          {"bytes_read", read},
          {"open_ended", open_ended},
          {"balanced", stats[0].is_object() && stats[1].is_object() &&
                           (open_ended ? read <= written : completed && written == read)},
          {"retransmits", retrans},
          {"bytes_retransmitted", bytes_retrans}};
}

nlohmann::json endpoints_section(const LiveContext& c, const std::array<nlohmann::json, 2>& stats) {
  nlohmann::json out = nlohmann::json::array();
  for (std::uint32_t side = 0; side < 2; ++side) {
    std::ofstream(c.work / ("endpoint-" + c.regions[side] + "-stats.json")) << stats.at(side).dump() << "\n";
    nlohmann::json e = stats.at(side);
    if (e.is_object()) {
      e.erase("one_way_delay_us");
      e.erase("one_way_delay_remote_us");
      e.erase("t");
    }
    out.push_back({{"region", c.regions[side]},
                   {"netns", c.sides[side].netns},
                   {"address", c.sides[side].address},
                   {c.tcp ? "tcp_port" : "udp_port", c.tcp ? 4792 : transport::kRoceUdpPort},
                   {"last_stats", e}});
  }
  return out;
}

}  // namespace gw
