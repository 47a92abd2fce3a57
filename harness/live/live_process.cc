#include "harness/live/live_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "core/errors.h"
#include "harness/live/endpoints/clock.h"

extern char** environ;

namespace gw {

namespace {

std::string last_line_of(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  std::string last;
  while (std::getline(in, line)) {
    if (!line.empty()) {
      last = line;
    }
  }
  return last;
}

}  // namespace

std::string signal_text(int sig) {
  const char* name = strsignal(sig);
  return "signal " + std::to_string(sig) + " (" + (name != nullptr ? name : "?") + ")";
}

Child::Child(std::string name, const std::vector<std::string>& argv, const std::string& out_file,
             const std::string& err_file)
    : name_(std::move(name)), err_file_(err_file) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const std::string& a : argv) {
    args.push_back(const_cast<char*>(a.c_str()));
  }
  args.push_back(nullptr);
  const int rc = posix_spawnp(&pid_, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    throw EnvironmentError("cannot start " + name_ + " (" + argv[0] + "): " + std::strerror(rc));
  }
}

bool Child::running() {
  if (reaped_) {
    return false;
  }
  int status = 0;
  if (wait4(pid_, &status, WNOHANG, &usage_) == pid_) {
    reaped_ = true;
    status_ = status;
    return false;
  }
  return true;
}

bool Child::wait_for(Duration timeout) {
  const std::int64_t end = endpoints::monotonic_ns() + timeout.count();
  while (running()) {
    if (endpoints::monotonic_ns() > end) {
      return false;
    }
    usleep(5000);
  }
  return true;
}

void Child::signal(int sig) {
  if (running()) {
    kill(pid_, sig);
  }
}

void Child::stop(Duration grace) {
  signal(SIGTERM);
  if (!wait_for(grace)) {
    kill_and_reap();
  }
}

void Child::kill_and_reap() {
  if (!reaped_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    int status = 0;
    wait4(pid_, &status, 0, &usage_);
    status_ = status;
    reaped_ = true;
  }
}

bool Child::exited_ok() const {
  return reaped_ && WIFEXITED(status_) && WEXITSTATUS(status_) == 0;
}

int Child::exit_code() const {
  return reaped_ && WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
}

std::string Child::how_it_ended() const {
  std::string s;
  if (!reaped_) {
    s = "is still running";
  } else if (WIFSIGNALED(status_)) {
    s = "was killed by " + signal_text(WTERMSIG(status_));
  } else {
    s = "exited with code " + std::to_string(WEXITSTATUS(status_));
  }
  const std::string last = last_line_of(err_file_);
  return last.empty() ? s : s + " (its stderr ends: \"" + last + "\")";
}

nlohmann::json Child::to_json() const {
  nlohmann::json j = {{"name", name_}, {"pid", pid_}, {"ended", how_it_ended()}, {"stderr", err_file_}};
  if (reaped_) {
    auto secs = [](const timeval& t) {
      return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    j["cpu_user_s"] = secs(usage_.ru_utime);
    j["cpu_system_s"] = secs(usage_.ru_stime);
  }
  return j;
}

int run_command(const std::vector<std::string>& argv) {
  Child c("command", argv, "/dev/null", "/dev/null");
  c.wait_for(Duration{60'000'000'000});
  c.kill_and_reap();
  return c.exit_code();
}

}  // namespace gw
