#include "harness/live/hostpace/host_pacer.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "core/errors.h"

namespace gw::hostpace {

namespace {

// Runs `argv` (after unshare(CLONE_NEWNET) when `own_netns`), its stderr kept; the exit code.
int run_tc(const std::vector<std::string>& argv, bool own_netns, std::string& err) {
  int pipe_fd[2];
  if (pipe2(pipe_fd, O_CLOEXEC) != 0) {
    err = std::strerror(errno);
    return -1;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    err = std::strerror(errno);
    close(pipe_fd[0]);
    close(pipe_fd[1]);
    return -1;
  }
  if (pid == 0) {
    dup2(pipe_fd[1], STDERR_FILENO);
    dup2(pipe_fd[1], STDOUT_FILENO);
    if (own_netns && unshare(CLONE_NEWNET) != 0) {
      const std::string why = std::string("unshare(CLONE_NEWNET): ") + std::strerror(errno) + "\n";
      (void)!write(STDERR_FILENO, why.data(), why.size());
      _exit(126);
    }
    std::vector<char*> args;
    for (const std::string& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    const std::string why = "cannot run " + argv[0] + ": " + std::strerror(errno) + "\n";
    (void)!write(STDERR_FILENO, why.data(), why.size());
    _exit(127);
  }
  close(pipe_fd[1]);
  char buf[512];
  for (ssize_t n; (n = read(pipe_fd[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR);) {
    if (n > 0 && err.size() < 4096)
      err.append(buf, static_cast<std::size_t>(n));
  }
  close(pipe_fd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  while (!err.empty() && (err.back() == '\n' || err.back() == ' '))
    err.pop_back();
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

std::optional<HostPacerMode> host_pacer_mode(const std::string& name) {
  if (name == "user")
    return HostPacerMode::user;
  if (name == "fq")
    return HostPacerMode::fq;
  if (name == "edt-bpf")
    return HostPacerMode::edt_bpf;
  return std::nullopt;
}

std::string host_pacer_name(HostPacerMode mode) {
  switch (mode) {
    case HostPacerMode::user:
      return "user";
    case HostPacerMode::fq:
      return "fq";
    case HostPacerMode::edt_bpf:
      return "edt-bpf";
  }
  return "user";
}

bool kernel_has_fq(std::string& why) {
  std::string err;
  const int rc = run_tc({"tc", "qdisc", "add", "dev", "lo", "root", "fq"}, true, err);
  if (rc == 0)
    return true;
  why = "the kernel cannot attach the fq qdisc (`tc qdisc add ... fq`: " +
        (err.empty() ? "exit " + std::to_string(rc) : err) + ")";
  return false;
}

std::string interface_with_address(const std::string& address) {
  in_addr want{};
  if (inet_pton(AF_INET, address.c_str(), &want) != 1) {
    throw EnvironmentError("host pacer: not an IPv4 address: " + address);
  }
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0)
    throw EnvironmentError("host pacer: getifaddrs: " + std::string(std::strerror(errno)));
  std::string found;
  for (const ifaddrs* i = list; i != nullptr && found.empty(); i = i->ifa_next) {
    if (i->ifa_addr != nullptr && i->ifa_addr->sa_family == AF_INET &&
        reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr == want.s_addr) {
      found = i->ifa_name;
    }
  }
  freeifaddrs(list);
  if (found.empty())
    throw EnvironmentError("host pacer: no interface here has address " + address);
  return found;
}

void install_fq(const std::string& ifname) {
  std::string err;
  if (run_tc({"tc", "qdisc", "replace", "dev", ifname, "root", "fq"}, false, err) != 0) {
    throw EnvironmentError("host pacer fq: `tc qdisc replace dev " + ifname + " root fq` failed: " + err);
  }
}

}  // namespace gw::hostpace
