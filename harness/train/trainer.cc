#include "harness/train/trainer.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <thread>

#include "core/units.h"
#include "harness/run/scenario.h"
#include "harness/sim/sim_runner.h"

namespace gw::train {

namespace {

double log_uniform(Rng& rng, double lo, double hi) {
  return lo * std::pow(hi / lo, rng.uniform());
}

std::string ms(Duration d) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3fms", static_cast<double>(d.count()) / 1e6);
  return b;
}

std::string netem(const TrainPath& p, std::uint64_t rate) {
  std::string s = "delay " + ms(p.rtt / 2);
  if (p.jitter > Duration{0}) {
    s += " " + ms(p.jitter);
  }
  s += " rate " + std::to_string(rate) + "bit";
  if (p.loss > 0) {
    char b[32];
    std::snprintf(b, sizeof b, " loss %.4f%%", p.loss * 100);
    s += b;
  }
  return s;
}

}  // namespace

TrainPath sample_path(Rng& rng) {
  TrainPath p;
  p.rtt = Duration{static_cast<std::int64_t>(log_uniform(rng, 5e6, 300e6))};
  p.rate_bps = static_cast<std::uint64_t>(log_uniform(rng, 1e8, 1e10));
  p.loss = rng.uniform() < 0.5 ? 0.0 : rng.uniform() * 0.02;
  if (rng.uniform() < 1.0 / 3) {
    p.jitter =
        Duration{static_cast<std::int64_t>(rng.uniform() * 0.05 * static_cast<double>(p.rtt.count()) / 2)};
  }
  p.duration = std::clamp(40 * p.rtt, Duration{2'000'000'000}, Duration{6'000'000'000});
  if (rng.uniform() < 1.0 / 3) {
    p.step_rate_bps = rng.uniform() < 0.5 ? p.rate_bps / 2 : p.rate_bps * 2;
    p.step_at = p.duration / 2;
  }
  if (rng.uniform() < 1.0 / 3) {
    p.flows = 2;
    p.second_start = p.duration / 4;
  }
  // The NIC: 1-16x the bottleneck (log-uniform), whole Mbit/s. The rate-share feature is the
  // flow's rate over the NIC's, so a fixed 100 Gbit/s NIC would train shares of -0.42 and
  // below only, and a 24 Gbit/s bottleneck (-0.26) would lie outside what the policy saw.
  const double fastest = static_cast<double>(std::max(p.rate_bps, p.step_rate_bps));
  p.nic_bps = static_cast<std::uint64_t>(fastest * std::exp2(4 * rng.uniform()) / 1e6 + 1) * 1'000'000;
  const double bdp = static_cast<double>(p.rate_bps) / 8 * std::chrono::duration<double>(p.rtt).count();
  p.buffer_bytes =
      std::max<std::uint64_t>(static_cast<std::uint64_t>(bdp * (0.5 + 1.5 * rng.uniform())), 1 << 20);
  return p;
}

nlohmann::json episode_scenario(const TrainPath& p, const std::string& cc, const nlohmann::json& cc_params,
                                std::uint64_t seed) {
  nlohmann::json wan = {
      {"between", {"a", "b"}}, {"netem", netem(p, p.rate_bps)}, {"limit_bytes", p.buffer_bytes}};
  if (p.step_rate_bps > 0) {
    wan["phases"] = {
        {{"at", ms(p.step_at)}, {"name", "capacity step"}, {"netem", netem(p, p.step_rate_bps)}}};
  }
  nlohmann::json flows = {{{"from", "a"}, {"to", "b"}, {"count", 1}}};
  if (p.flows == 2) {
    flows.push_back({{"from", "a"}, {"to", "b"}, {"count", 1}, {"start", ms(p.second_start)}});
  }
  const std::string nic = std::to_string(p.nic_bps) + "bit";
  nlohmann::json transport = {{"cc", cc}, {"mtu", 9000}};
  if (!cc_params.empty()) {
    transport["cc_params"] = cc_params;
  }
  return {{"gradwall", "scenario/v1"},
          {"name", "train-episode"},
          {"seed", seed},
          {"topology",
           {{"regions",
             {{{"name", "a"}, {"hosts", p.flows}, {"nic_rate", nic}},
              {{"name", "b"}, {"hosts", p.flows}, {"nic_rate", nic}}}},
            {"wan", {wan}}}},
          {"workload", {{"kind", "flows"}, {"duration", ms(p.duration)}, {"flows", flows}}},
          {"transport", transport}};
}

EpisodeScore run_episode(const TrainPath& p, const std::string& cc, const nlohmann::json& cc_params,
                         std::uint64_t seed) {
  const Scenario scenario = parse_scenario(episode_scenario(p, cc, cc_params, seed), "<train episode>");
  SimOptions o;
  o.keep_series = false;
  const SimResult r = run_sim(scenario, o);
  EpisodeScore s;
  double delivered = 0;
  std::vector<double> goodputs;
  for (const FlowResult& f : r.flows) {
    delivered += static_cast<double>(f.bytes_delivered) * 8;
    goodputs.push_back(static_cast<double>(f.goodput_bps));
  }
  const double run_s = std::chrono::duration<double>(p.duration).count();
  const double step_s = std::chrono::duration<double>(p.step_at).count();
  const double capacity = p.step_rate_bps > 0 ? static_cast<double>(p.rate_bps) * step_s +
                                                    static_cast<double>(p.step_rate_bps) * (run_s - step_s)
                                              : static_cast<double>(p.rate_bps) * run_s;
  s.utilization = delivered / capacity;
  std::uint64_t in = 0;
  std::uint64_t queue_drops = 0;
  for (const HopResult& h : r.hops) {
    if (!h.wan || h.packets_in == 0) {
      continue;
    }
    s.queue_p99_ns = std::max(s.queue_p99_ns, static_cast<double>(h.queue_delay_ns.p99));
    in += h.packets_in;
    for (const auto& [cause, n] : h.dropped) {
      if (cause != "loss") {
        queue_drops += n;
      }
    }
  }
  s.queue_over_rtt = s.queue_p99_ns / static_cast<double>(p.rtt.count());
  s.congestion_loss = in > 0 ? static_cast<double>(queue_drops) / static_cast<double>(in) : 0;
  s.jain = r.jain_fairness;
  s.reward =
      s.utilization - 0.5 * s.queue_over_rtt - 5 * s.congestion_loss - (p.flows > 1 ? 1 - s.jain : 0.0);
  return s;
}

namespace {

// Runs `n` independent jobs on `jobs` threads; job i writes only its own result.
void parallel_for(std::size_t n, int jobs, const std::function<void(std::size_t)>& job) {
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) {
      job(i);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < jobs; ++t) {
    threads.emplace_back(worker);
  }
  worker();
  for (std::thread& t : threads) {
    t.join();
  }
}

double score(const cc::LearnedPolicy& policy, const std::vector<TrainPath>& paths, std::uint64_t seed,
             std::size_t path) {
  const std::uint32_t id = cc::register_policy(std::make_shared<const cc::LearnedPolicy>(policy));
  const double reward = run_episode(paths[path], "learned", {{"policy", id}}, seed).reward;
  cc::release_policy(id);  // a candidate runs once: keep thousands of them from piling up
  return reward;
}

}  // namespace

std::vector<HeldOutPath> held_out_paths() {
  const auto bdp = [](std::uint64_t bps, Duration rtt) {
    return static_cast<std::uint64_t>(static_cast<double>(bps) / 8 *
                                      std::chrono::duration<double>(rtt).count());
  };
  std::vector<HeldOutPath> v;
  TrainPath step;
  step.rtt = Duration{150'000'000};
  step.rate_bps = 24'000'000'000ULL;
  step.step_rate_bps = 12'000'000'000ULL;
  step.step_at = Duration{5'000'000'000};
  step.duration = Duration{10'000'000'000};
  step.buffer_bytes = bdp(step.rate_bps, step.rtt);
  v.push_back({"24->12 Gbit/s step at 5 s, 150 ms RTT", step});
  TrainPath lossy;
  lossy.rtt = Duration{150'000'000};
  lossy.rate_bps = 2'400'000'000ULL;
  lossy.loss = 0.01;
  lossy.duration = Duration{10'000'000'000};
  lossy.buffer_bytes = bdp(lossy.rate_bps, lossy.rtt);
  v.push_back({"2.4 Gbit/s, 150 ms RTT, 1 % loss", lossy});
  TrainPath two;
  two.rtt = Duration{50'000'000};
  two.rate_bps = 2'400'000'000ULL;
  two.flows = 2;
  two.second_start = Duration{2'000'000'000};
  two.duration = Duration{12'000'000'000};
  two.buffer_bytes = bdp(two.rate_bps, two.rtt);
  v.push_back({"2 flows, 2.4 Gbit/s, 50 ms RTT (second from 2 s)", two});
  return v;
}

nlohmann::json evaluate(std::uint32_t policy_id, const std::vector<std::string>& ccs, int jobs) {
  const std::vector<HeldOutPath> paths = held_out_paths();
  std::vector<EpisodeScore> scores(paths.size() * ccs.size());
  parallel_for(scores.size(), jobs, [&](std::size_t i) {
    const std::string& cc = ccs[i % ccs.size()];
    const nlohmann::json params =
        cc == "learned" ? nlohmann::json{{"policy", policy_id}} : nlohmann::json::object();
    scores[i] = run_episode(paths[i / ccs.size()].path, cc, params, 1);
  });
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < scores.size(); ++i) {
    const EpisodeScore& s = scores[i];
    rows.push_back({{"path", paths[i / ccs.size()].name},
                    {"cc", ccs[i % ccs.size()]},
                    {"flows", paths[i / ccs.size()].path.flows},
                    {"utilization", s.utilization},
                    {"queue_p99_ns", s.queue_p99_ns},
                    {"congestion_loss", s.congestion_loss},
                    {"jain", s.jain},
                    {"reward", s.reward}});
  }
  return rows;
}

cc::LearnedPolicy initial_policy(std::uint64_t seed, double action_gain) {
  using P = cc::LearnedPolicy;
  constexpr int kIn = P::kInputs;
  constexpr int kH = P::kHidden;
  P p;
  p.action_gain = action_gain;
  Rng rng(seed, "train/init");
  for (float& w : p.weights) {
    w = static_cast<float>(rng.normal() * 0.01);
  }
  // The prior: hidden unit j < 7 of layer 1 reads the latest interval's feature j with a gain;
  // layer 2's unit 0 sums the congestion signals (inflation, gradient, CE, loss, INT queue),
  // unit 1 the send ratio, unit 2 the rate share; the output is tanh(0.3 - 3 x congestion - 1 x
  // send excess - 1 x share): a small flow on a quiet path doubles a round, one near the line
  // rate grows slowly, and a cut comes once the RTT grows a few percent, harder for the larger
  // of two flows.
  float* w1 = p.weights.data();
  float* w2 = w1 + kIn * kH + kH;
  float* w3 = w2 + kH * kH + kH;
  const int latest = kIn - P::kFeatures;
  const float gain[P::kFeatures] = {5, 2, 1, 10, 3, 2, 1};
  for (int j = 0; j < P::kFeatures; ++j) {
    w1[j * kIn + latest + j] = gain[j];
  }
  for (const int j : {0, 1, 3, 4, 5}) {
    w2[0 * kH + j] = 1;
  }
  w2[1 * kH + 2] = 1;
  w2[2 * kH + 6] = 1;
  w3[0] = -3;
  w3[1] = -1;
  w3[2] = -1;  // share is <= 0: a small share raises the action
  w3[kH] = 0.3F;
  return p;
}

cc::LearnedPolicy train(const TrainOptions& o) {
  constexpr std::size_t kW = cc::LearnedPolicy::kWeights;
  const int per_generation = 2 * o.population * o.paths;
  const int generations =
      std::max<int>(1, static_cast<int>(o.episodes / static_cast<std::uint64_t>(per_generation)));
  cc::LearnedPolicy theta = initial_policy(o.seed, o.action_gain);
  theta.startup = o.startup;
  std::uint64_t done = 0;
  // A fixed validation set, scored at the start and every kValidateEvery generations: the
  // policy returned is the best of those, so training never hands back worse than it began
  // with on these paths (the noisy gradient of a small population can walk away from a good
  // policy).
  constexpr int kValidateEvery = 8;
  std::vector<TrainPath> validation;
  {
    Rng rng(o.seed, "train/validation");
    for (int k = 0; k < o.validation_paths; ++k) {
      validation.push_back(sample_path(rng));
    }
  }
  const auto validate = [&](const cc::LearnedPolicy& p) {
    std::vector<double> r(validation.size());
    parallel_for(r.size(), o.jobs, [&](std::size_t k) { r[k] = score(p, validation, o.seed + 999'999, k); });
    done += r.size();
    return std::accumulate(r.begin(), r.end(), 0.0) / static_cast<double>(r.size());
  };
  cc::LearnedPolicy best = theta;
  double best_reward = validate(theta);
  int best_generation = 0;
  const double initial_reward = best_reward;
  for (int g = 0; g < generations; ++g) {
    Rng rng(o.seed, "train/generation/" + std::to_string(g));
    std::vector<TrainPath> paths;
    for (int k = 0; k < o.paths; ++k) {
      paths.push_back(sample_path(rng));
    }
    std::vector<std::vector<float>> eps(static_cast<std::size_t>(o.population), std::vector<float>(kW));
    for (auto& e : eps) {
      for (float& x : e) {
        x = static_cast<float>(rng.normal());
      }
    }
    // Evaluation j: member j / (2 paths) with sign (j / paths) % 2, on path j % paths.
    std::vector<double> rewards(static_cast<std::size_t>(per_generation));
    parallel_for(rewards.size(), o.jobs, [&](std::size_t j) {
      const std::size_t path = j % static_cast<std::size_t>(o.paths);
      const std::size_t signed_member = j / static_cast<std::size_t>(o.paths);
      const std::size_t member = signed_member / 2;
      const float sign = signed_member % 2 == 0 ? 1.0F : -1.0F;
      cc::LearnedPolicy candidate = theta;
      for (std::size_t i = 0; i < kW; ++i) {
        candidate.weights[i] += static_cast<float>(o.sigma) * sign * eps[member][i];
      }
      rewards[j] = score(candidate, paths, o.seed + static_cast<std::uint64_t>(g) * 1000 + path, path);
    });
    done += rewards.size();
    // Each signed member's mean reward over the paths, then centred ranks in [-0.5, 0.5].
    const std::size_t members = static_cast<std::size_t>(2 * o.population);
    std::vector<double> fitness(members, 0);
    for (std::size_t j = 0; j < rewards.size(); ++j) {
      fitness[j / static_cast<std::size_t>(o.paths)] += rewards[j] / o.paths;
    }
    std::vector<std::size_t> order(members);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return fitness[a] < fitness[b]; });
    std::vector<double> rank(members);
    for (std::size_t k = 0; k < members; ++k) {
      rank[order[k]] = static_cast<double>(k) / static_cast<double>(members - 1) - 0.5;
    }
    const double step = o.learning_rate / (static_cast<double>(members) * o.sigma);
    for (std::size_t i = 0; i < kW; ++i) {
      double gsum = 0;
      for (std::size_t m = 0; m < static_cast<std::size_t>(o.population); ++m) {
        gsum += (rank[2 * m] - rank[2 * m + 1]) * static_cast<double>(eps[m][i]);
      }
      theta.weights[i] =
          static_cast<float>(static_cast<double>(theta.weights[i]) * (1 - 0.001) + step * gsum);
    }
    if ((g + 1) % kValidateEvery == 0 || g + 1 == generations) {
      const double v = validate(theta);
      if (v > best_reward) {
        best = theta;
        best_reward = v;
        best_generation = g + 1;
      }
    }
    if (o.progress) {
      o.progress(g + 1, generations, done,
                 std::accumulate(fitness.begin(), fitness.end(), 0.0) / static_cast<double>(members));
    }
  }
  theta = best;
  theta.provenance = {
      {"algorithm",
       "evolution strategies (Salimans et al. 2017): antithetic pairs, centred ranks, "
       "weight decay 0.001, from a delay-target prior (trainer.h initial_policy)"},
      {"seed", o.seed},
      {"validation",
       {{"paths", o.validation_paths},
        {"every_generations", kValidateEvery},
        {"initial_reward", initial_reward},
        {"best_reward", best_reward},
        {"best_generation", best_generation}}},
      {"episodes", done},
      {"generations", generations},
      {"population_pairs", o.population},
      {"paths_per_generation", o.paths},
      {"sigma", o.sigma},
      {"learning_rate", o.learning_rate},
      {"reward",
       "utilization - 0.5 x (p99 queueing delay / RTT) - 5 x congestion loss - (1 - Jain) with 2 flows"},
      {"paths",
       "RTT 5-300 ms and 0.1-10 Gbit/s log-uniform; loss 0 or U(0, 2 %); jitter up to 5 % of "
       "the one-way delay on 1/3; a x0.5 or x2 capacity step at mid-run on 1/3; a second "
       "flow from 1/4 of the run on 1/3; buffer 0.5-2 BDP; 40 RTTs within 2-6 s; NIC 1-16x the bottleneck; "
       "MTU 9000"}};
  return theta;
}

}  // namespace gw::train
