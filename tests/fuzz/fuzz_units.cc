// Quantities with units as users write them (core/units.h): rates, times, sizes, percents.
// An exact print of what was read reads back to the same value.
#include "core/units.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gw;
  if (size > 256) {
    return 0;
  }
  const std::string text = fuzz::text_of(data, size);
  if (const auto r = parse_rate(text)) {
    fuzz::require(parse_rate(format_rate_exact(*r)) == r);
  }
  if (const auto t = parse_time64(text)) {
    fuzz::require(parse_time64(format_time_exact(*t)) == t);
  }
  (void)parse_time(text);
  (void)parse_size(text);
  if (const auto p = parse_percent(text)) {
    fuzz::require(*p >= 0 && *p <= 100);
  }
  return 0;
}
