#include "core/http_request.h"

#include <algorithm>
#include <cctype>

namespace gw {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) {
    return {};
  }
  return std::string(s.substr(b, s.find_last_not_of(" \t") - b + 1));
}

}  // namespace

HttpRequestReader::State HttpRequestReader::fail(std::string why) {
  error_ = std::move(why);
  state_ = State::kBad;
  return state_;
}

HttpRequestReader::State HttpRequestReader::feed(std::string_view bytes) {
  if (state_ != State::kNeedMore) {
    return state_;
  }
  if (in_body_) {
    return take_body(bytes);
  }
  // The blank line may straddle two reads: look from 3 bytes before the new ones. The head
  // grows by at most one read past the limit before it is refused.
  const std::size_t from = head_.size() >= 3 ? head_.size() - 3 : 0;
  head_.append(bytes);
  const std::size_t end = head_.find("\r\n\r\n", from);
  if (end == std::string::npos || end > kMaxHeaderBytes) {
    return head_.size() > kMaxHeaderBytes ? fail("headers over 16 KiB") : state_;
  }
  const std::string rest = head_.substr(end + 4);  // the start of the body
  head_.resize(end);
  if (parse_head() != State::kNeedMore) {
    return state_;
  }
  in_body_ = true;
  return take_body(rest);
}

HttpRequestReader::State HttpRequestReader::take_body(std::string_view bytes) {
  const std::size_t need = body_length_ - request_.body.size();
  request_.body.append(bytes.substr(0, std::min(bytes.size(), need)));
  if (request_.body.size() == body_length_) {
    state_ = State::kDone;
  }
  return state_;
}

HttpRequestReader::State HttpRequestReader::parse_head() {
  const std::string_view head(head_);
  std::size_t line_end = head.find("\r\n");
  const std::string_view request_line = head.substr(0, line_end);
  const auto sp1 = request_line.find(' ');
  const auto sp2 = sp1 == std::string_view::npos ? sp1 : request_line.find(' ', sp1 + 1);
  if (sp1 == 0 || sp2 == std::string_view::npos || sp2 == sp1 + 1 ||
      request_line.substr(sp2 + 1).rfind("HTTP/1.", 0) != 0) {
    return fail("not an HTTP/1.1 request line");
  }
  request_.method = std::string(request_line.substr(0, sp1));
  request_.path = std::string(request_line.substr(sp1 + 1, sp2 - sp1 - 1));
  bool have_length = false;
  while (line_end != std::string_view::npos && line_end < head.size()) {
    const std::size_t next = head.find("\r\n", line_end + 2);
    const std::string_view line = head.substr(
        line_end + 2, next == std::string_view::npos ? std::string_view::npos : next - line_end - 2);
    line_end = next;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) {
      return fail("a header line without a colon");
    }
    const std::string name = lower(trim(line.substr(0, colon)));
    const std::string value = trim(line.substr(colon + 1));
    if (name == "authorization") {
      request_.authorization = value;
    } else if (name == "content-length") {
      // Digits only (RFC 9112 §6.3: an invalid or repeated-and-different length is an error).
      if (value.empty() || value.size() > 10 || value.find_first_not_of("0123456789") != std::string::npos) {
        return fail("Content-Length is not a number of bytes");
      }
      const std::size_t n = std::stoull(value);
      if (have_length && n != body_length_) {
        return fail("two different Content-Length headers");
      }
      have_length = true;
      body_length_ = n;
    } else if (name == "transfer-encoding") {
      return fail("Transfer-Encoding is not accepted (send Content-Length)");
    }
  }
  if (body_length_ > kMaxBodyBytes) {
    return fail("body over 4 MiB");
  }
  return state_;
}

}  // namespace gw
