#include "harness/live/live_ports.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <vector>

#include "core/errors.h"

namespace gw {

namespace {

namespace fs = std::filesystem;

// The global IPv4 addresses of a namespace (`ip -n NS -4 -o addr show scope global`).
std::vector<std::string> ipv4_addresses(const std::string& netns) {
  const std::string cmd = "ip -n '" + netns + "' -4 -o addr show scope global 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
  std::vector<std::string> out;
  if (!p) {
    return out;
  }
  char line[512];
  while (std::fgets(line, sizeof line, p.get()) != nullptr) {
    std::istringstream words(line);
    for (std::string w; words >> w;) {
      if (w == "inet" && words >> w) {
        out.push_back(w.substr(0, w.find('/')));
        break;
      }
    }
  }
  return out;
}

bool safe_name(const std::string& s) {
  if (s.empty() || s.size() > 64) {
    return false;
  }
  for (const char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '@')) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::array<LiveSide, 2> netns_bench_sides() {
  return {LiveSide{"gw-a", "198.18.0.1", "gw-a-emu"}, LiveSide{"gw-b", "198.18.0.2", "gw-b-emu"}};
}

std::array<LiveSide, 2> port_sides(const std::array<std::string, 2>& ports,
                                   const std::array<std::string, 2>& netns) {
  if (ports[0] == ports[1]) {
    throw InputError("--ports", "", "two different interfaces, got \"" + ports[0] + "\" twice");
  }
  std::array<LiveSide, 2> sides;
  for (std::size_t i = 0; i < 2; ++i) {
    const std::string& port = ports[i];
    if (!safe_name(port) || !fs::exists(fs::path("/sys/class/net") / port)) {
      throw InputError("--ports", "",
                       "no interface \"" + port +
                           "\" in this network namespace (the emulator runs in the root namespace; see `ip "
                           "link show`)");
    }
    if (port == "lo") {
      throw InputError("--ports", "", "\"lo\" cannot be an emulator port");
    }
    if (!safe_name(netns[i]) || !fs::exists(fs::path("/run/netns") / netns[i])) {
      throw InputError("--endpoint-netns", "",
                       "no network namespace \"" + netns[i] + "\" (see `ip netns list`)");
    }
    const std::vector<std::string> addrs = ipv4_addresses(netns[i]);
    if (addrs.size() != 1) {
      std::string list;
      for (const std::string& a : addrs) {
        list += (list.empty() ? "" : ", ") + a;
      }
      throw EnvironmentError("live mode: the endpoint of side " + std::string(i == 0 ? "A" : "B") +
                             " binds the one global IPv4 address of namespace " + netns[i] + "; it has " +
                             std::to_string(addrs.size()) + (addrs.empty() ? "" : " (" + list + ")"));
    }
    sides[i] = {netns[i], addrs[0], port};
  }
  return sides;
}

}  // namespace gw
