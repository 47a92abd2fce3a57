#include "emulator/engine/release_calendar.h"

namespace gw {

ReleaseCalendar::ReleaseCalendar(Duration width_hint) : ring_(kBuckets), spill_(kBuckets) {
  const auto target = static_cast<std::uint64_t>(std::max<std::int64_t>(width_hint.count() / 256, 64));
  shift_ = static_cast<int>(std::bit_width(target) - 1);
}

std::size_t ReleaseCalendar::first_bucket() {
  // Scan the occupancy bitmap from base_'s position, wrapping once around the ring.
  const std::size_t start = static_cast<std::size_t>(base_) & (kBuckets - 1);
  std::size_t word = start / 64;
  std::uint64_t bits = occupied_[word] & (~std::uint64_t{0} << (start % 64));
  for (std::size_t n = 0; n <= occupied_.size(); ++n) {
    if (bits != 0) {
      return word * 64 + static_cast<std::size_t>(std::countr_zero(bits));
    }
    word = (word + 1) % occupied_.size();
    bits = occupied_[word];
  }
  return kBuckets;  // not reached while in_ring_ > 0
}

std::span<const Release> ReleaseCalendar::next_bucket() const {
  if (sorted_ < 0) {
    return {};
  }
  // The occupancy bitmap from the bucket after the sorted one, a word at a time.
  std::size_t pos = static_cast<std::size_t>(sorted_ + 1) & (kBuckets - 1);
  for (std::size_t looked = 0; looked < kLookahead;) {
    const std::size_t word = pos / 64;
    const std::uint64_t bits = occupied_[word] & (~std::uint64_t{0} << (pos % 64));
    if (bits != 0) {
      const std::size_t found = word * 64 + static_cast<std::size_t>(std::countr_zero(bits));
      const Bucket& b = ring_[found];
      return {b.e.data(), std::min<std::size_t>(b.n, kInline)};
    }
    looked += 64 - pos % 64;
    pos = ((word + 1) * 64) & (kBuckets - 1);
  }
  return {};
}

// top() when the earliest bucket is not known (sorted_ < 0): its entries move into current_,
// sorted. While it is known, top() answers inline: pushes before it put current_ back (unsort),
// and pop() resets sorted_ when current_ runs empty.
const Release& ReleaseCalendar::find_top() {
  if (in_ring_ == 0) {
    return overflow_.front();
  }
  const std::size_t pos = first_bucket();
  const std::size_t start = static_cast<std::size_t>(base_) & (kBuckets - 1);
  const std::int64_t b = base_ + static_cast<std::int64_t>((pos + kBuckets - start) % kBuckets);
  Bucket& bucket = ring_[pos];
  const std::size_t inline_n = std::min<std::size_t>(bucket.n, kInline);
  current_.assign(bucket.e.begin(), bucket.e.begin() + static_cast<std::ptrdiff_t>(inline_n));
  if (bucket.n > kInline) {
    current_.insert(current_.end(), spill_[pos].begin(), spill_[pos].end());
    spill_[pos].clear();
  }
  bucket.n = 0;
  occupied_[pos / 64] &= ~(std::uint64_t{1} << (pos % 64));
  std::sort(current_.begin(), current_.end(), later);
  sorted_ = b;
  ++buckets_sorted_;
  return current_.back();
}

void ReleaseCalendar::unsort() {
  const std::size_t pos = static_cast<std::size_t>(sorted_) & (kBuckets - 1);
  for (const Release& r : current_) {
    put(pos, r);
  }
  current_.clear();
  sorted_ = -1;
}

void ReleaseCalendar::push_overflow(const Release& r) {
  overflow_.push_back(r);
  std::push_heap(overflow_.begin(), overflow_.end(), later);
}

void ReleaseCalendar::pop_overflow() {
  std::pop_heap(overflow_.begin(), overflow_.end(), later);
  const Release r = overflow_.back();
  overflow_.pop_back();
  --size_;
  base_ = bucket_of(r.at);
  migrate();
}

void ReleaseCalendar::migrate() {
  while (!overflow_.empty() &&
         bucket_of(overflow_.front().at) - base_ < static_cast<std::int64_t>(kBuckets)) {
    std::pop_heap(overflow_.begin(), overflow_.end(), later);
    const Release r = overflow_.back();
    overflow_.pop_back();
    place(r);
  }
}

}  // namespace gw
