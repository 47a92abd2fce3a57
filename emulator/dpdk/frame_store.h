// Small frames held as copies instead of in their mbufs.
//
// A frame held for a WAN delay (25 ms at line rate: hundreds of thousands of frames) is cold by
// the time it leaves, and so is its mbuf: the release reads two header lines and the first
// data line from scattered places in a pool of gigabytes, with a TLB miss each on 4 KiB pages.
// For a small frame (acknowledgements, RoCE ACKs/CNPs, 64-byte line-rate tests) those misses,
// not the work, set the forwarding rate. So the data plane copies such a frame's bytes into
// this store on entry and frees its mbuf at once: the mbuf goes back to the lcore's mempool
// cache, warm, and the next rx takes it again. At release a fresh mbuf (warm, from the same
// cache) gets the bytes back. Slots are handed out in a ring in arrival order, so with releases
// in arrival order (order-preserving delay) both the writes and the reads walk memory
// sequentially, which the hardware prefetchers follow. (Non-temporal stores, which skip
// reading the line before writing it, measured 10 % slower: the release then always reads
// from memory, and the staging they need costs more than the read saved.)
//
// Frames released out of order free their slots out of order: the ring's head moves on only
// over freed slots, so one frame held far longer than the rest (a long queue, a slow class)
// stops new copies once the ring has gone round; those frames are then held in their mbufs,
// as all frames are when the store is off. Nothing is lost either way.
//
// Pure C++ (no DPDK), so it is unit-tested on its own; the forwarder keeps one per lane.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gw {

class FrameStore {
 public:
  static constexpr std::size_t kSlotBytes = 128;  // frames up to this long are copied
  static constexpr std::uint32_t kNone = UINT32_MAX;

  // Room for `slots` frames (rounded up to a power of two), resident from the start (128 bytes
  // a slot); 0: the store takes nothing.
  explicit FrameStore(std::size_t slots);
  ~FrameStore();
  FrameStore(const FrameStore&) = delete;
  FrameStore& operator=(const FrameStore&) = delete;

  // Copies `len` bytes (<= kSlotBytes) from `src` into a free slot holding one reference and
  // returns the slot, or kNone when the ring has no slot free at its tail.
  std::uint32_t put(const void* src, std::size_t len) {
    if (len > kSlotBytes || tail_ - head_ == meta_.size()) [[unlikely]] {
      return put_slow(src, len);
    }
    return put_at_tail(src, len);
  }
  // Adds `n` references to slot `s` (copies of the frame that leave separately).
  void add_refs(std::uint32_t s, std::uint32_t n) {
    meta_[s].refs = static_cast<std::uint16_t>(meta_[s].refs + n);
  }
  const std::uint8_t* data(std::uint32_t s) const { return base_ + static_cast<std::size_t>(s) * kSlotBytes; }
  std::size_t length(std::uint32_t s) const { return meta_[s].len; }
  std::uint32_t references(std::uint32_t s) const { return meta_[s].refs; }
  // Gives back one reference to slot `s`; after the last one the slot is free again.
  void release(std::uint32_t s) {
    if (--meta_[s].refs == 0 && s == (head_ & mask_)) {
      reclaim();
    }
  }
  // Loads the first line of slot `s` into the cache ahead of its read (a hint).
  void prefetch(std::uint32_t s) const { __builtin_prefetch(data(s)); }

  // memcpy for len <= kSlotBytes as two fixed-size copies that overlap in the middle (a
  // variable-length memcpy inlined here became `rep movsq`, whose start-up cost is most of a
  // 64-byte copy); below 32 bytes, memcpy.
  static void copy_small(std::uint8_t* dst, const void* src, std::size_t len) {
    const auto* from = static_cast<const std::uint8_t*>(src);
    if (len >= 64) {
      std::memcpy(dst, from, 64);
      std::memcpy(dst + len - 64, from + len - 64, 64);
    } else if (len >= 32) {
      std::memcpy(dst, from, 32);
      std::memcpy(dst + len - 32, from + len - 32, 32);
    } else {
      std::memcpy(dst, from, len);
    }
  }

  std::size_t capacity() const { return meta_.size(); }
  // Slots between the ring's head and tail: held, or freed out of order and not yet passed.
  std::size_t in_use() const { return static_cast<std::size_t>(tail_ - head_); }

 private:
  struct Meta {
    std::uint16_t len = 0;
    std::uint16_t refs = 0;  // 0: free
  };
  void reclaim();   // moves the head over freed slots
  void populate();  // faults the whole mapping in
  // put() when the frame is too long, the store is off or its ring is full at the tail.
  std::uint32_t put_slow(const void* src, std::size_t len);
  std::uint32_t put_at_tail(const void* src, std::size_t len) {
    const auto s = static_cast<std::uint32_t>(tail_ & mask_);
    ++tail_;
    meta_[s] = {static_cast<std::uint16_t>(len), 1};
    copy_small(base_ + static_cast<std::size_t>(s) * kSlotBytes, src, len);
    return s;
  }

  std::uint8_t* base_ = nullptr;  // capacity() * kSlotBytes, cache-line aligned
  std::size_t map_bytes_ = 0;
  std::vector<Meta> meta_;  // kept apart, so a slot's bytes start on a line of their own
  std::uint64_t mask_ = 0;
  std::uint64_t head_ = 0;  // oldest slot not yet passed
  std::uint64_t tail_ = 0;  // next slot handed out
};

}  // namespace gw
