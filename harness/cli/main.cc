#include "harness/cli/cli.h"

int main(int argc, char** argv) {
  return gw::cli_main(argc, argv);
}
