// What `gradwall compare` and the report builder read (reports/): result.json through
// read_result, and report.json through comparable_metrics and compare (a report against
// itself has no regression).
#include "reports/compare.h"
#include "reports/result_input.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gw;
  fuzz::expect_refusal_or_success([&] {
    const nlohmann::json doc = parse_json_strict(fuzz::text_of(data, size), "fuzz.json");
    fuzz::expect_refusal_or_success([&] { (void)reports::read_result(doc, "fuzz.json"); });
    (void)reports::comparable_metrics(doc, "fuzz.json");
    const reports::Comparison c = reports::compare(doc, doc, 10);
    fuzz::require(!c.any_regression);
  });
  return 0;
}
