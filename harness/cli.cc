#include "harness/cli.h"

#include <iostream>

namespace gw {

int cli_main(int /*argc*/, char** /*argv*/) {
  std::cout << "gradwall\n";
  return kExitOk;
}

}  // namespace gw
