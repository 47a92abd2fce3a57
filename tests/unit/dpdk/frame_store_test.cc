#include "emulator/dpdk/frame_store.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace gw {
namespace {

std::vector<std::uint8_t> frame(std::size_t len, std::uint8_t seed) {
  std::vector<std::uint8_t> f(len);
  for (std::size_t i = 0; i < len; ++i) {
    f[i] = static_cast<std::uint8_t>(seed + 7 * i);
  }
  return f;
}

std::vector<std::uint8_t> bytes_of(const FrameStore& s, std::uint32_t slot) {
  return {s.data(slot), s.data(slot) + s.length(slot)};
}

TEST(FrameStore, KeepsEveryLengthUpToASlotByteForByte) {
  FrameStore s(256);
  for (std::size_t len = 1; len <= FrameStore::kSlotBytes; ++len) {
    const auto f = frame(len, static_cast<std::uint8_t>(len));
    const std::uint32_t slot = s.put(f.data(), len);
    ASSERT_NE(slot, FrameStore::kNone) << len;
    EXPECT_EQ(bytes_of(s, slot), f) << len;
    s.release(slot);
  }
  EXPECT_EQ(s.put(frame(129, 0).data(), 129), FrameStore::kNone);  // longer frames stay in mbufs
  EXPECT_EQ(s.in_use(), 0U);
}

// The store is faulted in when built (before forwarding starts), not as its ring first goes
// round: every page of it is resident before the first put().
TEST(FrameStore, IsResidentBeforeTheFirstFrame) {
  const FrameStore s(16384);  // 2 MiB
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t bytes = s.capacity() * FrameStore::kSlotBytes;
  std::vector<unsigned char> resident((bytes + page - 1) / page);
  // The mapping starts at slot 0 (mmap: page-aligned).
  ASSERT_EQ(mincore(const_cast<std::uint8_t*>(s.data(0)), bytes, resident.data()), 0);
  EXPECT_EQ(std::count_if(resident.begin(), resident.end(), [](unsigned char r) { return (r & 1U) != 0; }),
            static_cast<std::ptrdiff_t>(resident.size()));
}

TEST(FrameStore, RoundsUpToAPowerOfTwoAndRefusesWhenFull) {
  FrameStore s(5);
  ASSERT_EQ(s.capacity(), 8U);
  const auto f = frame(64, 1);
  std::vector<std::uint32_t> held;
  for (int i = 0; i < 8; ++i) {
    held.push_back(s.put(f.data(), f.size()));
    ASSERT_NE(held.back(), FrameStore::kNone);
  }
  EXPECT_EQ(s.put(f.data(), f.size()), FrameStore::kNone);
  // Freed out of order: the head passes only what is free from the oldest on.
  s.release(held[1]);
  EXPECT_EQ(s.put(f.data(), f.size()), FrameStore::kNone) << "the oldest slot is still held";
  s.release(held[0]);
  EXPECT_EQ(s.in_use(), 6U);
  const std::uint32_t again = s.put(f.data(), f.size());
  EXPECT_EQ(again, held[0]) << "slots are handed out in ring order";
  EXPECT_EQ(bytes_of(s, again), f);
}

TEST(FrameStore, ASlotStaysUntilItsLastReferenceGoes) {
  FrameStore s(2);
  const auto a = frame(60, 3);
  const std::uint32_t slot = s.put(a.data(), a.size());
  s.add_refs(slot, 2);  // two duplicates of the frame
  s.release(slot);
  s.release(slot);
  EXPECT_EQ(s.in_use(), 1U);
  EXPECT_EQ(bytes_of(s, slot), a);
  s.release(slot);
  EXPECT_EQ(s.in_use(), 0U);
}

TEST(FrameStore, ZeroSlotsTakesNothing) {
  FrameStore s(0);
  const auto f = frame(64, 0);
  EXPECT_EQ(s.put(f.data(), f.size()), FrameStore::kNone);
  EXPECT_EQ(s.capacity(), 0U);
}

// In release order (an order-preserving delay), the ring goes round many times over.
TEST(FrameStore, GoesRoundInReleaseOrder) {
  FrameStore s(64);
  std::array<std::uint32_t, 32> held{};
  std::size_t head = 0;
  std::size_t tail = 0;
  for (int i = 0; i < 10000; ++i) {
    const auto f = frame(1 + static_cast<std::size_t>(i) % 128, static_cast<std::uint8_t>(i));
    if (tail - head == held.size()) {
      s.release(held[head++ % held.size()]);
    }
    const std::uint32_t slot = s.put(f.data(), f.size());
    ASSERT_NE(slot, FrameStore::kNone) << i;
    ASSERT_EQ(bytes_of(s, slot), f);
    held[tail++ % held.size()] = slot;
  }
  EXPECT_EQ(s.in_use(), held.size());
}

TEST(FrameStore, CopySmallCopiesEveryLengthExactly) {
  // Every length a slot takes: the bytes copied, none before or after them touched.
  std::array<std::uint8_t, FrameStore::kSlotBytes> src{};
  for (std::size_t i = 0; i < src.size(); ++i) {
    src[i] = static_cast<std::uint8_t>(i * 7 + 1);
  }
  for (std::size_t len = 0; len <= FrameStore::kSlotBytes; ++len) {
    std::array<std::uint8_t, FrameStore::kSlotBytes + 2> dst{};
    dst.fill(0xee);
    FrameStore::copy_small(dst.data() + 1, src.data(), len);
    EXPECT_EQ(dst[0], 0xee) << len;
    EXPECT_TRUE(std::equal(src.begin(), src.begin() + static_cast<std::ptrdiff_t>(len), dst.begin() + 1))
        << len;
    EXPECT_EQ(dst[len + 1], 0xee) << len;
  }
}

}  // namespace
}  // namespace gw
