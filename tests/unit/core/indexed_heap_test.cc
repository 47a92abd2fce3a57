#include "core/indexed_heap.h"

#include <gtest/gtest.h>

#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "core/rng.h"

namespace gw {
namespace {

// Differential against a std::set of (key, slot): 20,000 random set/erase operations on 64
// slots with keys drawn from a small range (ties broken by a sequence number, as the users
// do); after each, the top and the size agree; at the end, draining yields the set's order.
TEST(IndexedHeap, AgreesWithASortedSetUnderRandomOperations) {
  using Key = std::pair<std::uint64_t, std::uint64_t>;
  constexpr std::uint32_t kSlots = 64;
  IndexedHeap<Key> heap;
  heap.resize(kSlots);
  std::set<std::pair<Key, std::uint32_t>> ref;
  std::vector<Key> current(kSlots);
  std::vector<bool> present(kSlots, false);
  Rng rng(3, "indexed-heap-test");
  std::uint64_t seq = 0;
  for (int op = 0; op < 20'000; ++op) {
    const auto slot = static_cast<std::uint32_t>(rng.below(kSlots));
    if (present[slot]) {
      ref.erase({current[slot], slot});
    }
    if (rng.uniform() < 0.25) {
      heap.erase(slot);
      present[slot] = false;
    } else {
      current[slot] = Key{rng.below(16), seq++};
      heap.set(slot, current[slot]);
      ref.insert({current[slot], slot});
      present[slot] = true;
    }
    ASSERT_EQ(heap.size(), ref.size());
    EXPECT_EQ(heap.contains(slot), present[slot]);
    if (!ref.empty()) {
      ASSERT_EQ(heap.top(), ref.begin()->second) << "after operation " << op;
    }
  }
  while (!heap.empty()) {
    const std::uint32_t top = heap.top();
    ASSERT_EQ(top, ref.begin()->second);
    ref.erase(ref.begin());
    heap.erase(top);
  }
  EXPECT_TRUE(ref.empty());
}

}  // namespace
}  // namespace gw
