#include "emulator/dpdk/eal.h"

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include <cstring>

#include "core/errors.h"

namespace gw {

Eal::Eal(const std::vector<std::string>& args) : args_(args) {
  args_.insert(args_.begin(), "gradwall");
  for (std::string& a : args_) {
    argv_.push_back(a.data());
  }
  argv_.push_back(nullptr);
  if (rte_eal_init(static_cast<int>(argv_.size() - 1), argv_.data()) < 0) {
    const int e = rte_errno;
    std::string hint;
    switch (e) {
      case EALREADY:
        hint = "the EAL was already initialised in this process";
        break;
      case ENOMEM:
        hint = "no memory: without hugepages pass --no-huge -m MiB (e.g. -m 512)";
        break;
      case EACCES:
        hint = "permission denied: DPDK needs root (or the capabilities for its devices)";
        break;
      default:
        hint =
            "check the EAL arguments after `--` (its log above says which); on a machine without "
            "hugepages use --no-huge -m 512 --file-prefix=NAME (a name no other DPDK process uses)";
        break;
    }
    throw EnvironmentError("DPDK EAL initialisation failed (" + std::string(rte_strerror(e)) + "): " + hint);
  }
}

Eal::~Eal() {
  rte_eal_cleanup();
}

unsigned main_lcore() {
  return rte_get_main_lcore();
}

std::vector<unsigned> worker_lcores() {
  std::vector<unsigned> ids;
  for (unsigned id = rte_get_next_lcore(static_cast<unsigned>(-1), 1, 0); id < RTE_MAX_LCORE;
       id = rte_get_next_lcore(id, 1, 0)) {
    ids.push_back(id);
  }
  return ids;
}

}  // namespace gw
