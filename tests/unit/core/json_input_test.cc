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

// What a JsonReader accessor says about `doc` (one key read by `read`), or "accepted".
template <typename Read>
std::string reader_error(const std::string& doc, Read read) {
  const nlohmann::json j = parse_json_strict(doc, "f.json");
  try {
    read(JsonReader(j, "f.json"));
  } catch (const InputError& e) {
    return e.path() + ": " + e.reason();
  }
  return "accepted";
}

TEST(JsonReaderUnits, ABareNumberForAUnitBearingKeyIsRefusedNotIgnored) {
  const auto delay = [](const JsonReader& r) { (void)r.duration("delay"); };
  EXPECT_EQ(reader_error(R"({"delay": 5})", delay),
            "$.delay: must be text with its unit (e.g. \"25ms\"), or a number under delay_<unit>, got 5");
  EXPECT_EQ(reader_error(R"({"delay": "5ms"})", delay), "accepted");
  EXPECT_EQ(reader_error(R"({"delay_ms": 5})", delay), "accepted");
  const auto rate = [](const JsonReader& r) { (void)r.rate("rate"); };
  EXPECT_EQ(reader_error(R"({"rate": true})", rate).substr(0, 43),
            "$.rate: must be text with its unit (e.g. \"1");
  const auto size = [](const JsonReader& r) { (void)r.bytes("buffer"); };
  EXPECT_EQ(reader_error(R"({"buffer": null})", size).substr(0, 48),
            "$.buffer: must be text with its unit (e.g. \"4MiB");
}

TEST(JsonReaderSeed, TheWholeUnsignedRangeAndNothingElse) {
  std::uint64_t got = 0;
  const auto seed = [&](const JsonReader& r) { got = r.optional_seed("seed").value_or(7); };
  EXPECT_EQ(reader_error(R"({"seed": 18446744073709551615})", seed), "accepted");
  EXPECT_EQ(got, ~std::uint64_t{0});
  EXPECT_EQ(reader_error(R"({})", seed), "accepted");
  EXPECT_EQ(got, 7U);
  EXPECT_EQ(reader_error(R"({"seed": -1})", seed), "$.seed: must be an integer in [0, 2^64-1], got -1");
  EXPECT_EQ(reader_error(R"({"seed": 1.5})", seed), "$.seed: must be an integer in [0, 2^64-1], got 1.5");
}

TEST(InputErrorText, AHugeValueIsCutAndSaysHowMuch) {
  const InputError e("f.json", "$." + std::string(5000, 'k'), "bad \"" + std::string(1'000'000, '9') + "\"");
  EXPECT_LT(std::string(e.what()).size(), 1400U);
  EXPECT_NE(e.reason().find("more bytes)"), std::string::npos);
  EXPECT_NE(e.path().find("more bytes)"), std::string::npos);
  const InputError small("f.json", "$.a", "short");
  EXPECT_STREQ(small.what(), "f.json: $.a: short");
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
