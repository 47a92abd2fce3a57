#include "harness/live/hostpace/host_pacer.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "core/errors.h"
#include "harness/live/live_process.h"

namespace gw::hostpace {

namespace {

// Runs a tc command to completion (at most 10 s) as a Child (live_process.h), its stderr kept
// in `err`; the exit code, -1 when it did not exit by itself.
int run_tc(const std::vector<std::string>& argv, std::string& err) {
  char path[] = "/tmp/gw-tc-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) {
    err = std::strerror(errno);
    return -1;
  }
  close(fd);
  int rc = -1;
  {
    Child c("tc", argv, "/dev/null", path);
    c.wait_for(Duration{10'000'000'000});
    c.kill_and_reap();
    rc = c.exit_code();
  }
  std::ifstream in(path);
  err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  unlink(path);
  while (!err.empty() && (err.back() == '\n' || err.back() == ' '))
    err.pop_back();
  return rc;
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
  // In a network namespace of its own (unshare(1)), so nothing of the host changes.
  const int rc = run_tc({"unshare", "--net", "tc", "qdisc", "add", "dev", "lo", "root", "fq"}, err);
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
  if (run_tc({"tc", "qdisc", "replace", "dev", ifname, "root", "fq"}, err) != 0) {
    throw EnvironmentError("host pacer fq: `tc qdisc replace dev " + ifname + " root fq` failed: " + err);
  }
}

}  // namespace gw::hostpace
