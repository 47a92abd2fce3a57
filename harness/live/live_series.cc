#include "harness/live/live_series.h"

#include <algorithm>

namespace gw {

void LiveSeries::add(std::uint32_t side, const nlohmann::json& stats, Instant arrived) {
  if (!stats.is_object() || !stats.contains("qps")) {
    return;
  }
  const std::int64_t t = stats.value("at_ns", ns_of(arrived));
  for (const nlohmann::json& q : stats.at("qps")) {
    if (!q.value("sending", false)) {
      continue;
    }
    const nlohmann::json& st = q.at("stats");
    Track& track = tracks_[{side, q.value("qp", std::uint32_t{0})}];
    track.peer = q.value("peer", "");
    Sample s;
    s.t_ns = t;
    s.bytes = st.value("data_bytes_sent", st.value("bytes_written", std::uint64_t{0}));
    s.cwnd = q.value("cwnd_bytes", std::uint64_t{0});
    s.srtt_ns = q.value("srtt_ns", std::int64_t{0});
    if (track.samples.empty() || track.samples.back().t_ns < t) {
      track.samples.push_back(s);
    }
  }
}

nlohmann::json LiveSeries::fill(Series& series, Instant end) const {
  series.interval = interval_;
  series.t_ns.clear();
  series.flow_rate_bps.clear();
  series.flow_cwnd_bytes.clear();
  nlohmann::json labels = nlohmann::json::array();
  const std::int64_t step = interval_.count();
  if (step <= 0) {
    return labels;
  }
  for (std::int64_t t = step; t <= ns_of(end); t += step) {
    series.t_ns.push_back(t);
  }
  for (const auto& [key, track] : tracks_) {
    const std::vector<Sample>& s = track.samples;
    // Cumulative bytes at t: linear between the samples around it, held after the last.
    auto bytes_at = [&](std::int64_t t) -> double {
      if (s.empty() || t <= s.front().t_ns) {
        return s.empty() ? 0.0
                         : static_cast<double>(s.front().bytes) * (t > 0 ? static_cast<double>(t) : 0.0) /
                               static_cast<double>(std::max<std::int64_t>(s.front().t_ns, 1));
      }
      const auto after =
          std::upper_bound(s.begin(), s.end(), t, [](std::int64_t v, const Sample& x) { return v < x.t_ns; });
      if (after == s.end()) {
        return static_cast<double>(s.back().bytes);
      }
      const Sample& a = *(after - 1);
      const Sample& b = *after;
      const double f = static_cast<double>(t - a.t_ns) / static_cast<double>(b.t_ns - a.t_ns);
      return static_cast<double>(a.bytes) + f * (static_cast<double>(b.bytes) - static_cast<double>(a.bytes));
    };
    std::vector<std::uint64_t> rate;
    std::vector<std::uint64_t> cwnd;
    nlohmann::json srtt = nlohmann::json::array();
    std::size_t last = 0;  // samples at or before the grid point
    for (const std::int64_t t : series.t_ns) {
      const double bits = (bytes_at(t) - bytes_at(t - step)) * 8;
      rate.push_back(static_cast<std::uint64_t>(std::max(0.0, bits * 1e9 / static_cast<double>(step))));
      while (last < s.size() && s[last].t_ns <= t) {
        ++last;
      }
      cwnd.push_back(last == 0 ? 0 : s[last - 1].cwnd);
      srtt.push_back(last == 0 ? 0 : s[last - 1].srtt_ns);
    }
    labels.push_back({{"flow", labels.size()},
                      {"side", key.first},
                      {"qp", key.second},
                      {"control", key.second >= kFirstControlQp},
                      {"peer", track.peer},
                      {"srtt_ns", std::move(srtt)}});
    series.flow_rate_bps.push_back(std::move(rate));
    series.flow_cwnd_bytes.push_back(std::move(cwnd));
  }
  return labels;
}

}  // namespace gw
