// Errors at the boundary. Library code throws these; only the CLI prints them and picks the
// exit code (2 bad input, 3 environment).
#pragma once

#include <stdexcept>
#include <string>

namespace gw {

// Bad input a user can fix: which file, where in it (a JSON path such as `$.a_to_b.loss.p`,
// or a line number), and why.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string path, std::string reason);

  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string file_;
  std::string path_;
  std::string reason_;
};

// The environment failed us (a file could not be written, a tool is missing, DPDK would not
// start). Not the user's input.
class EnvironmentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The text of the calling thread's errno (strerror(3)), for EnvironmentError messages.
std::string errno_text();

}  // namespace gw
