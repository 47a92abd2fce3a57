// A process the live runner starts and supervises (live_bench.h, live_coordinator.h): its
// output goes to files, it is killed and reaped when its Child goes away, and it can say how it
// ended in words a report can carry ("was killed by signal 9 (Killed) (its stderr ends: ...)").
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/time.h"

namespace gw {

class Child {
 public:
  // Starts argv[0] (looked up in PATH) with stdin /dev/null, stdout and stderr to the files;
  // throws EnvironmentError when it cannot.
  Child(std::string name, const std::vector<std::string>& argv, const std::string& out_file,
        const std::string& err_file);
  ~Child() { kill_and_reap(); }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  const std::string& name() const { return name_; }
  pid_t pid() const { return pid_; }
  // False once it has ended (and reaps it).
  bool running();
  // Waits up to `timeout` for it to end by itself; true if it did.
  bool wait_for(Duration timeout);
  void signal(int sig);
  // SIGTERM, `grace` to end, then SIGKILL.
  void stop(Duration grace);
  void kill_and_reap();
  bool exited_ok() const;
  int exit_code() const;  // -1 unless it exited normally
  // "exited with code 3" / "was killed by signal 9 (Killed)", and the last line of its stderr.
  std::string how_it_ended() const;
  // name, pid, how it ended, its stderr file and, once reaped, the CPU time it used
  // (cpu_user_s, cpu_system_s: how much of the host the instrument itself took).
  nlohmann::json to_json() const;

 private:
  std::string name_;
  std::string err_file_;
  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  rusage usage_{};  // of the process and its waited-for children, once reaped (wait4)
};

// Runs a command to completion (at most a minute), output discarded; its exit code, or -1.
int run_command(const std::vector<std::string>& argv);

// "signal 9 (Killed)".
std::string signal_text(int sig);

}  // namespace gw
