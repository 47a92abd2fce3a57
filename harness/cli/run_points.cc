#include "harness/cli/run_points.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "core/errors.h"

extern char** environ;

namespace gw {

namespace fs = std::filesystem;

namespace {

// On a terminal: "runs 3/18 done, about 12 s left" (the mean time per run so far times the runs
// left), rewritten in place; a pipe or a file gets nothing.
void progress(std::size_t done, std::size_t total, std::chrono::steady_clock::time_point started) {
  if (isatty(STDERR_FILENO) == 0 || total < 2) {
    return;
  }
  const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const double left = spent / static_cast<double>(done) * static_cast<double>(total - done);
  std::fprintf(stderr, "\rruns %zu/%zu done, about %.0f s left   %s", done, total, left,
               done == total ? "\n" : "");
  std::fflush(stderr);
}

}  // namespace

std::vector<int> run_points(const std::vector<fs::path>& scenarios, const std::vector<fs::path>& outs,
                            unsigned jobs, const std::vector<std::string>& extra, bool stderr_to_file) {
  return run_points_each(scenarios, outs, jobs,
                         std::vector<std::vector<std::string>>(scenarios.size(), extra), stderr_to_file);
}

std::vector<int> run_points_each(const std::vector<fs::path>& scenarios, const std::vector<fs::path>& outs,
                                 unsigned jobs, const std::vector<std::vector<std::string>>& extra,
                                 bool stderr_to_file) {
  std::vector<int> codes(scenarios.size(), -1);
  std::vector<std::pair<pid_t, std::size_t>> running;
  const auto started = std::chrono::steady_clock::now();
  std::size_t finished = 0;
  std::size_t next = 0;
  while (next < scenarios.size() || !running.empty()) {
    while (next < scenarios.size() && running.size() < jobs) {
      std::vector<std::string> argv_s{"gradwall",          "run",    scenarios[next].string(), "--out",
                                      outs[next].string(), "--quiet"};
      argv_s.insert(argv_s.end(), extra[next].begin(), extra[next].end());
      std::vector<char*> argv;
      for (std::string& s : argv_s) {
        argv.push_back(s.data());
      }
      argv.push_back(nullptr);
      posix_spawn_file_actions_t actions;
      posix_spawn_file_actions_init(&actions);
      const std::string log = (outs[next] / "stderr.log").string();
      if (stderr_to_file) {
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                         0644);
      }
      pid_t pid = 0;
      const int rc = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
      posix_spawn_file_actions_destroy(&actions);
      if (rc != 0) {
        throw EnvironmentError("cannot start gradwall run for " + scenarios[next].string());
      }
      running.emplace_back(pid, next++);
    }
    int status = 0;
    const pid_t done = ::wait(&status);
    for (auto it = running.begin(); it != running.end(); ++it) {
      if (it->first == done) {
        codes[it->second] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        running.erase(it);
        progress(++finished, scenarios.size(), started);
        break;
      }
    }
  }
  return codes;
}

void absolute_profiles(nlohmann::json& doc, const std::string& file) {
  if (!doc.contains("topology") || !doc["topology"].contains("wan") || !doc["topology"]["wan"].is_array()) {
    return;
  }
  for (auto& link : doc["topology"]["wan"]) {
    if (link.is_object() && link.contains("profile") && link["profile"].is_string()) {
      const fs::path rel = fs::path(file).parent_path() / link["profile"].get<std::string>();
      if (fs::is_regular_file(rel)) {
        link["profile"] = fs::absolute(rel).string();
      }
    }
  }
}

}  // namespace gw
