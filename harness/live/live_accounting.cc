#include "harness/live/live_accounting.h"

#include <algorithm>
#include <fstream>

#include "harness/live/live_host_counters.h"

namespace gw {

namespace fs = std::filesystem;

namespace {

// The accounting's cause for datagrams lost with an emulator that died mid-run: held in its
// queues and rings when it died, or sent to its ports while none was running. A dead emulator's
// last counts are up to a second old, so what it dropped in its last second is in here too.
constexpr const char* kLostWithEmulator = "emu/lost_when_emulator_died";

}  // namespace

// A histogram from endpoints' microsecond bins ([[us, count], ...]), each value at the middle
// of its microsecond.
LogHistogram histogram_of(const std::array<nlohmann::json, 2>& stats, const char* key) {
  LogHistogram h;
  for (const nlohmann::json& s : stats) {
    if (!s.is_object() || !s.contains(key)) {
      continue;
    }
    for (const nlohmann::json& bin : s.at(key)) {
      const auto us = bin.at(0).get<std::int64_t>();
      const auto n = bin.at(1).get<std::uint64_t>();
      for (std::uint64_t k = 0; k < n; ++k) {
        h.record(us * 1000 + 500);
      }
    }
  }
  return h;
}

nlohmann::json percentiles_of(const Percentiles& p) {
  return {{"count", p.count}, {"mean", p.mean}, {"min", p.min},   {"p50", p.p50},
          {"p90", p.p90},     {"p99", p.p99},   {"p999", p.p999}, {"max", p.max}};
}

namespace {

// The endpoints' counters: datagrams sent and received (what the host refused or overflowed
// booked as its drops) and the sending queue pairs' transport counters.
void add_endpoint_counters(const std::array<nlohmann::json, 2>& stats, SimResult& r) {
  for (const nlohmann::json& s : stats) {
    if (s.is_null()) {
      continue;
    }
    const nlohmann::json& c = s.at("counters");
    r.accounting.packets_sent += c.value("datagrams_sent", std::uint64_t{0});
    r.accounting.packets_received += c.value("datagrams_received", std::uint64_t{0});
    if (const auto n = c.value("send_dropped", std::uint64_t{0}); n > 0) {
      r.accounting.dropped["host/send_refused"] += n;
      r.accounting.packets_sent += n;  // handed to the host, which dropped them
    }
    if (const auto n = c.value("socket_overflow", std::uint64_t{0}); n > 0) {
      r.accounting.dropped["host/socket_overflow"] += n;
    }
    for (const nlohmann::json& q : s.at("qps")) {
      if (q.value("sending", false)) {
        const nlohmann::json& st = q.at("stats");
        r.transport.packets_sent += st.value("data_packets_sent", std::uint64_t{0});
        r.transport.retransmits += st.value("retransmitted_packets", std::uint64_t{0});
        r.transport.packets_sent += st.value("tcpi_data_segs_out", std::uint64_t{0});  // TCP_INFO
        r.transport.retransmits += st.value("tcpi_total_retrans", std::uint64_t{0});
        r.transport.timeouts += st.value("timeouts", std::uint64_t{0});
      }
    }
  }
  r.one_way_delay_ns = histogram_of(stats, "one_way_delay_us").summary();
}

// One hop per direction of the emulator, its drops booked in the accounting unless `tcp`.
void add_emulator_hops(const nlohmann::json& emu_stats, const std::array<std::string, 2>& regions, bool tcp,
                       SimResult& r) {
  for (const auto& [dir, label] : {std::pair{"a_to_b", 0}, std::pair{"b_to_a", 1}}) {
    if (!emu_stats.contains(dir)) {
      continue;
    }
    const nlohmann::json& d = emu_stats.at(dir);
    HopResult h;
    h.name = "emu " + regions[static_cast<std::size_t>(label)] + "->" +
             regions[static_cast<std::size_t>(1 - label)];
    h.wan = true;
    h.packets_in = d.value("received", std::uint64_t{0});
    h.delivered = d.value("sent", std::uint64_t{0});
    h.marked_ce = d.value("marked_ce", std::uint64_t{0});
    h.corrupted = d.value("corrupted", std::uint64_t{0});
    h.duplicated = d.value("duplicates", std::uint64_t{0});
    if (d.contains("dropped") && d.at("dropped").is_object()) {
      for (const auto& [cause, n] : d.at("dropped").items()) {
        const auto v = n.get<std::uint64_t>();
        if (v > 0) {
          h.dropped[cause] = v;
          if (!tcp) {
            r.accounting.dropped[h.name + "/" + cause] += v;
          }
        }
      }
    }
    r.accounting.duplicates_made += h.duplicated;
    r.hops.push_back(std::move(h));
  }
}

// Frames that are not datagrams of the run (ARP, IPv6 neighbour discovery, the start-up ping)
// cross the emulator too, and its loss and queues drop them like any other: booked as the
// run's, those drops would exceed what went missing (measured: 31 drops booked for 30 datagrams
// lost, one an ARP frame). So the emulator's drops are capped by what is otherwise unaccounted
// for, as the veths' are (live_host_counters.h); its own counts stay in the hops. Returns the
// drops booked.
std::uint64_t cap_emulator_drops(Accounting& a) {
  std::uint64_t dropped = 0;
  for (const auto& [cause, n] : a.dropped) {
    dropped += n;
  }
  const std::uint64_t in = a.packets_sent + a.duplicates_made;
  if (const std::uint64_t booked = a.packets_received + dropped; booked > in) {
    std::uint64_t excess = booked - in;
    for (auto& [cause, n] : a.dropped) {
      if (excess > 0 && cause.rfind("emu ", 0) == 0) {
        const std::uint64_t k = std::min(n, excess);
        n -= k;
        excess -= k;
        dropped -= k;
      }
    }
    std::erase_if(a.dropped, [](const auto& e) { return e.second == 0; });
  }
  return dropped;
}

}  // namespace

// `tcp`: kernel TCP endpoints. They send no datagrams of their own and TCP retransmits what
// the emulator drops, so drops are shown per hop but not booked in the datagram accounting
// (which stays 0 = 0); the bytes are balanced instead (live.tcp, tcp_bytes_balanced).
// `emulator_died`: an emulator ended without its final counts (killed, or restarted mid-run):
// what is otherwise unaccounted for was lost with it (kLostWithEmulator) rather than in flight.
void fill_counters(const std::array<nlohmann::json, 2>& stats, const nlohmann::json& emu_stats,
                   const nlohmann::json& host_delta, const std::array<std::string, 2>& regions, bool tcp,
                   bool host_counters, bool emulator_died, SimResult& r) {
  add_endpoint_counters(stats, r);
  add_emulator_hops(emu_stats, regions, tcp, r);
  // What the hosts dropped on the way (live_host_counters.h); what is left neither arrived
  // nor was dropped anywhere we can see: in flight when the endpoints and the emulator stopped.
  if (!tcp && host_counters) {
    add_host_drops(host_delta, stats, emu_stats, regions, r.accounting);
  }
  const std::uint64_t dropped = cap_emulator_drops(r.accounting);
  const std::uint64_t in = r.accounting.packets_sent + r.accounting.duplicates_made;
  const std::uint64_t out = r.accounting.packets_received + dropped;
  const std::uint64_t rest = in > out ? in - out : 0;
  if (emulator_died && !tcp && rest > 0) {
    r.accounting.dropped[kLostWithEmulator] += rest;
  } else {
    r.accounting.in_flight_at_end = rest;
  }
}

// The emulator's counts over all its lifetimes (one --stats-json file each, the first
// emu-stats.json): one that died left its last periodic write (at most a second old), one that
// stopped its final counts. With more than one lifetime the directions' counters are summed,
// the rest is the last one's; "ports" (driver counters) are left out, as a dead emulator's are
// unknown, and "lifetimes" holds each file as it was.
nlohmann::json emulator_stats(const std::vector<fs::path>& files) {
  std::vector<nlohmann::json> lives;
  for (const fs::path& f : files) {
    nlohmann::json j;
    if (std::ifstream in(f); in) {
      try {
        in >> j;
      } catch (const nlohmann::json::exception&) {
        j = nullptr;
      }
    }
    lives.push_back(std::move(j));
  }
  if (lives.size() == 1) {
    return lives.front();
  }
  nlohmann::json out = lives.back().is_object() ? lives.back() : nlohmann::json::object();
  out.erase("ports");
  for (const char* dir : {"a_to_b", "b_to_a"}) {
    nlohmann::json sum = nlohmann::json::object();
    for (const nlohmann::json& life : lives) {
      if (!life.is_object() || !life.contains(dir) || !life.at(dir).is_object()) {
        continue;
      }
      const nlohmann::json& d = life.at(dir);
      for (const char* key : {"received", "received_bytes", "duplicates", "sent", "sent_bytes",
                              "dropped_total", "marked_ce", "corrupted"}) {
        if (d.contains(key) && d.at(key).is_number_unsigned()) {
          sum[key] = sum.value(key, std::uint64_t{0}) + d.at(key).get<std::uint64_t>();
        }
      }
      if (d.contains("dropped") && d.at("dropped").is_object()) {
        nlohmann::json& dropped = sum["dropped"];
        if (!dropped.is_object()) {
          dropped = nlohmann::json::object();
        }
        for (const auto& [cause, n] : d.at("dropped").items()) {
          if (n.is_number_unsigned()) {
            dropped[cause] = dropped.value(cause, std::uint64_t{0}) + n.get<std::uint64_t>();
          }
        }
      }
    }
    if (!sum.empty()) {
      out[dir].update(sum);
    }
  }
  out["lifetimes"] = lives;
  return out;
}

}  // namespace gw
