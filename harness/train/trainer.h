// `gradwall train` (docs/cc.md "learned"): learns the learned controller's policy
// (generators/cc/learned.h) in the simulator. Each episode is one short flows scenario over a
// random path, run by the same simulator as `gradwall run`; the algorithm is evolution
// strategies (Salimans et al., "Evolution Strategies as a Scalable Alternative to Reinforcement
// Learning", 2017): each generation perturbs the weights in `population` antithetic pairs,
// scores every perturbed policy on the same `paths` random paths, and steps along the
// rank-weighted perturbations. It needs no gradient of the simulator, its episodes run in
// parallel, and the same seed gives the same weights whatever --jobs is.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/rng.h"
#include "core/time.h"
#include "generators/cc/learned.h"

namespace gw::train {

// A path an episode runs on: one WAN bottleneck between two regions.
struct TrainPath {
  Duration rtt{0};                  // the WAN's round trip (2 x the one-way delay)
  Duration jitter{0};               // netem's delay jitter each way (order kept)
  std::uint64_t rate_bps = 0;       // the bottleneck
  std::uint64_t step_rate_bps = 0;  // the bottleneck after `step_at`; 0: no step
  Duration step_at{0};
  double loss = 0;                 // random loss each way, fraction
  std::uint64_t buffer_bytes = 0;  // the bottleneck's queue limit
  int flows = 1;                   // 1, or 2 (the second starting at `second_start`)
  Duration second_start{0};
  Duration duration{0};
  std::uint64_t nic_bps = 100'000'000'000;  // both hosts' NIC: the learned controller's line rate
};

// The training distribution: RTT 5-300 ms and rate 0.1-10 Gbit/s (log-uniform), loss 0 (half
// the paths) or up to 2 %, jitter up to 5 % of the one-way delay on a third, a capacity step
// (x 0.5 or x 2 at mid-run) on a third, a competing flow on a third, a buffer of 0.5-2 BDP,
// 40 RTTs long within [2 s, 6 s], NICs 1-16x the faster of the bottleneck's rates (so the
// policy's rate-share feature covers the shares a flow meets on paths faster than 10 Gbit/s).
TrainPath sample_path(Rng& rng);

// The scenario of an episode with controller `cc` (and its params) on `path`.
nlohmann::json episode_scenario(const TrainPath& path, const std::string& cc, const nlohmann::json& cc_params,
                                std::uint64_t seed);

// How a controller did on a path, and the reward the trainer maximises:
//   reward = utilization - 0.5 x (p99 queueing delay / RTT) - 5 x congestion loss - (1 - Jain) [2 flows]
// utilization: bytes delivered x 8 / the bottleneck's capacity over the run; the queueing delay
// is the bottleneck hop's p99 queueing delay (the hop summaries keep p50, p90, p99; the propagation delay
// left out); congestion loss: the bottleneck's queue drops / packets in.
struct EpisodeScore {
  double utilization = 0;
  double queue_p99_ns = 0;
  double queue_over_rtt = 0;
  double congestion_loss = 0;
  double jain = 0;
  double reward = 0;
};
EpisodeScore run_episode(const TrainPath& path, const std::string& cc, const nlohmann::json& cc_params,
                         std::uint64_t seed);

struct TrainOptions {
  std::uint64_t seed = 1;
  std::uint64_t episodes = 6144;  // the budget: generations = episodes / (2 x population x paths)
  int jobs = 1;
  int population = 8;  // antithetic pairs per generation
  int paths = 4;       // random paths each perturbed policy is scored on
  // Small steps keep the prior's structure: with 16 samples of a 2,017-dimensional gradient,
  // larger ones (0.02-0.1) walked every weight away from it and back to a timid policy.
  double sigma = 0.02;
  double learning_rate = 0.002;
  double action_gain = 1.0;
  bool startup = true;       // the controller's startup before the network decides (learned.h)
  int validation_paths = 6;  // the fixed set the best policy is chosen on
  // Called after each generation: generation, generations, episodes done, mean reward.
  std::function<void(int, int, std::uint64_t, double)> progress;
};

// The held-out set (paths training never samples: above its 10 Gbit/s, a step down by half at
// 150 ms, 1 % loss at 150 ms, and a second flow for fairness), each run with every controller
// in `ccs` ("learned" runs `policy_id`, a registered policy). Returns one row per path and
// controller: utilization, p99 queueing delay, congestion loss, Jain, reward.
struct HeldOutPath {
  std::string name;
  TrainPath path;
};
std::vector<HeldOutPath> held_out_paths();
nlohmann::json evaluate(std::uint32_t policy_id, const std::vector<std::string>& ccs, int jobs);

// The starting point: a hand-set delay-target controller written into the network's weights
// (the latest interval's congestion signals cut the rate, a quiet path raises it 1.4x a round),
// plus N(0, 0.01) noise from the seed everywhere. Evolution strategies from random weights
// settled on sending almost nothing (no queue, no loss: a safe reward near 0); from this prior
// they tune a controller that already fills the path.
cc::LearnedPolicy initial_policy(std::uint64_t seed, double action_gain);

// Trains from initial_policy(seed) and returns the best of the policies scored on a fixed
// validation set (`validation_paths` paths, scored at the start, every 8 generations and at
// the end); the policy's provenance names the algorithm, the
// settings, the reward and the training distribution.
cc::LearnedPolicy train(const TrainOptions& options);

}  // namespace gw::train
