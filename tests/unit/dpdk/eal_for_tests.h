// The DPDK EAL for the unit tests that need one. DPDK allows one EAL per process, so every
// such test suite shares it: the first to ask starts it, and it is cleaned up (its runtime
// directory under /var/run/dpdk removed) when the test process exits. Arguments: no hugepages
// and no shared config (CI has neither), a file prefix of this process's own (test processes
// run in parallel under ctest -j), one lcore, errors only.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "emulator/dpdk/eal.h"

namespace gw {

// Why a test is skipped when start_eal_for_tests() is false.
inline constexpr const char* kEalNeedsRoot = "needs root (DPDK EAL); CI runs it as root";

// True when the EAL runs (started now or by an earlier call); false without root, where the
// caller skips. Throws EnvironmentError (emulator/dpdk/eal.h) when the EAL does not start.
inline bool start_eal_for_tests() {
  if (geteuid() != 0) {
    return false;
  }
  class TestEal {
   public:
    TestEal()
        : prefix_("gw-unit-" + std::to_string(getpid())),
          eal_(std::make_unique<Eal>(std::vector<std::string>{"--no-huge", "-m", "128", "--no-pci",
                                                              "--no-shconf", "--file-prefix=" + prefix_, "-l",
                                                              "0", "--log-level=error"})) {}
    ~TestEal() {
      eal_.reset();
      std::error_code ec;
      std::filesystem::remove_all("/var/run/dpdk/" + prefix_, ec);
    }
    TestEal(const TestEal&) = delete;
    TestEal& operator=(const TestEal&) = delete;

   private:
    std::string prefix_;
    std::unique_ptr<Eal> eal_;
  };
  static const TestEal eal;
  return true;
}

}  // namespace gw
