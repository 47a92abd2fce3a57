// A binary min-heap of the slots 0..n-1, each with at most one key, that knows where every slot
// sits: setting a slot's key moves it in place (O(log n)), erasing it is O(log n), and nothing
// is allocated once it has been sized. Keys must be unique (a tie-breaking sequence number in
// the key does it), so the order in which top() yields slots is the order of a sorted set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace gw {

template <typename Key>
class IndexedHeap {
 public:
  // Makes room for slots 0..n-1 (slots already in the heap keep their place).
  void resize(std::size_t n) {
    pos_.resize(n, kAbsent);
    keys_.resize(n);
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  bool contains(std::uint32_t slot) const { return pos_[slot] != kAbsent; }
  // The slot with the smallest key; the heap must not be empty.
  std::uint32_t top() const { return heap_.front(); }
  const Key& key(std::uint32_t slot) const { return keys_[slot]; }

  // Inserts `slot` with key `k`, or moves it to its new key.
  void set(std::uint32_t slot, const Key& k) {
    if (pos_[slot] == kAbsent) {
      keys_[slot] = k;
      heap_.push_back(slot);
      pos_[slot] = heap_.size() - 1;
      sift_up(pos_[slot]);
      return;
    }
    const bool later = keys_[slot] < k;
    keys_[slot] = k;
    if (later) {
      sift_down(pos_[slot]);
    } else {
      sift_up(pos_[slot]);
    }
  }

  void erase(std::uint32_t slot) {
    const std::size_t i = pos_[slot];
    if (i == kAbsent) {
      return;
    }
    pos_[slot] = kAbsent;
    const std::uint32_t last = heap_.back();
    heap_.pop_back();
    if (last == slot) {
      return;
    }
    place(i, last);
    sift_up(i);
    sift_down(pos_[last]);
  }

 private:
  static constexpr std::size_t kAbsent = std::numeric_limits<std::size_t>::max();

  bool less(std::uint32_t a, std::uint32_t b) const { return keys_[a] < keys_[b]; }
  void place(std::size_t i, std::uint32_t slot) {
    heap_[i] = slot;
    pos_[slot] = i;
  }
  void sift_up(std::size_t i) {
    const std::uint32_t s = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!less(s, heap_[parent])) {
        break;
      }
      place(i, heap_[parent]);
      i = parent;
    }
    place(i, s);
  }
  void sift_down(std::size_t i) {
    const std::uint32_t s = heap_[i];
    const std::size_t n = heap_.size();
    for (;;) {
      std::size_t child = 2 * i + 1;
      if (child >= n) {
        break;
      }
      if (child + 1 < n && less(heap_[child + 1], heap_[child])) {
        ++child;
      }
      if (!less(heap_[child], s)) {
        break;
      }
      place(i, heap_[child]);
      i = child;
    }
    place(i, s);
  }

  std::vector<std::uint32_t> heap_;
  std::vector<std::size_t> pos_;
  std::vector<Key> keys_;
};

}  // namespace gw
