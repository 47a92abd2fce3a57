// Writing an output file so that no reader sees half of it, and reading an input file whole, safely: only a
// regular file (a device such as /dev/zero or a FIFO would never end), and only up to a size limit that names
// what the file is for.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gw {

// The file's bytes. InputError (file, no path, reason) when it does not exist, is not a
// regular file, cannot be read, or is larger than `limit_bytes` ("a profile is at most 64 MiB").
std::string read_text_file(const std::string& file, std::uint64_t limit_bytes, std::string_view what);

// Writes `text` to FILE.partial and renames it over `file`, so a reader never sees half a
// file. EnvironmentError when either step fails.
void write_text_file_atomically(const std::string& file, std::string_view text);

inline constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

}  // namespace gw
