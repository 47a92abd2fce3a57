// One HTTP/1.1 request read incrementally, as the emulator's control endpoint takes it
// (emulator/dpdk/control.h): the request line, the two headers it uses (Authorization,
// Content-Length) and a body of Content-Length bytes (RFC 9112 §2-6, without chunked transfer
// coding, which the endpoint does not accept). Bytes come from a socket in any split; the
// reader never holds more than the limits, so a client cannot make it grow without bound.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gw {

struct HttpRequest {
  std::string method;
  std::string path;
  std::string authorization;
  std::string body;
};

class HttpRequestReader {
 public:
  static constexpr std::size_t kMaxHeaderBytes = 16 * 1024;
  static constexpr std::size_t kMaxBodyBytes = 4 * 1024 * 1024;

  enum class State { kNeedMore, kDone, kBad };

  // Takes the next bytes of the connection. kDone: request() is whole (bytes after the body
  // are ignored: one request per connection); kBad: error() says why. Once kDone or kBad,
  // further bytes change nothing.
  State feed(std::string_view bytes);

  State state() const { return state_; }
  const HttpRequest& request() const { return request_; }
  const std::string& error() const { return error_; }

 private:
  State fail(std::string why);
  State parse_head();
  State take_body(std::string_view bytes);

  State state_ = State::kNeedMore;
  std::string head_;  // the request line and headers, until the blank line
  std::size_t body_length_ = 0;
  bool in_body_ = false;
  HttpRequest request_;
  std::string error_;
};

}  // namespace gw
