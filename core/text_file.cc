#include "core/text_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.h"

namespace gw {

std::string read_text_file(const std::string& file, std::uint64_t limit_bytes, std::string_view what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(file, ec);
  if (ec || !fs::exists(st)) {
    throw InputError(file, "", "no such file");
  }
  if (fs::is_directory(st)) {
    throw InputError(file, "", "is a directory, not " + std::string(what));
  }
  if (!fs::is_regular_file(st)) {
    throw InputError(file, "",
                     "not a regular file (a device, FIFO or socket); " + std::string(what) +
                         " is read from a regular file");
  }
  const std::uintmax_t size = fs::file_size(file, ec);
  if (ec) {
    throw InputError(file, "", "cannot read file");
  }
  if (size > limit_bytes) {
    const std::string limit = limit_bytes >= kMiB && limit_bytes % kMiB == 0
                                  ? std::to_string(limit_bytes / kMiB) + " MiB"
                                  : std::to_string(limit_bytes) + " bytes";
    throw InputError(file, "",
                     std::to_string(size) + " bytes: " + std::string(what) + " is at most " + limit);
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw InputError(file, "", "cannot read file");
  }
  std::string text;
  text.resize(static_cast<std::size_t>(size));
  in.read(text.data(), static_cast<std::streamsize>(size));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (in.bad()) {
    throw InputError(file, "", "error while reading the file");
  }
  return text;
}

void write_text_file_atomically(const std::string& file, std::string_view text) {
  namespace fs = std::filesystem;
  const std::string tmp = file + ".partial";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      throw EnvironmentError("cannot write " + tmp);
    }
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) {
    throw EnvironmentError("cannot rename " + tmp + " to " + file + ": " + ec.message());
  }
}

}  // namespace gw
