#include "emulator/engine/release_calendar.h"

namespace gw {

ReleaseCalendar::ReleaseCalendar(Duration width_hint) : ring_(kBuckets) {
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

// top() when the earliest bucket is not known (sorted_ < 0). While it is known, top() answers
// inline: pushes before it reset sorted_, and pop() resets it when the bucket runs empty.
const Release& ReleaseCalendar::find_top() {
  if (in_ring_ == 0) {
    return overflow_.front();
  }
  const std::size_t pos = first_bucket();
  const std::size_t start = static_cast<std::size_t>(base_) & (kBuckets - 1);
  const std::int64_t b = base_ + static_cast<std::int64_t>((pos + kBuckets - start) % kBuckets);
  std::vector<Release>& bucket = ring_[pos];
  std::sort(bucket.begin(), bucket.end(), later);
  sorted_ = b;
  return bucket.back();
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
