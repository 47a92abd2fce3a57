#include "core/id_window.h"

#include <gtest/gtest.h>

#include <map>

#include "core/rng.h"

namespace gw {
namespace {

TEST(IdWindow, MatchesAMapUnderRandomOutOfOrderErasure) {
  // Ids handed out in order with gaps, each erased after a random delay: every lookup agrees
  // with a std::map, and the window spans only from the oldest held id to the newest put.
  IdWindow<std::uint64_t> w;
  std::map<std::uint64_t, std::uint64_t> ref;
  Rng rng(7, "id-window");
  std::uint64_t next = 0;
  for (int step = 0; step < 100000; ++step) {
    if (ref.size() < 64 || rng.below(2) == 0) {
      next += 1 + rng.below(3);  // gaps: ids someone else took
      w.put(next, next * 3);
      ref[next] = next * 3;
    } else {
      auto it = ref.begin();
      std::advance(it, static_cast<long>(rng.below(ref.size())));
      ASSERT_NE(w.find(it->first), nullptr);
      EXPECT_EQ(*w.find(it->first), it->second);
      const std::uint64_t id = it->first;
      w.erase(id);
      ref.erase(it);
      EXPECT_EQ(w.find(id), nullptr);
    }
    ASSERT_EQ(w.size(), ref.size());
    if (!ref.empty()) {
      EXPECT_EQ(w.span(), next - ref.begin()->first + 1);  // the oldest held to the newest put
    }
  }
  EXPECT_EQ(w.find(next + 1), nullptr);
}

TEST(IdWindow, RefusesMisuse) {
  IdWindow<int> w;
  w.put(5, 1);
  EXPECT_THROW(w.put(5, 2), std::logic_error);
  EXPECT_THROW(w.put(4, 2), std::logic_error);
  EXPECT_THROW(w.erase(6), std::logic_error);
  w.erase(5);
  EXPECT_EQ(w.size(), 0U);
  w.put(100, 3);  // an empty window starts where the next id is
  EXPECT_EQ(w.span(), 1U);
}

}  // namespace
}  // namespace gw
