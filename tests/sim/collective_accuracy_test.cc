// Collective completion times in the simulator against the α-β model (docs/references.md §5;
// docs/collectives.md "α-β predictions"). The network is ideal: no loss, no jitter, buffers
// far deeper than any burst, and the transport's `fixed` controller (a window larger than any
// message, no pacing) without NCCL's buffers (`"nccl": false`, so no window per round trip), so a
// message of b bytes on a path takes α + b·β as the model assumes.
// What the model leaves out bounds the tolerances: frame overhead (62 B per 9000 B packet,
// 0.7 % of β), store-and-forward of one packet at each of the path's 4 hops (a few µs per
// step) and the NIC's round robin between connections. Each test states its bound.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "generators/collectives/collective.h"
#include "harness/run/scenario.h"
#include "harness/sim/sim_runner.h"

namespace gw {
namespace {

using nlohmann::json;

constexpr std::uint64_t kMiB = 1ULL << 20;

json collective_workload(const std::string& algorithm, std::uint64_t bytes) {
  return {{"kind", "collective"},
          {"iterations", 1},
          {"collective", {{"op", "all_reduce"}, {"algorithm", algorithm}, {"size_bytes", bytes}}},
          {"nccl", false}};
}

json document(const json& topology, const json& workload) {
  return {{"gradwall", "scenario/v1"},
          {"name", "collective-accuracy"},
          {"seed", 1},
          {"topology", topology},
          {"workload", workload},
          {"transport", {{"cc", "fixed"}, {"mtu", 9000}}},
          {"results", {{"interval", "1s"}}}};
}

// `ranks` regions of one host each, every one joined to a relay POP by a WAN link of one-way
// delay `spoke_delay` and rate `rate`: every pair of ranks is two WAN links apart, so α and β
// are the same for every pair (the closed forms apply) and no two ring neighbours share a link.
json star(std::uint32_t ranks, const std::string& spoke_delay, const std::string& rate) {
  json regions = json::array();
  json wan = json::array();
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const std::string name = "r" + std::to_string(r);
    regions.push_back({{"name", name}, {"hosts", 1}, {"nic_rate", rate}});
    wan.push_back({{"between", {name, "hub"}},
                   {"netem", "delay " + spoke_delay + " rate " + rate},
                   {"limit_bytes", 4ULL << 30}});
  }
  return {{"regions", regions}, {"relays", {{{"name", "hub"}}}}, {"wan", wan}};
}

// `regions` regions of `hosts` hosts in a line (region i to i+1 by one WAN link).
json regions_in_line(std::uint32_t regions, std::uint32_t hosts, const std::string& wan_delay,
                     const std::string& rate) {
  json rs = json::array();
  json wan = json::array();
  for (std::uint32_t r = 0; r < regions; ++r) {
    rs.push_back({{"name", "g" + std::to_string(r)},
                  {"hosts", hosts},
                  {"nic_rate", rate},
                  {"buffer_bytes", 1ULL << 30}});
    if (r > 0) {
      wan.push_back({{"between", {"g" + std::to_string(r - 1), "g" + std::to_string(r)}},
                     {"netem", "delay " + wan_delay + " rate " + rate},
                     {"limit_bytes", 4ULL << 30}});
    }
  }
  return {{"regions", rs}, {"wan", wan}};
}

struct Measured {
  double cct_ns = 0;
  double predicted_ns = 0;
};

Measured run_one(const json& doc) {
  const Scenario s = parse_scenario(doc, "collective-accuracy.json");
  SimOptions options;
  options.keep_series = false;
  const SimResult r = run_sim(s, options);
  EXPECT_TRUE(r.completed);
  EXPECT_EQ(r.collectives.size(), 1U);
  if (r.collectives.empty() || r.collectives[0].end_ns < 0) {
    return {};
  }
  const CollectiveOpResult& c = r.collectives[0];
  const Measured m{static_cast<double>(c.end_ns - c.start_ns), static_cast<double>(c.predicted_ns)};
  std::printf("  %s %s %u ranks %llu B: measured %.3f ms, predicted %.3f ms, ratio %.4f\n", c.op.c_str(),
              c.algorithm.c_str(), c.ranks, static_cast<unsigned long long>(c.bytes), m.cct_ns / 1e6,
              m.predicted_ns / 1e6, m.cct_ns / m.predicted_ns);
  return m;
}

// Ring all-reduce on the ideal star, 8 and 16 ranks, 1 MiB to 1 GiB (16 ranks at 1 GiB is the
// slowest test of the suite, ~50 s at -Og): 2(p-1) α + 2(p-1)/p · n β within 5 %. α = 10 ms + 2·2 µs region
// latency + one packet, β = 1/(10 Gbit/s). At 1 MiB the α terms are 99 % of the time, at 1 GiB the β term is
// 92 % (8 ranks): both halves of the model are checked. The neglected terms above add at most 1 %, so 5 % is
// a loose bound that still fails for a missed step (1/14 = 7 % at 8 ranks in the α-bound case) or a wrong β
// term.
struct RingCase {
  std::uint32_t ranks;
  std::uint64_t bytes;
};

class RingMatchesAlphaBeta : public ::testing::TestWithParam<RingCase> {};

TEST_P(RingMatchesAlphaBeta, Within5Percent) {
  const RingCase c = GetParam();
  const Measured m = run_one(document(star(c.ranks, "5ms", "10Gbit"), collective_workload("ring", c.bytes)));
  ASSERT_GT(m.predicted_ns, 0);
  // The prediction the report carries is the closed form for these α and β.
  const double alpha = 10e6 + 4e3 + (9000 + 62) * 8 / 10.0;
  const double beta = 0.8;
  const double p = c.ranks;
  const double closed = 2 * (p - 1) * alpha + 2 * (p - 1) / p * static_cast<double>(c.bytes) * beta;
  EXPECT_NEAR(m.predicted_ns, closed, closed * 1e-3) << "predicted_ns is not the ring formula";
  EXPECT_NEAR(m.cct_ns / m.predicted_ns, 1.0, 0.05) << c.ranks << " ranks, " << c.bytes << " B: measured "
                                                    << m.cct_ns << " ns, predicted " << m.predicted_ns;
}

INSTANTIATE_TEST_SUITE_P(Sizes, RingMatchesAlphaBeta,
                         ::testing::Values(RingCase{8, kMiB}, RingCase{8, 32 * kMiB},
                                           RingCase{8, 1024 * kMiB}, RingCase{16, kMiB},
                                           RingCase{16, 32 * kMiB}, RingCase{16, 256 * kMiB},
                                           RingCase{16, 1024 * kMiB}),
                         [](const auto& param_info) {
                           return std::to_string(param_info.param.ranks) + "ranks_" +
                                  std::to_string(param_info.param.bytes / kMiB) + "MiB";
                         });

// Over a high-RTT star (α ≈ 50 ms) halving-doubling beats ring by the α terms the model
// predicts: both move 2(p-1)/p · n through each port, ring in 2(p-1) steps and halving-doubling
// in 2 lg p, so at 16 ranks the gap is (30 - 8) α = 22 α. Measured gap within 5 % of it: each
// CCT is within ~1 % of its own prediction (above), so the gap is off by at most ~2 %.
TEST(HalvingDoublingVsRing, GapIsTheLatencyTerms) {
  const std::uint64_t n = 4 * kMiB;
  const Measured ring = run_one(document(star(16, "25ms", "10Gbit"), collective_workload("ring", n)));
  const Measured hd =
      run_one(document(star(16, "25ms", "10Gbit"), collective_workload("halving_doubling", n)));
  const double alpha = 50e6 + 4e3 + (9000 + 62) * 8 / 10.0;
  const double predicted_gap = 22 * alpha;
  EXPECT_NEAR(ring.predicted_ns - hd.predicted_ns, predicted_gap, predicted_gap * 1e-3);
  EXPECT_LT(hd.cct_ns, ring.cct_ns);
  EXPECT_NEAR((ring.cct_ns - hd.cct_ns) / predicted_gap, 1.0, 0.05)
      << "ring " << ring.cct_ns << " ns, halving-doubling " << hd.cct_ns << " ns";
}

// Ranks in regions: a flat ring over two regions of 4 crosses the WAN on 2 of its 8 edges, so
// its critical path of 14 steps holds 4 WAN steps, not 14. The placement-aware prediction
// (α-β per path, docs/collectives.md "Placement") is within 5 % of the measured CCT; the
// single-α model (the WAN α on every step) would be over twice the measured time.
TEST(PlacementAware, FlatRingOverTwoRegions) {
  const std::uint64_t n = 64 * kMiB;
  const Measured m =
      run_one(document(regions_in_line(2, 4, "20ms", "10Gbit"), collective_workload("ring", n)));
  EXPECT_NEAR(m.cct_ns / m.predicted_ns, 1.0, 0.05)
      << "measured " << m.cct_ns << ", predicted " << m.predicted_ns;
  const double wan_alpha = 20e6 + 4e3 + (9000 + 62) * 8 / 10.0;
  const double single_alpha = 14 * wan_alpha + 14.0 / 8 * static_cast<double>(n) * 0.8;
  EXPECT_GT(single_alpha / m.cct_ns, 2.0);
}

// Hierarchical across three regions of 4: in-region rings, then per-shard rings across the
// WAN whose 4 shards share each WAN link. Within 10 %: the model serialises the shards on the
// shared link where the network interleaves their packets, which moves individual shard
// completions by up to one shard's transmission (a few % of the total here).
TEST(PlacementAware, HierarchicalOverThreeRegions) {
  const std::uint64_t n = 64 * kMiB;
  const Measured m =
      run_one(document(regions_in_line(3, 4, "20ms", "10Gbit"), collective_workload("hierarchical", n)));
  EXPECT_NEAR(m.cct_ns / m.predicted_ns, 1.0, 0.10)
      << "measured " << m.cct_ns << ", predicted " << m.predicted_ns;
}

// NCCL's chunking: the ring's blocks cut into pieces, each forwarded as soon as it arrives, so
// a rank transmits piece k+1 while piece k crosses the link. 8 ranks, 256 MiB (32 MiB blocks,
// 26.8 ms each at 10 Gbit/s) over α ≈ 50 ms: whole blocks take 14 (α + 26.8 ms) ≈ 1.08 s;
// 4 MiB pieces cut it to about the last piece's chain, 14 (α + 3.4 ms) + 7 · 3.4 ms ≈ 0.77 s.
// The prediction prices the chunked schedule (no closed form: docs/collectives.md); measured
// within 5 % of it (the neglected terms of the file comment), and at least 25 % faster than the
// unchunked ring measured here (the model's gap is 29 %).
TEST(ChunkedRing, PiecesOverlapLatencyWithTransmission) {
  const std::uint64_t n = 256 * kMiB;
  json chunked = collective_workload("ring", n);
  chunked["collective"]["chunk_bytes"] = 4 * kMiB;
  const Measured whole = run_one(document(star(8, "25ms", "10Gbit"), collective_workload("ring", n)));
  const Measured piece = run_one(document(star(8, "25ms", "10Gbit"), chunked));
  ASSERT_GT(piece.predicted_ns, 0);
  EXPECT_NEAR(piece.cct_ns / piece.predicted_ns, 1.0, 0.05)
      << "measured " << piece.cct_ns << ", predicted " << piece.predicted_ns;
  EXPECT_LT(piece.cct_ns, 0.75 * whole.cct_ns) << "chunked " << piece.cct_ns << ", whole " << whole.cct_ns;
}

}  // namespace
}  // namespace gw
