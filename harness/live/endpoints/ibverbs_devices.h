// RDMA devices as libibverbs (rdma-core) sees them: the probe behind `gradwall endpoint --io
// ibverbs --list-devices` and the check that an ibverbs endpoint makes before anything else.
// A host without RDMA devices (no NIC with RDMA, no soft-RoCE rdma_rxe or siw bound to a
// netdev) gets a clear EnvironmentError instead of an obscure verbs failure later.
//
// The verbs data path (RC queue pairs carrying the collective's messages as RDMA WRITE with
// immediate, the NIC's own congestion control) is not here yet: no machine this project runs
// on has an RDMA device to exercise it (docs/guide/live.md "Endpoints: udp, dpdk, ibverbs").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gw::endpoints {

struct IbvGidEntry {
  std::uint32_t index = 0;
  std::string gid;     // IPv6 text form (a RoCEv2 GID of an IPv4 address is ::ffff:a.b.c.d)
  std::string type;    // "IB", "RoCE v1" or "RoCE v2"
  std::string netdev;  // the network interface the GID belongs to (RoCE), "" when none
};

struct IbvPortInfo {
  std::uint32_t port = 0;
  std::string state;       // "active", "down", ...
  std::string link_layer;  // "InfiniBand" or "Ethernet"
  std::uint32_t active_mtu_bytes = 0;
  std::vector<IbvGidEntry> gids;
};

struct IbvDeviceInfo {
  std::string name;  // e.g. mlx5_0, rxe0
  std::string node_guid;
  std::string transport;  // "InfiniBand" (also RoCE), "iWARP", ...
  std::vector<IbvPortInfo> ports;
  std::string error;  // when the device could not be opened or queried: why
};

// Every device ibv_get_device_list() reports, with its ports and GID tables. Throws
// EnvironmentError when libibverbs itself fails (not for zero devices: an empty list).
std::vector<IbvDeviceInfo> list_ibverbs_devices();

// What to tell a user when the list is empty: names the call and what to do.
std::string no_rdma_devices_message();

// The GID index of the first RoCE v2 entry for `ipv4` (dotted quad) on any active port of
// `device`, -1 when there is none. What an RC queue pair over RoCEv2 would be given.
int roce_v2_gid_index(const IbvDeviceInfo& device, std::uint32_t port, const std::string& ipv4);

}  // namespace gw::endpoints
