// `gradwall train --out POLICY.json [--episodes N] [--seed S] [--jobs N]`: learns the learned
// controller's policy in the simulator (harness/train/trainer.h, docs/cc.md "learned") and
// writes it with its provenance. Progress (generation, episodes, mean reward, ETA) on stderr.
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>

#include "core/errors.h"
#include "core/json_reader.h"
#include "core/text_file.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/train/trainer.h"
#include "reports/evaluation_html.h"

namespace gw {

namespace po = boost::program_options;

namespace {

int evaluate_policy(const std::string& file, const std::string& out, const std::string& html, int jobs) {
  const nlohmann::json doc = read_json_file(file);
  std::uint32_t id = 0;
  try {
    id = cc::register_policy(std::make_shared<const cc::LearnedPolicy>(cc::parse_policy(doc)));
  } catch (const cc::PolicyError& e) {
    throw InputError(file, e.path, e.reason);
  }
  const std::vector<std::string> ccs = {"learned", "acc", "acc2", "bbr", "cubic"};
  const nlohmann::json rows = train::evaluate(id, ccs, jobs);
  std::printf("%-52s %-8s %11s %14s %10s %6s %8s\n", "path", "cc", "utilization", "queue p99 ms", "cong loss",
              "jain", "reward");
  for (const nlohmann::json& r : rows) {
    std::printf("%-52s %-8s %11.3f %14.3f %10.5f %6.3f %8.3f\n", r["path"].get<std::string>().c_str(),
                r["cc"].get<std::string>().c_str(), r["utilization"].get<double>(),
                r["queue_p99_ns"].get<double>() / 1e6, r["congestion_loss"].get<double>(),
                r["jain"].get<double>(), r["reward"].get<double>());
  }
  const nlohmann::json evaluation = {
      {"policy", file}, {"weights_fnv1a64", doc.value("weights_fnv1a64", "")}, {"rows", rows}};
  if (!out.empty()) {
    write_text_file_atomically(out, evaluation.dump(1) + "\n");
  }
  if (!html.empty()) {
    write_text_file_atomically(html, reports::write_evaluation_html(evaluation));
  }
  return kExitOk;
}

}  // namespace

int cmd_train(const Args& args) {
  po::options_description opts(
      "gradwall train --out POLICY.json [options]\ngradwall train --evaluate POLICY.json [--out "
      "EVAL.json] [--html EVAL.html]\n\nLearns a pacing policy for `transport.cc: \"learned\"` "
      "in the simulator: evolution strategies over\nrandom paths (RTT 5-300 ms, 0.1-10 Gbit/s, loss, jitter, "
      "capacity steps, a competing flow;\ndocs/cc.md \"learned\"). The same seed gives the same weights, "
      "whatever "
      "--jobs.\nWith --evaluate: runs the policy and acc, acc2, bbr, cubic on the held-out paths (a 24 -> 12 "
      "Gbit/s step,\n150 ms RTT with 1 % loss, two flows) and prints the table.\nOptions");
  std::string evaluate_file;
  std::string out;
  std::string html;
  train::TrainOptions o;
  std::string seed_text = "1";
  o.jobs = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  opts.add_options()("help,h", "this help")("out", po::value<std::string>(&out), "the policy file to write")(
      "episodes", po::value<std::uint64_t>(&o.episodes)->default_value(o.episodes),
      "simulated episodes in all (a generation takes 2 x population x paths)")(
      "seed", po::value<std::string>(&seed_text)->default_value(seed_text), "random seed")(
      "jobs", po::value<int>(&o.jobs)->default_value(o.jobs), "episodes run in parallel")(
      "population", po::value<int>(&o.population)->default_value(o.population),
      "antithetic pairs per generation")("paths", po::value<int>(&o.paths)->default_value(o.paths),
                                         "random paths per generation")(
      "sigma", po::value<double>(&o.sigma)->default_value(o.sigma), "perturbation scale")(
      "learning-rate", po::value<double>(&o.learning_rate)->default_value(o.learning_rate), "step size")(
      "evaluate", po::value<std::string>(&evaluate_file), "a policy file to score on the held-out paths")(
      "html", po::value<std::string>(&html), "with --evaluate: also write the comparison as an HTML page");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).run(), vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  po::notify(vm);
  if (!evaluate_file.empty()) {
    return evaluate_policy(evaluate_file, out, html, o.jobs);
  }
  if (!html.empty()) {
    throw InputError("--html", "", "only with --evaluate");
  }
  if (out.empty()) {
    throw InputError("gradwall train", "", "give --out POLICY.json");
  }
  o.seed = parse_seed_option(seed_text);
  if (o.jobs < 1 || o.jobs > 256)
    throw InputError("--jobs", "", "1 to 256");
  if (o.population < 2 || o.population > 1024)
    throw InputError("--population", "", "2 to 1024");
  if (o.paths < 1 || o.paths > 64)
    throw InputError("--paths", "", "1 to 64");
  if (!(o.sigma > 0 && o.sigma < 10))
    throw InputError("--sigma", "", "in (0, 10)");
  if (!(o.learning_rate > 0 && o.learning_rate < 10))
    throw InputError("--learning-rate", "", "in (0, 10)");
  if (o.episodes < static_cast<std::uint64_t>(2 * o.population * o.paths)) {
    throw InputError(
        "--episodes", "",
        "at least one generation: 2 x population x paths = " + std::to_string(2 * o.population * o.paths));
  }
  const auto started = std::chrono::steady_clock::now();
  o.progress = [&](int g, int gens, std::uint64_t done, double reward) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const double eta = s / g * (gens - g);
    std::fprintf(stderr, "train: generation %d/%d, %llu episodes, mean reward %.4f, %.0f s, ETA %.0f s\n", g,
                 gens, static_cast<unsigned long long>(done), reward, s, eta);
  };
  cc::LearnedPolicy p = train::train(o);
  std::string command = "gradwall train";
  for (const std::string& a : args) {
    command += " " + a;
  }
  p.provenance["command"] = command;
  p.provenance["wall_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  write_text_file_atomically(out, cc::policy_to_json(p).dump(1) + "\n");
  std::fprintf(stderr, "train: wrote %s (weights fnv1a64 %016llx)\n", out.c_str(),
               static_cast<unsigned long long>(p.weights_hash()));
  return kExitOk;
}

}  // namespace gw
