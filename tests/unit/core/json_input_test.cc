// Reading JSON inputs safely (core/json_reader.h, core/text_file.h): duplicate keys, nesting
// depth and numbers a double cannot hold are InputErrors with the JSON path; only regular
// files within a size limit are read.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "core/errors.h"
#include "core/json_reader.h"
#include "core/text_file.h"

namespace gw {
namespace {

std::string error_of(const std::string& text) {
  try {
    (void)parse_json_strict(text, "f.json");
  } catch (const InputError& e) {
    return e.path() + ": " + e.reason();
  }
  return "accepted";
}

TEST(JsonInput, NestingUpToTheLimitIsReadAndDeeperIsRefused) {
  const std::size_t ok = kMaxJsonDepth;
  EXPECT_EQ(error_of(std::string(ok, '[') + std::string(ok, ']')), "accepted");
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  const std::string e = error_of(deep);
  EXPECT_NE(e.find("nested deeper than 256 levels"), std::string::npos) << e;
  EXPECT_LT(e.size(), 200U);  // the path is cut short, not 100,000 levels long
}

TEST(JsonInput, NumbersADoubleCannotHoldNameTheirPath) {
  EXPECT_EQ(error_of(R"({"a": {"b": 1e400}})"),
            "$.a.b: number out of range (a JSON number here must fit a double, |x| < 1.8e308)");
  EXPECT_EQ(error_of(R"({"a": [1, -1e999]})").substr(0, 24), "$.a[1]: number out of ra");
  EXPECT_EQ(error_of(R"({"a": 1.7e308})"), "accepted");
}

TEST(JsonInput, DuplicateKeysStillNameTheirObject) {
  EXPECT_EQ(error_of(R"({"a": {"b": 1, "b": 2}})"),
            "$.a.b: key given twice (a JSON object's keys must be unique)");
}

TEST(TextFile, OnlyRegularFilesWithinTheLimit) {
  const std::string path = ::testing::TempDir() + "gw_text_file_test.txt";
  std::ofstream(path) << std::string(3000, 'x');
  EXPECT_EQ(read_text_file(path, 4096, "a test file").size(), 3000U);
  try {
    (void)read_text_file(path, 2048, "a test file");
    ADD_FAILURE() << "a file over the limit was read";
  } catch (const InputError& e) {
    EXPECT_EQ(e.reason(), "3000 bytes: a test file is at most 2048 bytes");
  }
  std::remove(path.c_str());
  EXPECT_THROW((void)read_text_file("/dev/zero", kMiB, "a test file"), InputError);
  EXPECT_THROW((void)read_text_file(::testing::TempDir(), kMiB, "a test file"), InputError);
  EXPECT_THROW((void)read_text_file(path, kMiB, "a test file"), InputError);  // removed
}

}  // namespace
}  // namespace gw
