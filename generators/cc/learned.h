// "learned": a pacing-rate policy learned in the simulator (`gradwall train`, docs/cc.md
// "learned"), in the shape of Aurora (Jay et al., "A Deep Reinforcement Learning Perspective on
// Internet Congestion Control", ICML 2019): once per monitor interval (one smoothed RTT) the
// controller turns what the interval's ACKs said into seven features, keeps the last four
// intervals' features, and a small multilayer perceptron (28 -> 32 -> 32 -> 1, tanh; 2,017
// weights) maps them to an action a in (-1, 1); the pacing rate is multiplied by 2^(gain x a).
// The window is the 2 x rate x srtt safety window of acc (acc.h).
//
// With `startup` (policies trained since 2026-12-07), the network decides only after a
// startup: the rate doubles each interval, as slow start and BBR's Startup grow, until the
// interval's least RTT exceeds the least RTT by RFC 9406's (HyStart++) RttThresh,
// clamp(min RTT / 8, 4 ms, 16 ms), a CE mark arrives or more than 5 % of the interval's bytes
// are lost; the rate is then the interval's delivery rate when that is lower. A policy grown
// from a 10-packet start by its own multipliers took 32 round trips to fill 24 Gbit/s at
// 150 ms (docs/cc.md).
//
// Features of an interval, each clipped to the range given:
//   0 min-RTT inflation   least RTT of the interval / min RTT - 1      [0, 4]
//   1 min-RTT gradient    (least RTT - the previous interval's) / min RTT [-1, 1]
//   2 send ratio          bytes sent / bytes acknowledged - 1           [-1, 3]
//   3 CE fraction         CE-marked bytes / bytes acknowledged          [0, 1]
//   4 loss fraction       bytes declared lost / bytes sent              [0, 1]
//   5 INT queue           deepest hop queue / (hop rate x min RTT)      [0, 4] (0 without INT)
//   6 rate share          log2(pacing rate / line rate) / 8             [-2, 0]
// The last is what lets two flows that see the same congestion converge: multiplying every
// rate by the same factor keeps their ratio (MIMD never converges to fairness, Chiu and Jain
// 1989), so the policy needs to know where its own rate stands to cut a large one harder.
//
// Evaluated in float with a fixed order of operations: the same policy and the same events
// give the same rates on any run (docs/cc.md). Parameters (CcParams): `policy` (the id
// register_policy gave the loaded file; the scenario loader sets it from the file name),
// `initial_rate_mbps` (default: 10 packets per RTT hint, else 100 Mbit/s), `min_rate_mbps`
// (default 1).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "generators/cc/congestion_control.h"

namespace gw::cc {

struct LearnedPolicy {
  static constexpr int kFeatures = 7;
  static constexpr int kHistory = 4;
  static constexpr int kInputs = kFeatures * kHistory;
  static constexpr int kHidden = 32;
  static constexpr std::size_t kWeights =
      kInputs * kHidden + kHidden + kHidden * kHidden + kHidden + kHidden + 1;

  // Layer by layer, row-major (out x in), each layer's biases after its weights.
  std::array<float, kWeights> weights{};
  double action_gain = 1.0;  // rate *= 2^(action_gain x a)
  // A startup before the network decides: the rate doubles each monitor interval until the
  // first sign of a queue (docs/cc.md "learned"). A policy is trained with or without it and
  // runs as it was trained: the file's `architecture.startup` (absent: false).
  bool startup = false;
  nlohmann::json provenance = {};  // how it was trained (`gradwall train`)

  // a in (-1, 1) for the 28 inputs (oldest interval first), layer by layer as stored: the
  // reference PolicyNet is checked against bit for bit.
  float decide(std::span<const float, kInputs> inputs) const;
  // FNV-1a 64 of the weights' bit patterns: equal hashes, equal policies.
  std::uint64_t weights_hash() const;
};

// The activation: tanh by Lambert's continued fraction truncated to a 7th-order Padé
// approximant, x(135135 + 17325x^2 + 378x^4 + x^6) / (135135 + 62370x^2 + 3150x^4 + 28x^6), with
// x clamped to [-4.97, 4.97] (where it reaches 0.9999994); within 1e-4 of tanh everywhere. Our
// own function, branch-free, so that a decision is the same on every libm and vectorizes.
float policy_tanh(float x);

// The network laid out for speed (what the controller runs): each layer's weights stored by
// input column, so that a layer is a sequence of "all outputs += column x input" steps the
// compiler vectorizes. Every output still sums its bias, then its inputs in index order, so a
// decision is bit-identical to LearnedPolicy::decide.
class PolicyNet {
 public:
  explicit PolicyNet(const LearnedPolicy& policy);
  float decide(std::span<const float, LearnedPolicy::kInputs> inputs) const;

 private:
  alignas(64) std::array<float, LearnedPolicy::kWeights> w_{};
};

// A policy file's error: the JSON path and the reason (the harness adds the file name).
struct PolicyError {
  std::string path;
  std::string reason;
};

// The policy file (`"gradwall": "policy/v1"`, docs/cc.md "learned"); PolicyError when it is not
// one, naming the JSON path.
LearnedPolicy parse_policy(const nlohmann::json& doc);
nlohmann::json policy_to_json(const LearnedPolicy& policy);

// Loaded policies live for the process: the scenario loader registers each file once and puts
// its id in cc_params.policy; the controller looks it up when made.
std::uint32_t register_policy(std::shared_ptr<const LearnedPolicy> policy);
std::shared_ptr<const LearnedPolicy> registered_policy(std::uint32_t id);
// Drops the registry's hold on `id` (controllers made from it keep theirs); the id is not reused.
void release_policy(std::uint32_t id);

// The controller itself, for the trainer and tests, which hand it a policy directly.
std::unique_ptr<CongestionControl> make_learned_with(const CcContext& ctx,
                                                     std::shared_ptr<const LearnedPolicy> policy,
                                                     double initial_rate_bps = 0, double min_rate_bps = 1e6);
std::unique_ptr<CongestionControl> make_learned(const CcContext& ctx, const CcParams& params);

}  // namespace gw::cc
