// Profiles as JSON text (emulator/engine/profile.h): parse_json_strict, then parse_profile,
// then building both directions' engines from what was accepted.
#include "emulator/engine/engine.h"
#include "emulator/engine/profile.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gw;
  fuzz::expect_refusal_or_success([&] {
    const nlohmann::json doc = parse_json_strict(fuzz::text_of(data, size), "fuzz.json");
    const Profile p = parse_profile(doc, "fuzz.json");
    DirectionEngine a(p, Direction::kAToB);
    DirectionEngine b(p, Direction::kBToA);
  });
  return 0;
}
