// The earliest-departure-time host pacer (`--host-pacer edt-bpf`, docs/guide/host-pacing.md):
// loads gradwall's tc-BPF program (edt.bpf.c, built into the binary), attaches it to an
// interface's egress, and is the controller's handle on its maps: a rate per flow or queue pair,
// the CE threshold and horizon, the counters. Needs CAP_BPF and CAP_NET_ADMIN (root).
//
//   EdtPacer p(EdtConfig{.ce_threshold = 5ms, .horizon = 100ms});
//   p.attach("veth0");                      // tc egress, until p is destroyed
//   p.set_rate(EdtFlowKey::tcp(src, dst), 400'000'000);
//   EdtStats s = p.stats();
//
// The departure times take effect where the interface's qdisc honours them (fq); the marks
// and drops need no qdisc. test_run() runs the program on one frame through the kernel's
// BPF_PROG_TEST_RUN, with no interface, which is how tests/unit checks it.
#pragma once

#include <netinet/in.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/time.h"
#include "harness/live/hostpace/edt_maps.h"

struct bpf_object;

namespace gw::hostpace {

struct EdtConfig {
  std::uint64_t default_rate_bps = 0;  // flows with no rate of their own; 0: not paced
  Duration ce_threshold{0};            // ECT frames departing this far ahead are marked CE; 0: never
  Duration horizon{0};                 // frames that would depart this far ahead are dropped; 0: never
};

// A flow as the program keys it (edt_maps.h). Addresses and ports in host order here.
struct EdtFlowKey {
  gw_edt_key key{};
  static EdtFlowKey ipv4(std::uint8_t proto, in_addr_t src, std::uint16_t sport, in_addr_t dst,
                         std::uint16_t dport);
  // A RoCEv2 queue pair: frames to UDP port 4791 from src to dst with BTH destination QP `qp`.
  static EdtFlowKey roce_v4(in_addr_t src, in_addr_t dst, std::uint32_t qp);
  // The flow of a connected socket (TCP or UDP, IPv4), from getsockname / getpeername.
  static EdtFlowKey of_socket(int fd);
};

struct EdtStats {
  std::array<std::uint64_t, GW_EDT_COUNTERS> counter{};
  std::uint64_t operator[](gw_edt_counter c) const { return counter[c]; }
};

// The program's verdict on one frame (test_run).
struct EdtVerdict {
  int action = 0;                   // TC_ACT_OK (0) or TC_ACT_SHOT (2)
  std::uint64_t tstamp = 0;         // skb->tstamp after the program, CLOCK_MONOTONIC ns
  std::vector<std::uint8_t> frame;  // the frame after the program (CE marks)
};

class EdtPacer {
 public:
  // Loads the program and its maps. Throws EnvironmentError (core/errors.h) with the kernel's
  // reason when it cannot (no CAP_BPF, a kernel without BPF).
  explicit EdtPacer(const EdtConfig& config);
  ~EdtPacer();
  EdtPacer(const EdtPacer&) = delete;
  EdtPacer& operator=(const EdtPacer&) = delete;

  // Attaches to `ifname`'s egress (a clsact qdisc, made when missing and removed again on
  // destruction). Throws EnvironmentError naming the interface when it cannot.
  void attach(const std::string& ifname);
  void configure(const EdtConfig& config);
  // The flow's rate (bit/s; 0: not paced, overriding the default); clear_rate: the default.
  void set_rate(const EdtFlowKey& flow, std::uint64_t bps);
  void clear_rate(const EdtFlowKey& flow);
  EdtStats stats() const;

  // Runs the program once on `frame` (from the Ethernet header), given skb->tstamp `tstamp`,
  // through BPF_PROG_TEST_RUN. Throws EnvironmentError when the kernel refuses.
  EdtVerdict test_run(std::span<const std::uint8_t> frame, std::uint64_t tstamp = 0) const;

 private:
  bpf_object* obj_ = nullptr;
  int prog_fd_ = -1;
  int rates_fd_ = -1;
  int config_fd_ = -1;
  int stats_fd_ = -1;
  int ifindex_ = 0;
  bool made_clsact_ = false;
};

}  // namespace gw::hostpace
