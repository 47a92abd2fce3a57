// Running an external validator (xmllint, python3 jsonschema) from a test on a temporary file.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/wait.h>

namespace gw::reports::testing {

inline bool tool_works(const std::string& probe) {
  return std::system((probe + " >/dev/null 2>&1").c_str()) == 0;
}

// A fresh directory under the temp directory, removed with everything in it at scope exit.
class TempDir {
 public:
  TempDir()
      : dir_(std::filesystem::temp_directory_path() /
             ("gw-reports-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    std::filesystem::create_directories(dir_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Writes `text` to `name` inside the directory and returns its path.
  std::filesystem::path file(const std::string& name, const std::string& text) const {
    const auto path = dir_ / name;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    return path;
  }

 private:
  std::filesystem::path dir_;
};

// Exit status of a shell command, its output appended to `log`.
inline int run(const std::string& command, const std::filesystem::path& log) {
  const int rc = std::system((command + " >" + log.string() + " 2>&1").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace gw::reports::testing
