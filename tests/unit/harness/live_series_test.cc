// Live time series from the endpoints' stats samples (harness/live/live_series.h).
#include "harness/live/live_series.h"

#include <gtest/gtest.h>

namespace gw {
namespace {

nlohmann::json stats(std::int64_t at_ns, std::uint64_t bytes, std::uint64_t cwnd, std::int64_t srtt_ns) {
  return {{"t", "stats"},
          {"at_ns", at_ns},
          {"qps",
           {{{"qp", 256},
             {"sending", true},
             {"peer", "198.18.0.2:4791"},
             {"cwnd_bytes", cwnd},
             {"srtt_ns", srtt_ns},
             {"stats", {{"data_bytes_sent", bytes}}}},
            {{"qp", 257}, {"sending", false}, {"stats", {{"data_bytes_sent", 0}}}}}}};
}

// A sender at a steady 80 Mbit/s (10 bytes/us) sampled late and early around a 100 ms grid:
// interpolating the cumulative count gives 80 Mbit/s in every interval; holding the last
// sample would give 0 and 160 where a sample straddles a grid point.
TEST(LiveSeries, RateIsSteadyWhenSamplesAreJittered) {
  LiveSeries s(Duration{100'000'000});
  for (const std::int64_t at_ms : {0, 103, 198, 310, 399, 512}) {
    const std::int64_t ns = at_ms * 1'000'000;
    s.add(0, stats(ns, static_cast<std::uint64_t>(ns / 100), 1000 + static_cast<std::uint64_t>(at_ms), at_ms),
          at_ns(0));
  }
  Series out;
  const nlohmann::json labels = s.fill(out, at_ns(500'000'000));
  ASSERT_EQ(out.t_ns,
            (std::vector<std::int64_t>{100'000'000, 200'000'000, 300'000'000, 400'000'000, 500'000'000}));
  ASSERT_EQ(out.flow_rate_bps.size(), 1u);  // the sending half only
  for (const std::uint64_t r : out.flow_rate_bps[0]) {
    EXPECT_NEAR(static_cast<double>(r), 80e6, 1.0);  // exact up to rounding
  }
  // cwnd and srtt: the last sample at or before each grid point (at 0, 198, 198, 399, 399 ms).
  EXPECT_EQ(out.flow_cwnd_bytes[0], (std::vector<std::uint64_t>{1000, 1198, 1198, 1399, 1399}));
  ASSERT_EQ(labels.size(), 1u);
  EXPECT_EQ(labels[0]["qp"], 256);
  EXPECT_EQ(labels[0]["peer"], "198.18.0.2:4791");
  EXPECT_EQ(labels[0]["srtt_ns"], nlohmann::json({0, 198, 198, 399, 399}));
}

// Kernel TCP connections report bytes_written instead of data_bytes_sent.
TEST(LiveSeries, TcpConnectionsUseBytesWritten) {
  LiveSeries s(Duration{100'000'000});
  for (const std::int64_t at_ms : {100, 200}) {
    nlohmann::json m = stats(at_ms * 1'000'000, 0, 0, 0);
    m["qps"][0]["stats"] = {{"bytes_written", static_cast<std::uint64_t>(at_ms) * 1000}};
    s.add(1, m, at_ns(0));
  }
  Series out;
  s.fill(out, at_ns(200'000'000));
  ASSERT_EQ(out.flow_rate_bps.size(), 1u);
  EXPECT_EQ(out.flow_rate_bps[0], (std::vector<std::uint64_t>{8'000'000, 8'000'000}));  // 100 kB per 100 ms
}

}  // namespace
}  // namespace gw
