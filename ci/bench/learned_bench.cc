// One decision of the learned controller's policy (generators/cc/learned.h): the 24 -> 32 ->
// 32 -> 1 tanh network on an interval's features. Issue 20's goal: <= 500 ns. The reference in
// the same run is the same number of multiply-adds (1,856) with no tanh, so the ratio says what
// the activations cost. docs/benchmarks.md "Learned controller".
#include <benchmark/benchmark.h>

#include <array>

#include "core/rng.h"
#include "generators/cc/learned.h"

namespace {

gw::cc::LearnedPolicy bench_policy() {
  gw::cc::LearnedPolicy p;
  gw::Rng rng(1, "bench");
  for (float& w : p.weights) {
    w = static_cast<float>(rng.normal() * 0.2);
  }
  return p;
}

void BM_LearnedDecide(benchmark::State& state) {
  const gw::cc::LearnedPolicy p = bench_policy();
  std::array<float, gw::cc::LearnedPolicy::kInputs> x{};
  gw::Rng rng(2, "inputs");
  for (float& v : x) {
    v = static_cast<float>(rng.uniform());
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(x.data());
    const float a = p.decide(x);
    benchmark::DoNotOptimize(a);
    x[0] = a * 0.5F;  // the next decision depends on this one
  }
}
BENCHMARK(BM_LearnedDecide);

void BM_MultiplyAddsOnly(benchmark::State& state) {
  const gw::cc::LearnedPolicy p = bench_policy();
  std::array<float, gw::cc::LearnedPolicy::kInputs> x{};
  for (auto _ : state) {
    benchmark::DoNotOptimize(x.data());
    float s = 0;
    for (std::size_t i = 0; i + 1 < p.weights.size() - 32; ++i) {
      s += p.weights[i] * x[i % x.size()];
    }
    benchmark::DoNotOptimize(s);
    x[0] = s * 1e-9F;
  }
}
BENCHMARK(BM_MultiplyAddsOnly);

}  // namespace
