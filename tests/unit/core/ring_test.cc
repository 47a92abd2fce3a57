#include "core/ring.h"

#include <gtest/gtest.h>

#include <deque>
#include <random>

namespace gw {
namespace {

// Against std::deque as the reference FIFO: random pushes and pops (pushes twice as likely, so
// the ring wraps around while it grows through several sizes), checked by size(), front(),
// back() and operator[] after each step.
TEST(Ring, BehavesAsAFifoThroughWrapsAndGrowth) {
  Ring<int> ring;
  std::deque<int> ref;
  std::mt19937 gen(7);
  int next = 0;
  for (int step = 0; step < 20000; ++step) {
    const bool push = ref.empty() || gen() % 3 != 0 || (step > 15000 && gen() % 2 == 0);
    if (push) {
      if (next % 2 == 0) {
        ring.push_back(next);
      } else {
        ring.push_slot() = next;
      }
      ref.push_back(next++);
    } else if (step % 5 == 0) {
      EXPECT_EQ(ring.pop_front(), ref.front());
      ref.pop_front();
    } else {
      EXPECT_EQ(ring.front(), ref.front());
      ring.pop_discard();
      ref.pop_front();
    }
    ASSERT_EQ(ring.size(), ref.size());
    ASSERT_EQ(ring.empty(), ref.empty());
    if (!ref.empty()) {
      ASSERT_EQ(ring.front(), ref.front());
      ASSERT_EQ(ring.back(), ref.back());
      const std::size_t mid = ref.size() / 2;
      ASSERT_EQ(ring[mid], ref[mid]);
    }
  }
  ring.clear();
  EXPECT_TRUE(ring.empty());
  ring.push_back(1);
  EXPECT_EQ(ring.front(), 1);
  EXPECT_EQ(ring.size(), 1U);
}

}  // namespace
}  // namespace gw
