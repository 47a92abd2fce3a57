// The DPDK Environment Abstraction Layer for the lifetime of one object: the constructor runs
// rte_eal_init with the user's EAL arguments (everything after `--` on the command line), the
// destructor runs rte_eal_cleanup. DPDK allows one EAL per process: make one Eal, first, and
// destroy it last (after every port is closed and every mempool freed).
#pragma once

#include <string>
#include <vector>

namespace gw {

class Eal {
 public:
  // Throws EnvironmentError saying what failed and how to fix it (e.g. no hugepages: use
  // `--no-huge -m MiB`; a file prefix in use: pass a unique `--file-prefix`).
  explicit Eal(const std::vector<std::string>& args);
  ~Eal();
  Eal(const Eal&) = delete;
  Eal& operator=(const Eal&) = delete;

 private:
  // rte_eal_init may reorder argv and keep pointers into it: both live as long as the EAL.
  std::vector<std::string> args_;
  std::vector<char*> argv_;
};

// The worker lcores the EAL was given, in order (`-l 0-2` -> 1, 2); empty when it has only the
// main one.
std::vector<unsigned> worker_lcores();
// The main lcore's id (`-l 2,3` -> 2).
unsigned main_lcore();

}  // namespace gw
