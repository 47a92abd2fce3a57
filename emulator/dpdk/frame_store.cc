#include "emulator/dpdk/frame_store.h"

#include <sys/mman.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <string>

#include "core/errors.h"

namespace gw {

namespace {

std::string store_no_memory(std::size_t bytes) {
  return "no memory for the frame store's " + std::to_string(bytes >> 20) + " MiB (" + errno_text() +
         "): lower --copy-slots (0: hold frames in their mbufs)";
}

}  // namespace

FrameStore::FrameStore(std::size_t slots) {
  if (slots == 0) {
    return;
  }
  const std::size_t n = std::bit_ceil(slots);
  map_bytes_ = n * kSlotBytes;
  // Anonymous memory, transparent huge pages where the kernel allows them for madvise() (fewer
  // TLB misses; a hint), faulted in here rather than as the ring first goes round: those
  // faults (zeroing a huge page each) took ~0.8 s of a 6-s line-rate run's forwarding on one
  // lcore, releasing frames late meanwhile (docs/benchmarks.md). The owner builds its stores
  // before forwarding starts.
  void* p = mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    throw EnvironmentError(store_no_memory(map_bytes_));
  }
  (void)madvise(p, map_bytes_, MADV_HUGEPAGE);
  base_ = static_cast<std::uint8_t*>(p);
  populate();
  meta_.resize(n);
  mask_ = n - 1;
}

// MADV_POPULATE_WRITE (Linux 5.14, madvise(2)) faults the range in writable without writing it;
// on older kernels (EINVAL) a write to every page does the same.
void FrameStore::populate() {
#ifdef MADV_POPULATE_WRITE
  if (madvise(base_, map_bytes_, MADV_POPULATE_WRITE) == 0) {
    return;
  }
  if (errno != EINVAL) {
    const std::string why = store_no_memory(map_bytes_);
    munmap(base_, map_bytes_);
    base_ = nullptr;
    throw EnvironmentError(why);
  }
#endif
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  for (std::size_t i = 0; i < map_bytes_; i += page) {
    base_[i] = 0;
  }
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
