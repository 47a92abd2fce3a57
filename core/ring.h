// A growable FIFO ring buffer: push at the back, pop at the front, O(1) amortised, no
// allocation once it has grown to the working size (std::deque allocates a block per element
// for the large Packet records the engine queues).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace gw {

template <typename T>
class Ring {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  T& front() { return buf_[head_]; }
  const T& front() const { return buf_[head_]; }
  T& back() { return buf_[index(size_ - 1)]; }
  const T& back() const { return buf_[index(size_ - 1)]; }
  T& operator[](std::size_t i) { return buf_[index(i)]; }
  const T& operator[](std::size_t i) const { return buf_[index(i)]; }

  void push_back(T&& v) {
    if (size_ == capacity_) {
      grow();
    }
    buf_[index(size_)] = std::move(v);
    ++size_;
  }
  void push_back(const T& v) { push_back(T(v)); }

  // A new element at the back, to be filled in place (it holds whatever was there before).
  T& push_slot() {
    if (size_ == capacity_) {
      grow();
    }
    ++size_;
    return buf_[index(size_ - 1)];
  }

  // Forgets the front element (after it was moved from in place).
  void pop_discard() {
    head_ = index(1);
    --size_;
  }

  // Moves the front element out.
  T pop_front() {
    T v = std::move(buf_[head_]);
    head_ = index(1);
    --size_;
    return v;
  }

  // The place of the element `n` after the front, and of the `n`th push after the back, in
  // the storage (it may hold no element): for prefetching. The ring must have grown once.
  const T* front_ahead(std::size_t n) const { return buf_.data() + index(n); }
  const T* back_ahead(std::size_t n) const { return buf_.data() + index(size_ + n); }

  void clear() {
    head_ = 0;
    size_ = 0;
  }

 private:
  std::size_t index(std::size_t i) const { return (head_ + i) & mask_; }

  void grow() {
    std::vector<T> bigger(buf_.empty() ? 16 : buf_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) {
      bigger[i] = std::move(buf_[index(i)]);
    }
    buf_ = std::move(bigger);
    capacity_ = buf_.size();
    mask_ = capacity_ - 1;
    head_ = 0;
  }

  std::vector<T> buf_;        // capacity is a power of two
  std::size_t capacity_ = 0;  // buf_.size() and capacity_ - 1, kept so that no index
  std::size_t mask_ = 0;      // computation divides by sizeof(T)
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace gw
