// The reference for the simulator's speed (ci/bench/sim-speed): the discrete-event core alone,
// dispatching timers that re-arm themselves, as many as a small scenario has (hosts, hops).
// A simulation's events/s divided by this is the share of time that is not event dispatch.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "core/event_loop.h"

namespace {

struct Ticker final : gw::Wakeable {
  Ticker(gw::EventLoop& loop, std::int64_t period) : timer(loop, *this), period_ns(period) {}
  void wake(gw::Instant now) override { timer.arm(now + gw::Duration{period_ns}); }
  gw::Timer timer;
  std::int64_t period_ns;
};

void BM_EventLoopDispatch(benchmark::State& state) {
  gw::EventLoop loop;
  std::vector<std::unique_ptr<Ticker>> tickers;
  for (std::int64_t i = 0; i < state.range(0); ++i) {
    tickers.push_back(std::make_unique<Ticker>(loop, 1000 + 37 * i));
    tickers.back()->timer.arm(gw::at_ns(i));
  }
  for (auto _ : state) {
    loop.step();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventLoopDispatch)->Arg(16)->Arg(256);

}  // namespace
