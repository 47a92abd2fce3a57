#include "core/errors.h"

#include <cerrno>
#include <cstring>
#include <utility>

namespace gw {
namespace {

// An error echoes what it refuses, and what it refuses may be a 1 MB string or key: keep the
// head of it, enough to recognise, and say how much was left out.
constexpr std::size_t kMaxPathChars = 300;
constexpr std::size_t kMaxReasonChars = 1000;

std::string capped(std::string text, std::size_t limit) {
  if (text.size() <= limit) {
    return text;
  }
  const std::size_t cut = text.size() - limit;
  text.resize(limit);
  return text + "... (" + std::to_string(cut) + " more bytes)";
}

std::string format(const std::string& file, const std::string& path, const std::string& reason) {
  std::string out = file.empty() ? std::string{"<input>"} : file;
  if (!path.empty()) {
    out += ": " + path;
  }
  return out + ": " + reason;
}

}  // namespace

InputError::InputError(std::string file, std::string path, std::string reason)
    : std::runtime_error(format(file, capped(path, kMaxPathChars), capped(reason, kMaxReasonChars))),
      file_(std::move(file)),
      path_(capped(std::move(path), kMaxPathChars)),
      reason_(capped(std::move(reason), kMaxReasonChars)) {}

std::string errno_text() {
  return std::strerror(errno);
}

}  // namespace gw
