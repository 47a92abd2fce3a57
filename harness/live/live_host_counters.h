// What the hosts of the namespace bench count along the path of a live run's datagrams, so
// that every datagram an endpoint handed to its socket is accounted for (live_runner.cc):
//
//   endpoint A --UDP socket--> gw-a0 ==veth==> gw-a-emu --af_packet rx ring--> gradwall emu
//   gradwall emu --af_packet tx--> gw-b-emu ==veth==> gw-b0 --UDP socket--> endpoint B
//
// Where datagrams can vanish without the endpoints or the emulator counting them:
//  - the sending host: a datagram the socket accepted but the device queue refused
//    (ENOBUFS, reported as success unless IP_RECVERR) is in the namespace's UdpSndbufErrors
//    and missing from its UdpOutDatagrams;
//  - the emulator's af_packet rx ring: when it is full the kernel drops the frame and DPDK's
//    af_packet PMD does not report it (imissed stays 0, docs/bench-machine.md); the veth still counted it,
//    so it is the veth's rx packets minus the port's ipackets;
//  - the veths' own drops (rx_dropped / tx_dropped: the receiving CPU's backlog was full);
//  - the receiving host: no socket (the endpoint had closed it: datagrams in flight at the
//    end) or a full receive buffer (also counted by the endpoint with SO_RXQ_OVFL).
// Counters are read from /proc/net/snmp and sysfs of each namespace (`ip netns exec`) and of
// the root namespace before the emulator starts and after it has stopped.
#pragma once

#include <array>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/run/sim_result.h"

namespace gw {

// One reading: {"a": {"udp": {InDatagrams, NoPorts, ...}, "link": {rx_packets, ...},
// "emu_side_link": {...}}, "b": {...}, "softnet_dropped": N}. Sides whose namespace does not
// exist have empty objects.
nlohmann::json read_host_counters();

// after - before, field by field (numbers only; missing fields count as 0).
nlohmann::json host_counter_delta(const nlohmann::json& before, const nlohmann::json& after);

// Adds what the hosts dropped (from `delta`, a host_counter_delta) to `accounting.dropped`:
// "host a/not_transmitted", "emu a->b/rx_ring_overflow", "host b/veth_dropped",
// "host b/after_endpoint_closed" (the veth drops and the ring overflow only as far as the
// datagrams are otherwise unaccounted for: they count frames, not only datagrams). `stats` are the endpoints'
// last stats messages (their datagrams_sent), `emu_stats` the emulator's --stats-json (its ports' ipackets);
// `regions` name the sides.
void add_host_drops(const nlohmann::json& delta, const std::array<nlohmann::json, 2>& stats,
                    const nlohmann::json& emu_stats, const std::array<std::string, 2>& regions,
                    Accounting& accounting);

}  // namespace gw
