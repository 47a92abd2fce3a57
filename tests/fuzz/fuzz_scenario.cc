// Scenarios as JSON text (harness/run/scenario.h): parse_scenario and the cost estimate made
// before a run (harness/cli/run_cost.h). The run itself is not started: its cost is what the
// estimate bounds.
#include "harness/cli/run_cost.h"
#include "harness/run/scenario.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gw;
  fuzz::expect_refusal_or_success([&] {
    const nlohmann::json doc = parse_json_strict(fuzz::text_of(data, size), "fuzz.json");
    const Scenario s = parse_scenario(doc, "fuzz.json");
    const RunCost c = estimate_cost(s);
    fuzz::require(c.memory_bytes >= 0 && c.cpu_seconds >= 0);
  });
  return 0;
}
