#include "harness/live/endpoints/ibverbs_devices.h"

#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <net/if.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <memory>

#include "core/errors.h"

namespace gw::endpoints {

namespace {

std::string gid_text(const ibv_gid& gid) {
  std::array<char, INET6_ADDRSTRLEN> text{};
  inet_ntop(AF_INET6, gid.raw, text.data(), text.size());
  return text.data();
}

std::string gid_type_name(std::uint32_t type) {
  switch (type) {
    case IBV_GID_TYPE_IB:
      return "IB";
    case IBV_GID_TYPE_ROCE_V1:
      return "RoCE v1";
    case IBV_GID_TYPE_ROCE_V2:
      return "RoCE v2";
    default:
      return "type " + std::to_string(type);
  }
}

std::string link_layer_name(std::uint8_t layer) {
  switch (layer) {
    case IBV_LINK_LAYER_INFINIBAND:
    case IBV_LINK_LAYER_UNSPECIFIED:  // old kernels: InfiniBand
      return "InfiniBand";
    case IBV_LINK_LAYER_ETHERNET:
      return "Ethernet";
    default:
      return "link layer " + std::to_string(layer);
  }
}

std::uint32_t mtu_bytes(ibv_mtu mtu) {
  switch (mtu) {
    case IBV_MTU_256:
      return 256;
    case IBV_MTU_512:
      return 512;
    case IBV_MTU_1024:
      return 1024;
    case IBV_MTU_2048:
      return 2048;
    case IBV_MTU_4096:
      return 4096;
  }
  return 0;
}

std::string hex64(std::uint64_t big_endian) {
  const std::uint64_t v = be64toh(big_endian);
  std::array<char, 20> text{};
  std::snprintf(text.data(), text.size(), "%016llx", static_cast<unsigned long long>(v));
  return text.data();
}

struct DeviceList {
  ibv_device** list = nullptr;
  ~DeviceList() {
    if (list != nullptr) {
      ibv_free_device_list(list);
    }
  }
};

struct Context {
  ibv_context* ctx = nullptr;
  ~Context() {
    if (ctx != nullptr) {
      ibv_close_device(ctx);
    }
  }
};

IbvPortInfo port_info(ibv_context* ctx, std::uint32_t port, const ibv_port_attr& attr) {
  IbvPortInfo p;
  p.port = port;
  p.state = ibv_port_state_str(attr.state);
  p.link_layer = link_layer_name(attr.link_layer);
  p.active_mtu_bytes = mtu_bytes(attr.active_mtu);
  for (int i = 0; i < attr.gid_tbl_len; ++i) {
    ibv_gid_entry e{};
    if (ibv_query_gid_ex(ctx, port, static_cast<std::uint32_t>(i), &e, 0) != 0) {
      continue;  // an empty slot (ENODATA) or a kernel without the GID-table API
    }
    IbvGidEntry g;
    g.index = e.gid_index;
    g.gid = gid_text(e.gid);
    g.type = gid_type_name(e.gid_type);
    if (e.ndev_ifindex != 0) {
      std::array<char, IF_NAMESIZE> name{};
      if (if_indextoname(e.ndev_ifindex, name.data()) != nullptr) {
        g.netdev = name.data();
      }
    }
    p.gids.push_back(g);
  }
  return p;
}

}  // namespace

std::vector<IbvDeviceInfo> list_ibverbs_devices() {
  int count = 0;
  errno = 0;
  DeviceList devices{ibv_get_device_list(&count)};
  if (devices.list == nullptr) {
    // ENOSYS: the kernel has no uverbs support at all; that is "no devices" too.
    if (errno == ENOSYS || errno == 0) {
      return {};
    }
    throw EnvironmentError("ibv_get_device_list failed: " + std::string(std::strerror(errno)));
  }
  std::vector<IbvDeviceInfo> out;
  for (int d = 0; d < count; ++d) {
    ibv_device* dev = devices.list[d];
    IbvDeviceInfo info;
    info.name = ibv_get_device_name(dev);
    info.node_guid = hex64(ibv_get_device_guid(dev));
    info.transport = dev->transport_type == IBV_TRANSPORT_IWARP ? "iWARP"
                     : dev->transport_type == IBV_TRANSPORT_IB  ? "InfiniBand"
                                                                : "other";
    Context c{ibv_open_device(dev)};
    if (c.ctx == nullptr) {
      info.error = "ibv_open_device: " + std::string(std::strerror(errno));
      out.push_back(info);
      continue;
    }
    ibv_device_attr attr{};
    if (const int rc = ibv_query_device(c.ctx, &attr); rc != 0) {
      info.error = "ibv_query_device: " + std::string(std::strerror(rc));
      out.push_back(info);
      continue;
    }
    for (std::uint32_t port = 1; port <= attr.phys_port_cnt; ++port) {
      ibv_port_attr pattr{};
      if (ibv_query_port(c.ctx, static_cast<std::uint8_t>(port), &pattr) != 0) {
        continue;
      }
      info.ports.push_back(port_info(c.ctx, port, pattr));
    }
    out.push_back(info);
  }
  return out;
}

std::string no_rdma_devices_message() {
  return "no RDMA devices: ibv_get_device_list found 0 (load rdma_rxe or siw, or use a host with an RDMA "
         "NIC)";
}

int roce_v2_gid_index(const IbvDeviceInfo& device, std::uint32_t port, const std::string& ipv4) {
  const std::string want = "::ffff:" + ipv4;
  for (const IbvPortInfo& p : device.ports) {
    if (p.port != port) {
      continue;
    }
    for (const IbvGidEntry& g : p.gids) {
      if (g.type == "RoCE v2" && g.gid == want) {
        return static_cast<int>(g.index);
      }
    }
  }
  return -1;
}

}  // namespace gw::endpoints
