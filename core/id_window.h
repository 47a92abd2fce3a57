// Values keyed by ids handed out in increasing order (message ids: 0, 1, 2, ...), kept only
// from the oldest id still held to the newest: memory O(newest - oldest held), the messages in
// flight in a simulation, instead of O(every id ever handed out) as a vector indexed by id.
// Ids may skip (ids handed to someone else are gaps); an id is put at most once and not below
// one already erased past.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <stdexcept>

namespace gw {

template <typename T>
class IdWindow {
 public:
  void put(std::uint64_t id, const T& value) {
    if (held_ == 0) {
      slots_.clear();
      base_ = id;
    }
    if (id < base_) {
      throw std::logic_error("IdWindow: an id below the window");
    }
    const std::uint64_t at = id - base_;
    if (at >= slots_.size()) {
      slots_.resize(at + 1);
    }
    if (slots_[at]) {
      throw std::logic_error("IdWindow: an id put twice");
    }
    slots_[at] = value;
    ++held_;
  }
  // The value held for `id`, or null.
  T* find(std::uint64_t id) {
    if (id < base_ || id - base_ >= slots_.size() || !slots_[id - base_]) {
      return nullptr;
    }
    return &*slots_[id - base_];
  }
  // Drops `id` (held), then the empty slots at the front.
  void erase(std::uint64_t id) {
    T* v = find(id);
    if (v == nullptr) {
      throw std::logic_error("IdWindow: erasing an id not held");
    }
    slots_[id - base_].reset();
    --held_;
    while (!slots_.empty() && !slots_.front()) {
      slots_.pop_front();
      ++base_;
    }
  }
  std::size_t size() const { return held_; }
  // Slots kept, held or gaps between them (what the memory is proportional to).
  std::size_t span() const { return slots_.size(); }

 private:
  std::deque<std::optional<T>> slots_;
  std::uint64_t base_ = 0;  // the id of slots_[0]
  std::size_t held_ = 0;
};

}  // namespace gw
