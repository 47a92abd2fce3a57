// Where a live run's two sides are (live_runner.h): the namespace bench (ci/bench-netns), or
// `--ports IF_A,IF_B`: two interfaces of this host that the emulator forwards between, with
// the endpoints in the network namespaces given by `--endpoint-netns NS_A,NS_B` (the far ends
// of the links on those ports; docs/guide/live.md "Your own ports").
#pragma once

#include <array>
#include <string>

namespace gw {

struct LiveSide {
  std::string netns;    // where the side's endpoint runs (ip netns exec)
  std::string address;  // its IPv4 address there
  std::string port;     // the emulator's interface toward it (root namespace, af_packet)
};

// gw-a (198.18.0.1) behind gw-a-emu, gw-b (198.18.0.2) behind gw-b-emu.
std::array<LiveSide, 2> netns_bench_sides();

// The sides of `--ports` / `--endpoint-netns`. Throws InputError (exit 2) for an interface
// that is not in this (the root) network namespace, the same interface twice, a loopback
// interface or a namespace that does not exist; EnvironmentError (exit 3) when a namespace
// has not exactly one global IPv4 address (the endpoint binds it).
std::array<LiveSide, 2> port_sides(const std::array<std::string, 2>& ports,
                                   const std::array<std::string, 2>& netns);

}  // namespace gw
