// MoE all-to-all workload (moe.h).
#include "generators/workloads/moe.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "core/rng.h"

namespace gw::wl {
namespace {

std::vector<std::vector<std::uint64_t>> transpose(const std::vector<std::vector<std::uint64_t>>& m) {
  std::vector<std::vector<std::uint64_t>> t(m.size(), std::vector<std::uint64_t>(m.size()));
  for (std::size_t i = 0; i < m.size(); ++i) {
    for (std::size_t j = 0; j < m.size(); ++j) {
      t[j][i] = m[i][j];
    }
  }
  return t;
}

coll::CollectiveSpec all_to_all(const MoeConfig& config, std::vector<std::vector<std::uint64_t>> matrix) {
  coll::CollectiveSpec spec;
  spec.op = coll::Op::kAllToAll;
  spec.algorithm = config.algorithm;
  spec.channels = config.channels;
  spec.bytes = std::accumulate(matrix[0].begin(), matrix[0].end(), std::uint64_t{0});
  spec.send_matrix = std::move(matrix);
  return spec;
}

Duration fraction(Duration d, double f) {
  return Duration{std::llround(static_cast<double>(d.count()) * f)};
}

}  // namespace

std::vector<std::vector<std::uint64_t>> moe_dispatch_matrix(std::uint32_t ranks, std::uint64_t tokens,
                                                            std::uint32_t top_k,
                                                            std::uint64_t bytes_per_token, double skew,
                                                            std::uint64_t seed, std::uint32_t layer) {
  // Popularity order: a Fisher-Yates shuffle from the layer's own stream.
  std::vector<std::uint32_t> place(ranks);
  std::iota(place.begin(), place.end(), 0u);
  Rng rng(seed, "moe_layer_" + std::to_string(layer));
  for (std::uint32_t i = ranks; i > 1; --i) {
    std::swap(place[i - 1], place[rng.below(i)]);
  }
  std::vector<double> weight(ranks);
  for (std::uint32_t j = 0; j < ranks; ++j) {
    weight[j] = std::pow(1.0 + place[j], -skew);
  }
  const double sum = std::accumulate(weight.begin(), weight.end(), 0.0);
  // Largest remainder: floor of each share, then one more to the largest fractions.
  const std::uint64_t copies = tokens * top_k;
  std::vector<std::uint64_t> count(ranks);
  std::vector<std::pair<double, std::uint32_t>> remainder;
  std::uint64_t given = 0;
  for (std::uint32_t j = 0; j < ranks; ++j) {
    const double share = static_cast<double>(copies) * weight[j] / sum;
    count[j] = static_cast<std::uint64_t>(std::floor(share));
    given += count[j];
    remainder.emplace_back(share - std::floor(share), j);
  }
  std::stable_sort(remainder.begin(), remainder.end(), [](auto a, auto b) { return a.first > b.first; });
  for (std::uint64_t i = 0; given < copies; ++i, ++given) {
    ++count[remainder[i % ranks].second];
  }
  std::vector<std::vector<std::uint64_t>> m(ranks, std::vector<std::uint64_t>(ranks));
  for (auto& row : m) {
    for (std::uint32_t j = 0; j < ranks; ++j) {
      row[j] = count[j] * bytes_per_token;
    }
  }
  return m;
}

Workload moe_workload(const MoeConfig& config, std::uint32_t ranks) {
  const ModelSpec& model = config.model;
  if (ranks == 0 || config.iterations == 0 || model.layers == 0 || config.top_k == 0) {
    throw WorkloadError{"moe: needs ranks, iterations, layers and top_k > 0"};
  }
  if (!(config.expert_share >= 0 && config.expert_share <= 1) || config.skew < 0) {
    throw WorkloadError{"moe: expert_share must be in [0, 1] and skew >= 0"};
  }
  const PhaseTimes t = phase_times(model, config.compute);
  const Duration fwd = t.forward / model.layers;
  const Duration bwd = t.backward / model.layers;
  const std::uint64_t bytes_per_token = model.hidden * model.bytes_per_activation;
  std::vector<std::vector<std::vector<std::uint64_t>>> m;
  for (std::uint32_t l = 0; l < model.layers; ++l) {
    m.push_back(moe_dispatch_matrix(ranks, model.tokens_per_iteration, config.top_k, bytes_per_token,
                                    config.skew, config.seed, l));
  }
  WorkloadBuilder b("moe", ranks);
  for (std::uint32_t k = 0; k < config.iterations; ++k) {
    b.begin_iteration();
    std::vector<std::uint32_t> last;
    for (std::uint32_t l = 0; l < model.layers; ++l) {
      const std::string n = "[" + std::to_string(l) + "]";
      last = {b.compute("dense_fwd" + n, fraction(fwd, 1 - config.expert_share), last)};
      last = {b.collective("dispatch" + n, all_to_all(config, m[l]), last)};
      last = {b.compute("expert_fwd" + n, fraction(fwd, config.expert_share), last)};
      last = {b.collective("combine" + n, all_to_all(config, transpose(m[l])), last)};
    }
    for (std::uint32_t l = model.layers; l-- > 0;) {
      const std::string n = "[" + std::to_string(l) + "]";
      last = {b.collective("combine_bwd" + n, all_to_all(config, m[l]), last)};
      last = {b.compute("expert_bwd" + n, fraction(bwd, config.expert_share), last)};
      last = {b.collective("dispatch_bwd" + n, all_to_all(config, transpose(m[l])), last)};
      last = {b.compute("dense_bwd" + n, fraction(bwd, 1 - config.expert_share), last)};
    }
  }
  return b.take();
}

}  // namespace gw::wl
