#include "core/paths.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#ifndef GW_SOURCE_DATA_DIR
#error "GW_SOURCE_DATA_DIR must be defined by the build (see CMakeLists.txt)"
#endif

namespace gw {
namespace {

std::string join(std::string_view dir, std::string_view sub) {
  std::string out{dir};
  if (!sub.empty()) {
    if (!out.empty() && out.back() != '/') {
      out += '/';
    }
    out += sub;
  }
  return out;
}

}  // namespace

std::vector<std::string> data_search_dirs(std::string_view sub) {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("GRADWALL_DATA_DIR"); env != nullptr && *env != '\0') {
    dirs.push_back(join(env, sub));
  }
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && exe.has_parent_path()) {
    const std::filesystem::path share = exe.parent_path() / ".." / "share" / "gradwall";
    dirs.push_back(join(share.lexically_normal().string(), sub));
  }
  dirs.push_back(join(GW_SOURCE_DATA_DIR, sub));
  return dirs;
}

}  // namespace gw
