// Host pacing for the live endpoints (`gradwall run --mode live --host-pacer MODE`,
// docs/guide/host-pacing.md): who holds a sending host's frames until their time.
//   user     the sender's own pacing: gradwall's queue pairs time each segment; kernel TCP
//            paces itself (SO_MAX_PACING_RATE, TCP's internal pacing). Needs nothing.
//   fq       the fq qdisc on the sending interface (Linux 3.12+; CONFIG_NET_SCH_FQ) holds
//            each frame until its departure time: TCP's pacing and SO_MAX_PACING_RATE.
//   edt-bpf  gradwall's tc-BPF program (edt_pacer.h) stamps each frame's departure time from
//            a per-flow rate the controller writes, marks CE past a backlog threshold and
//            drops past a horizon; fq, where the kernel has it, enforces the times.
#pragma once

#include <optional>
#include <string>

#include "core/time.h"

namespace gw::hostpace {

enum class HostPacerMode { user, fq, edt_bpf };

struct HostPacerOptions {
  HostPacerMode mode = HostPacerMode::user;
  Duration ce_threshold{2'000'000};  // edt-bpf: mark ECT frames this far ahead of now
  Duration horizon{50'000'000};      // edt-bpf: drop frames this far ahead
};

// "user", "fq", "edt-bpf" and back; nullopt for another name.
std::optional<HostPacerMode> host_pacer_mode(const std::string& name);
std::string host_pacer_name(HostPacerMode mode);

// True when this kernel can attach the fq qdisc: it tries, on the loopback of a namespace of
// its own (so nothing of the host changes), and says why not in `why`. Needs root.
bool kernel_has_fq(std::string& why);

// The interface that holds IPv4 address `address` in this network namespace. Throws
// EnvironmentError when none does.
std::string interface_with_address(const std::string& address);

// `tc qdisc replace dev IFNAME root fq`; throws EnvironmentError with tc's reason.
void install_fq(const std::string& ifname);

}  // namespace gw::hostpace
