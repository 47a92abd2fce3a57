// One decision of the learned controller's policy (generators/cc/learned.h): the 28 -> 32 ->
// 32 -> 1 network on an interval's features, as the controller runs it (PolicyNet, column-major)
// and as the file stores it (LearnedPolicy::decide, row by row: the reference in the same run,
// bit-identical results). Issue 20's goal: <= 500 ns. docs/benchmarks.md "Learned controller".
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

// Decisions back to back, each input depending on the last output, so none is hoisted.
template <typename Net>
void decide_loop(benchmark::State& state, const Net& net) {
  std::array<float, gw::cc::LearnedPolicy::kInputs> x{};
  gw::Rng rng(2, "inputs");
  for (float& v : x) {
    v = static_cast<float>(rng.uniform());
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(x.data());
    const float a = net.decide(x);
    benchmark::DoNotOptimize(a);
    x[0] = a * 0.5F;
  }
}

void BM_LearnedDecide(benchmark::State& state) {
  decide_loop(state, gw::cc::PolicyNet(bench_policy()));
}
BENCHMARK(BM_LearnedDecide);

void BM_LearnedDecideRowByRow(benchmark::State& state) {
  decide_loop(state, bench_policy());
}
BENCHMARK(BM_LearnedDecideRowByRow);

}  // namespace
