// HttpRequestReader (core/http_request.h): the same request in any split of its bytes, and
// the limits that keep a client from growing it.
#include "core/http_request.h"

#include <gtest/gtest.h>

#include <string>

namespace gw {
namespace {

using State = HttpRequestReader::State;

const std::string kPost =
    "POST /profile HTTP/1.1\r\nHost: x\r\nauthorization:  Bearer t0k \r\nContent-Length: 11\r\n\r\n{\"a\": "
    "true}";

TEST(HttpRequestReader, EverySplitOfTheBytesGivesTheSameRequest) {
  for (std::size_t cut = 0; cut <= kPost.size(); ++cut) {
    for (std::size_t step : {std::size_t{1}, std::size_t{3}, kPost.size()}) {
      HttpRequestReader r;
      r.feed(std::string_view(kPost).substr(0, cut));
      for (std::size_t at = cut; at < kPost.size(); at += step) {
        r.feed(std::string_view(kPost).substr(at, step));
      }
      ASSERT_EQ(r.state(), State::kDone) << cut << "/" << step << ": " << r.error();
      EXPECT_EQ(r.request().method, "POST");
      EXPECT_EQ(r.request().path, "/profile");
      EXPECT_EQ(r.request().authorization, "Bearer t0k");
      EXPECT_EQ(r.request().body, "{\"a\": true}");
    }
  }
}

TEST(HttpRequestReader, BytesAfterTheBodyAreIgnoredAndAGetNeedsNoBody) {
  HttpRequestReader r;
  EXPECT_EQ(r.feed(kPost + "GET / HTTP/1.1\r\n\r\n"), State::kDone);
  EXPECT_EQ(r.request().body, "{\"a\": true}");
  HttpRequestReader g;
  EXPECT_EQ(g.feed("GET /stats HTTP/1.1\r\n\r\n"), State::kDone);
  EXPECT_EQ(g.request().body, "");
}

TEST(HttpRequestReader, RefusesWhatIsNotARequestOrIsTooBig) {
  const auto error_of = [](const std::string& bytes) {
    HttpRequestReader r;
    return r.feed(bytes) == State::kBad ? r.error()
                                        : std::string("state ") + std::to_string(static_cast<int>(r.state()));
  };
  EXPECT_EQ(error_of("GET /stats\r\n\r\n"), "not an HTTP/1.1 request line");
  EXPECT_EQ(error_of(" / HTTP/1.1\r\n\r\n"), "not an HTTP/1.1 request line");
  EXPECT_EQ(error_of("GET / HTTP/1.1\r\nno colon\r\n\r\n"), "a header line without a colon");
  EXPECT_EQ(error_of("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n"),
            "Content-Length is not a number of bytes");
  EXPECT_EQ(error_of("POST / HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n"),
            "Content-Length is not a number of bytes");
  EXPECT_EQ(error_of("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"),
            "two different Content-Length headers");
  EXPECT_EQ(error_of("POST / HTTP/1.1\r\nContent-Length: 4194305\r\n\r\n"), "body over 4 MiB");
  EXPECT_EQ(error_of("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"),
            "Transfer-Encoding is not accepted (send Content-Length)");
  // Headers arriving a byte at a time are refused once past 16 KiB, holding no more.
  HttpRequestReader r;
  r.feed("GET / HTTP/1.1\r\nX: ");
  std::size_t fed = 0;
  while (r.state() == State::kNeedMore && fed < 100'000) {
    r.feed("a");
    ++fed;
  }
  EXPECT_EQ(r.state(), State::kBad);
  EXPECT_LE(fed, HttpRequestReader::kMaxHeaderBytes);
  EXPECT_EQ(r.error(), "headers over 16 KiB");
}

}  // namespace
}  // namespace gw
