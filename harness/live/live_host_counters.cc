#include "harness/live/live_host_counters.h"

#include <stdio.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

namespace gw {

namespace {

struct BenchSide {
  const char* label;     // "a", "b": keys of the reading
  const char* netns;     // where the endpoint runs
  const char* dev;       // its interface in there
  const char* emu_side;  // the veth peer in the root namespace (the emulator's port)
  const char* port;      // the emulator's stats key for that port
};
constexpr BenchSide kBench[2] = {{"a", "gw-a", "gw-a0", "gw-a-emu", "a"},
                                 {"b", "gw-b", "gw-b0", "gw-b-emu", "b"}};
constexpr const char* kLinkFields[] = {"rx_packets", "tx_packets", "rx_dropped", "tx_dropped"};

// The standard output of a command (a shell line of our own making), "" when it fails.
std::string output_of(const std::string& command) {
  std::string out;
  FILE* f = popen(command.c_str(), "r");
  if (f == nullptr) {
    return out;
  }
  char buf[4096];
  std::size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
    out.append(buf, n);
  }
  pclose(f);
  return out;
}

// /proc/net/snmp's "Udp:" header and value lines -> {"InDatagrams": N, ...}.
nlohmann::json udp_mib(const std::string& snmp) {
  std::istringstream in(snmp);
  std::string line;
  std::vector<std::string> names;
  nlohmann::json out = nlohmann::json::object();
  while (std::getline(in, line)) {
    if (line.rfind("Udp: ", 0) != 0) {
      continue;
    }
    std::istringstream words(line.substr(5));
    std::string w;
    if (names.empty()) {
      while (words >> w) {
        names.push_back(w);
      }
      continue;
    }
    for (const std::string& name : names) {
      if (!(words >> w)) {
        break;
      }
      try {
        out[name] = std::stoull(w);
      } catch (const std::exception&) {
        out[name] = 0;
      }
    }
    break;
  }
  return out;
}

std::uint64_t read_number(const std::string& path) {
  std::ifstream in(path);
  std::uint64_t v = 0;
  in >> v;
  return v;
}

nlohmann::json root_link(const std::string& dev) {
  nlohmann::json out = nlohmann::json::object();
  for (const char* f : kLinkFields) {
    out[f] = read_number("/sys/class/net/" + dev + "/statistics/" + f);
  }
  return out;
}

// j[a][b][c] (c optional), or nullptr when a key is missing.
const nlohmann::json* at_path(const nlohmann::json& j, const char* a, const char* b, const char* c) {
  const nlohmann::json* p = &j;
  for (const char* k : {a, b, c}) {
    if (k == nullptr) {
      break;
    }
    if (!p->is_object() || !p->contains(k)) {
      return nullptr;
    }
    p = &p->at(k);
  }
  return p;
}

std::uint64_t num(const nlohmann::json& j, const char* a, const char* b, const char* c = nullptr) {
  const nlohmann::json* p = at_path(j, a, b, c);
  return p != nullptr && (p->is_number_unsigned() || p->is_number_integer()) ? p->get<std::uint64_t>() : 0;
}

std::int64_t signed_num(const nlohmann::json& j, const char* a, const char* b, const char* c = nullptr) {
  const nlohmann::json* p = at_path(j, a, b, c);
  return p != nullptr && p->is_number() ? p->get<std::int64_t>() : 0;
}

}  // namespace

nlohmann::json read_host_counters() {
  nlohmann::json out = nlohmann::json::object();
  for (const BenchSide& s : kBench) {
    nlohmann::json side = nlohmann::json::object();
    // One command per namespace: its UDP MIB and its interface's counters (sysfs is the
    // namespace's own under `ip netns exec`).
    std::string cmd = std::string("ip netns exec ") + s.netns + " sh -c 'cat /proc/net/snmp";
    for (const char* f : kLinkFields) {
      cmd += std::string("; echo link ") + f + " $(cat /sys/class/net/" + s.dev + "/statistics/" + f + ")";
    }
    cmd += "' 2>/dev/null";
    const std::string text = output_of(cmd);
    if (!text.empty()) {
      side["udp"] = udp_mib(text);
      nlohmann::json link = nlohmann::json::object();
      std::istringstream in(text);
      std::string line;
      while (std::getline(in, line)) {
        std::istringstream words(line);
        std::string tag;
        std::string name;
        std::uint64_t v = 0;
        if (words >> tag >> name >> v && tag == "link") {
          link[name] = v;
        }
      }
      side["link"] = link;
    }
    side["emu_side_link"] = root_link(s.emu_side);
    out[s.label] = side;
  }
  // Backlog drops of every CPU (/proc/net/softnet_stat, second column, hex): host-wide.
  std::ifstream softnet("/proc/net/softnet_stat");
  std::string line;
  std::uint64_t dropped = 0;
  while (std::getline(softnet, line)) {
    std::istringstream words(line);
    std::string processed;
    std::string drops;
    if (words >> processed >> drops) {
      dropped += std::stoull(drops, nullptr, 16);
    }
  }
  out["softnet_dropped"] = dropped;
  return out;
}

nlohmann::json host_counter_delta(const nlohmann::json& before, const nlohmann::json& after) {
  if (after.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [k, v] : after.items()) {
      out[k] =
          host_counter_delta(before.is_object() && before.contains(k) ? before.at(k) : nlohmann::json(), v);
    }
    return out;
  }
  if (after.is_number()) {
    const auto a = after.get<std::int64_t>();
    const std::int64_t b = before.is_number() ? before.get<std::int64_t>() : 0;
    return a - b;
  }
  return after;
}

void add_host_drops(const nlohmann::json& delta, const std::array<nlohmann::json, 2>& stats,
                    const nlohmann::json& emu_stats, const std::array<std::string, 2>& regions,
                    Accounting& accounting) {
  auto add = [&accounting](const std::string& key, std::int64_t n) {
    if (n > 0) {
      accounting.dropped[key] += static_cast<std::uint64_t>(n);
    }
  };
  for (std::size_t i = 0; i < 2; ++i) {
    const BenchSide& s = kBench[i];
    const std::string host = "host " + regions[i];
    if (!delta.contains(s.label)) {
      continue;
    }
    const nlohmann::json& d = delta.at(s.label);
    // Accepted by the socket (the endpoint counted it sent) but never transmitted. Not for a
    // DPDK endpoint ("io": "dpdk"): its frames bypass the kernel's UDP stack, and what its port
    // refused it counts itself (send_dropped).
    if (stats[i].is_object() && d.contains("udp") &&
        stats[i].value("counters", nlohmann::json::object()).value("io", "udp") == "udp") {
      const auto sent = static_cast<std::int64_t>(num(stats[i], "counters", "datagrams_sent"));
      add(host + "/not_transmitted", sent - signed_num(d, "udp", "OutDatagrams"));
    }
    // Arrived when no socket was bound: after the endpoint closed it (in flight at the end).
    add(host + "/after_endpoint_closed", signed_num(d, "udp", "NoPorts"));
  }
  // The veths' drops and what reached the emulator's veth but not the emulator (its af_packet
  // rx ring was full) are counts of frames, a few of which are not datagrams of the run (ARP,
  // ICMP, IPv6 router solicitations, a ping while a port was down, frames that arrived after the
  // emulator stopped reading), so they are attributed to the datagrams only as far as these are
  // otherwise unaccounted for; the raw counts stay in result.json's live.hosts.
  std::uint64_t accounted = accounting.packets_received;
  for (const auto& [cause, n] : accounting.dropped) {
    accounted += n;
  }
  const std::uint64_t in = accounting.packets_sent + accounting.duplicates_made;
  std::uint64_t unaccounted = in > accounted ? in - accounted : 0;
  auto add_frames = [&](const std::string& key, std::int64_t frames) {
    const std::uint64_t n =
        std::min<std::uint64_t>(frames > 0 ? static_cast<std::uint64_t>(frames) : 0, unaccounted);
    add(key, static_cast<std::int64_t>(n));
    unaccounted -= n;
  };
  for (std::size_t i = 0; i < 2; ++i) {
    const BenchSide& s = kBench[i];
    if (delta.contains(s.label)) {
      const nlohmann::json& d = delta.at(s.label);
      add_frames("host " + regions[i] + "/veth_dropped", signed_num(d, "link", "rx_dropped") +
                                                             signed_num(d, "link", "tx_dropped") +
                                                             signed_num(d, "emu_side_link", "rx_dropped") +
                                                             signed_num(d, "emu_side_link", "tx_dropped"));
    }
  }
  for (std::size_t i = 0; i < 2 && emu_stats.is_object() && emu_stats.contains("ports"); ++i) {
    const BenchSide& s = kBench[i];
    if (!delta.contains(s.label)) {
      continue;
    }
    add_frames("emu " + regions[i] + "->" + regions[1 - i] + "/rx_ring_overflow",
               signed_num(delta.at(s.label), "emu_side_link", "rx_packets") -
                   signed_num(emu_stats, "ports", s.port, "ipackets"));
  }
}

}  // namespace gw
