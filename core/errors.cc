#include "core/errors.h"

#include <utility>

namespace gw {
namespace {

std::string format(const std::string& file, const std::string& path, const std::string& reason) {
  std::string out = file.empty() ? std::string{"<input>"} : file;
  if (!path.empty()) {
    out += ": " + path;
  }
  return out + ": " + reason;
}

}  // namespace

InputError::InputError(std::string file, std::string path, std::string reason)
    : std::runtime_error(format(file, path, reason)),
      file_(std::move(file)),
      path_(std::move(path)),
      reason_(std::move(reason)) {}

}  // namespace gw
