// `gradwall train`'s trainer (harness/train/trainer.h): its episodes are real simulations and
// its result depends only on the seed.
#include "harness/train/trainer.h"

#include <gtest/gtest.h>

namespace gw::train {
namespace {

// Two generations of 2 pairs x 2 paths (16 short episodes, and 2 of validation): the same seed gives
// bit-identical weights whether the episodes run on one thread or two; another seed gives others.
TEST(Trainer, TheSameSeedTrainsTheSameWeightsWhateverTheJobs) {
  TrainOptions o;
  o.episodes = 16;
  o.population = 2;
  o.paths = 2;
  o.seed = 11;
  o.jobs = 1;
  o.validation_paths = 1;
  const std::uint64_t one = train(o).weights_hash();
  o.jobs = 2;
  const cc::LearnedPolicy two = train(o);
  EXPECT_EQ(two.weights_hash(), one);
  EXPECT_EQ(two.provenance["episodes"], 16 + 2);  // and the validation path at the start and the end
  EXPECT_EQ(two.provenance["generations"], 2);
  o.seed = 12;
  EXPECT_NE(train(o).weights_hash(), one);
}

// The sampled paths stay inside the documented distribution.
TEST(Trainer, PathsCoverTheDocumentedRanges) {
  Rng rng(3, "paths");
  int steps = 0, two_flows = 0, lossy = 0;
  for (int i = 0; i < 3000; ++i) {
    const TrainPath p = sample_path(rng);
    ASSERT_GE(p.rtt, Duration{5'000'000});
    ASSERT_LE(p.rtt, Duration{300'000'000});
    ASSERT_GE(p.rate_bps, 100'000'000U);
    ASSERT_LE(p.rate_bps, 10'000'000'000U);
    ASSERT_LE(p.loss, 0.02);
    ASSERT_GE(p.duration, Duration{2'000'000'000});
    ASSERT_LE(p.duration, Duration{6'000'000'000});
    steps += p.step_rate_bps > 0;
    two_flows += p.flows == 2;
    lossy += p.loss > 0;
  }
  // Each a third (or a half) of 3,000 draws: binomial sigma ~26, so +-100 is ~4 sigma.
  EXPECT_NEAR(steps, 1000, 100);
  EXPECT_NEAR(two_flows, 1000, 100);
  EXPECT_NEAR(lossy, 1500, 100);
}

// An episode's score is what the simulator measured: a cubic flow on a clean 1 Gbit/s, 20 ms
// path fills most of it with no congestion loss beyond its probing; the same seed gives the
// same score.
TEST(Trainer, AnEpisodeScoresTheSimulatedRun) {
  TrainPath p;
  p.rtt = Duration{20'000'000};
  p.rate_bps = 1'000'000'000;
  p.duration = Duration{2'000'000'000};
  p.buffer_bytes = 2'500'000;
  const EpisodeScore a = run_episode(p, "cubic", nlohmann::json::object(), 1);
  EXPECT_GT(a.utilization, 0.7);
  EXPECT_LE(a.utilization, 1.0);
  EXPECT_LT(a.congestion_loss, 0.05);
  EXPECT_LE(a.queue_p99_ns, 20e6 + 1e6);  // the buffer holds 20 ms at 1 Gbit/s
  const EpisodeScore b = run_episode(p, "cubic", nlohmann::json::object(), 1);
  EXPECT_EQ(a.reward, b.reward);
}

}  // namespace
}  // namespace gw::train
