// tc-netem argument strings (emulator/engine/netem.h). Whatever is accepted and prints as a
// command (NetemForm::kCommand) with nothing left out must read back to the same command:
// the round trip `profile to-netem --command` promises.
#include "emulator/engine/netem.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gw;
  if (size > 4096) {
    return 0;  // a netem line; longer ones only repeat keywords
  }
  fuzz::expect_refusal_or_success([&] {
    const NetemResult r = netem_to_direction(split_args(fuzz::text_of(data, size)));
    std::vector<std::string> lost;
    const std::string command = direction_to_netem(r.dir, lost, {NetemForm::kCommand, r.seed});
    if (!lost.empty()) {
      return;  // said what netem cannot hold; the rest is not a round trip
    }
    const NetemResult again = netem_to_direction(split_args(command));
    std::vector<std::string> lost_again;
    fuzz::require(direction_to_netem(again.dir, lost_again, {NetemForm::kCommand, again.seed}) == command);
  });
  return 0;
}
