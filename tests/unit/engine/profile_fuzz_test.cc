// Robustness of the profile loader: random mutations of the shipped profiles either load or
// fail with an InputError (file, JSON path, reason) — never another exception, never a crash.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/errors.h"
#include "core/json_reader.h"
#include "core/rng.h"
#include "emulator/engine/engine.h"
#include "emulator/engine/profile.h"

namespace gw {
namespace {

nlohmann::json random_value(Rng& rng) {
  switch (rng.below(9)) {
    case 0:
      return nullptr;
    case 1:
      return rng.below(2) == 1;
    case 2:
      return -1;
    case 3:
      return 1e300;
    case 4:
      return static_cast<double>(rng.below(1000)) / 7.0;
    case 5:
      return "198.18.0.0/15";
    case 6:
      return nlohmann::json::object();
    case 7:
      return nlohmann::json::array({1, "x"});
    default:
      return static_cast<std::int64_t>(rng.next_u64());
  }
}

// Replaces, deletes or adds one value somewhere in the document.
void mutate(nlohmann::json& j, Rng& rng) {
  nlohmann::json* node = &j;
  for (int depth = 0; depth < 6; ++depth) {
    if (node->is_object() && !node->empty() && rng.below(3) != 0) {
      auto it = node->begin();
      std::advance(it, static_cast<long>(rng.below(node->size())));
      node = &it.value();
    } else if (node->is_array() && !node->empty() && rng.below(3) != 0) {
      node = &(*node)[rng.below(node->size())];
    } else {
      break;
    }
  }
  if (node->is_object() && rng.below(2) == 0) {
    const char* keys[] = {"delay_ms", "p",           "rate_gbps", "kind", "match",
                          "at_s",     "limit_bytes", "bursts",    "zzz"};
    (*node)[keys[rng.below(9)]] = random_value(rng);
  } else {
    *node = random_value(rng);
  }
}

TEST(ProfileFuzz, MutatedProfilesLoadOrFailWithAnInputError) {
  std::vector<nlohmann::json> seeds;
  for (const auto& e : std::filesystem::directory_iterator(std::string(GW_SOURCE_DIR) + "/profiles/wan")) {
    if (e.path().extension() == ".json") {
      seeds.push_back(read_json_file(e.path().string()));
    }
  }
  ASSERT_FALSE(seeds.empty());
  Rng rng(2026, "fuzz");
  int loaded = 0;
  int rejected = 0;
  for (int i = 0; i < 4000; ++i) {
    nlohmann::json doc = seeds[rng.below(seeds.size())];
    const int edits = 1 + static_cast<int>(rng.below(3));
    for (int k = 0; k < edits; ++k) {
      mutate(doc, rng);
    }
    try {
      const Profile p = parse_profile(doc, "fuzz.json");
      // What loads must also build and run.
      DirectionEngine e(p, Direction::kAToB);
      ++loaded;
    } catch (const InputError& err) {
      ++rejected;
      EXPECT_EQ(std::string(err.what()).rfind("fuzz.json: ", 0), 0U) << err.what();
    } catch (const std::exception& other) {
      ADD_FAILURE() << "not an InputError: " << other.what() << "\n" << doc.dump();
    }
  }
  // Both outcomes occur, so the mutations reach past the first check.
  EXPECT_GT(loaded, 50);  // 86 of 4000 with this seed: the loader is strict
  EXPECT_GT(rejected, 100);
}

}  // namespace
}  // namespace gw
