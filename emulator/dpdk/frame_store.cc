#include "emulator/dpdk/frame_store.h"

#include <sys/mman.h>

#include <bit>
#include <cstring>
#include <new>

namespace gw {

FrameStore::FrameStore(std::size_t slots) {
  if (slots == 0) {
    return;
  }
  const std::size_t n = std::bit_ceil(slots);
  map_bytes_ = n * kSlotBytes;
  // Anonymous memory, touched page by page as the ring first goes round. Transparent huge
  // pages where the kernel allows them for madvise() (fewer TLB misses; a hint).
  void* p =
      mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    throw std::bad_alloc();
  }
  (void)madvise(p, map_bytes_, MADV_HUGEPAGE);
  base_ = static_cast<std::uint8_t*>(p);
  meta_.resize(n);
  mask_ = n - 1;
}

FrameStore::~FrameStore() {
  if (base_ != nullptr) {
    munmap(base_, map_bytes_);
  }
}

std::uint32_t FrameStore::put_slow(const void* src, std::size_t len) {
  if (meta_.empty() || len > kSlotBytes) {
    return kNone;
  }
  if (tail_ - head_ == meta_.size()) {
    reclaim();
    if (tail_ - head_ == meta_.size()) {
      return kNone;
    }
  }
  return put_at_tail(src, len);
}

void FrameStore::reclaim() {
  while (head_ != tail_ && meta_[head_ & mask_].refs == 0) {
    ++head_;
  }
}

}  // namespace gw
