// The control endpoint's HTTP requests (core/http_request.h). The bytes are fed whole and in
// pieces whose lengths come from the input itself: the reader must reach the same state and
// request either way, and never hold more than its limits.
#include "core/http_request.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gw;
  const std::string text = fuzz::text_of(data, size);
  HttpRequestReader whole;
  whole.feed(text);
  HttpRequestReader pieces;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t n = 1 + static_cast<unsigned char>(text[at]) % 7;
    pieces.feed(std::string_view(text).substr(at, n));
    at += n;
  }
  fuzz::require(whole.state() == pieces.state());
  if (whole.state() == HttpRequestReader::State::kDone) {
    const HttpRequest& a = whole.request();
    const HttpRequest& b = pieces.request();
    fuzz::require(a.method == b.method && a.path == b.path && a.authorization == b.authorization &&
                  a.body == b.body);
    fuzz::require(a.body.size() <= HttpRequestReader::kMaxBodyBytes);
  }
  return 0;
}
