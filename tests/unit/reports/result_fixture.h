// Hand-made result.json inputs for the report tests: small enough that every expected number
// can be worked out by hand (the arithmetic is in the comments of the tests).
#pragma once

#include <nlohmann/json.hpp>

namespace gw::reports::testing {

// A collective workload. all_reduce ring, 1e8 B, 8 ranks, busbw factor 1.75, 10 collectives
// with CCTs (ms) 10 10.5 11 11.5 12.5 13 14 15 20 40, predicted 10 ms; all_gather ring, 1e6 B,
// factor 0.875, CCTs 1 and 3 ms, no prediction. 4 iterations of 100 ms with exposed
// communication 10, 20, 30, 20 ms; a baseline of 2 iterations of 90 ms. Two bulk flows at 4 and
// 2 Gbit/s, 1000 packets each with 10 and 30 retransmits. Two paths.
inline nlohmann::json collective_result() {
  nlohmann::json r = nlohmann::json::parse(R"({
    "gradwall": "result/v1", "mode": "sim", "scenario": "ddp-wan", "scenario_file": "ddp-wan.json",
    "seed": 7, "duration_ns": 2000000000, "events": 1,
    "flows": [
      {"id": 0, "from": "a/0", "to": "b/0", "cc": "dcqcn", "start_ns": 0, "size_bytes": 0,
       "goodput_bps": 4000000000, "bytes_delivered": 1, "packets_sent": 1000, "retransmits": 10,
       "timeouts": 1, "marks_ce": 3, "cnps": 0,
       "rtt_ns": {"count": 100, "mean": 2.0e6, "min": 1000000, "p50": 2000000, "p90": 3000000,
                  "p99": 4000000, "p999": 5000000, "max": 6000000},
       "mean_cwnd_bytes": 1, "mean_pacing_rate_bps": 1, "completion_ns": null},
      {"id": 1, "from": "a/1", "to": "b/1", "cc": "dcqcn", "start_ns": 0, "size_bytes": 0,
       "goodput_bps": 2000000000, "bytes_delivered": 1, "packets_sent": 1000, "retransmits": 30,
       "timeouts": 0, "marks_ce": 0, "cnps": 0,
       "rtt_ns": {"count": 100, "mean": 2.0e6, "min": 1000000, "p50": 2500000, "p90": 3000000,
                  "p99": 8000000, "p999": 9000000, "max": 9000000},
       "mean_cwnd_bytes": 1, "mean_pacing_rate_bps": 1, "completion_ns": null}
    ],
    "jain_fairness": 0.9,
    "paths": [
      {"name": "uplink a", "wan": false, "rate_bps": 0, "packets_in": 2000, "delivered": 1992,
       "dropped": {"queue": 5, "loss": 3}, "marked_ce": 7, "duplicated": 1, "corrupted": 0, "reordered": 2,
       "queue_bytes": {"count": 2000, "mean": 100, "min": 0, "p50": 100, "p90": 200, "p99": 300, "p999": 400, "max": 500},
       "queue_delay_ns": {"count": 2000, "mean": 10, "min": 0, "p50": 10, "p90": 20, "p99": 30, "p999": 40, "max": 50},
       "sojourn_ns": {"count": 0, "mean": 0, "min": 0, "p50": 0, "p90": 0, "p99": 0, "p999": 0, "max": 0}},
      {"name": "wan a->b", "wan": true, "rate_bps": 10000000000, "packets_in": 1992, "delivered": 1990,
       "dropped": {"queue": 2}, "marked_ce": 1, "duplicated": 0, "corrupted": 1, "reordered": 0,
       "queue_bytes": {"count": 1992, "mean": 1, "min": 0, "p50": 1, "p90": 2, "p99": 3, "p999": 4, "max": 5},
       "queue_delay_ns": {"count": 1992, "mean": 1, "min": 0, "p50": 1, "p90": 2, "p99": 3, "p999": 4, "max": 5},
       "sojourn_ns": {"count": 0, "mean": 0, "min": 0, "p50": 0, "p90": 0, "p99": 0, "p999": 0, "max": 0}}
    ],
    "series": {"interval_ns": 100000000, "t_ns": [100000000, 200000000, 300000000],
               "flows": [{"flow": 0, "rate_bps": [1e9, 4e9, 4e9], "cwnd_bytes": [1, 2, 3]},
                         {"flow": 1, "rate_bps": [1e9, 2e9, 2e9], "cwnd_bytes": [1, 2, 3]}],
               "hops": [{"hop": "uplink a", "queue_bytes": [0, 1000, 500]}]},
    "accounting": {"packets_sent": 2000, "packets_received": 1990, "duplicates_made": 1,
                   "dropped": {"uplink a/queue": 5, "uplink a/loss": 3, "wan a->b/queue": 2},
                   "corrupted_discarded": 0, "in_flight_at_end": 1, "balanced": true},
    "packets": {"one_way_delay_ns": {"count": 4000, "mean": 1.5e6, "min": 1000000, "p50": 1200000,
                                     "p90": 2000000, "p99": 3500000, "p999": 4000000, "max": 5000000}},
    "scenario_json": {"gradwall": "scenario/v1", "name": "ddp-wan",
                      "cost": {"gpus": 1024, "usd_per_gpu_hour": 2.5, "gpu_watts": 700, "run_hours": 720}}
  })");
  nlohmann::json collectives = nlohmann::json::array();
  std::int64_t t = 0;
  for (const double ms : {10.0, 10.5, 11.0, 11.5, 12.5, 13.0, 14.0, 15.0, 20.0, 40.0}) {
    const auto cct = static_cast<std::int64_t>(ms * 1e6);
    collectives.push_back({{"name", "ddp-bucket"},
                           {"op", "all_reduce"},
                           {"algorithm", "ring"},
                           {"bytes", 100000000},
                           {"ranks", 8},
                           {"channels", 2},
                           {"iteration", 0},
                           {"start_ns", t},
                           {"end_ns", t + cct},
                           {"predicted_ns", 10000000},
                           {"busbw_factor", 1.75}});
    t += cct;
  }
  for (const std::int64_t cct : {3000000, 1000000}) {
    collectives.push_back({{"name", "gather"},
                           {"op", "all_gather"},
                           {"algorithm", "ring"},
                           {"bytes", 1000000},
                           {"ranks", 8},
                           {"channels", 1},
                           {"iteration", 1},
                           {"start_ns", t},
                           {"end_ns", t + cct},
                           {"predicted_ns", nullptr},
                           {"busbw_factor", 0.875}});
    t += cct;
  }
  r["collectives"] = collectives;
  nlohmann::json iterations = nlohmann::json::array();
  std::int64_t start = 0;
  int index = 0;
  for (const std::int64_t exposed_ms : {10, 20, 30, 20}) {
    iterations.push_back({{"index", index++},
                          {"start_ns", start},
                          {"end_ns", start + 100000000},
                          {"compute_ns", (100 - exposed_ms) * 1000000},
                          {"exposed_comm_ns", exposed_ms * 1000000}});
    start += 100000000;
  }
  r["iterations"] = iterations;
  r["baseline"] = {{"collectives", nlohmann::json::array()},
                   {"iterations",
                    {{{"index", 0},
                      {"start_ns", 0},
                      {"end_ns", 90000000},
                      {"compute_ns", 85000000},
                      {"exposed_comm_ns", 5000000}},
                     {{"index", 1},
                      {"start_ns", 90000000},
                      {"end_ns", 180000000},
                      {"compute_ns", 85000000},
                      {"exposed_comm_ns", 5000000}}}}};
  return r;
}

// A flow workload as today's result.json has it: no collectives, no iterations, no baseline.
inline nlohmann::json flow_result() {
  nlohmann::json r = collective_result();
  r.erase("collectives");
  r.erase("iterations");
  r.erase("baseline");
  r.erase("packets");
  r["scenario_json"].erase("cost");
  return r;
}

// collective_result() with background traffic beside the workload: flow 1 is a storage flow
// (2 Gbit/s, 30 retransmits), and result.json's per-class summary says so.
inline nlohmann::json background_result() {
  nlohmann::json r = collective_result();
  r["flows"][1]["class"] = "storage";
  r["background"] = nlohmann::json::parse(R"([
    {"class": "storage", "flows": 1, "bytes_delivered": 250000000, "goodput_bps": 2000000000, "retransmits": 30}
  ])");
  return r;
}

}  // namespace gw::reports::testing
