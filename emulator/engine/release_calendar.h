// A calendar queue of release times (R. Brown, "Calendar queues: a fast O(1) priority queue
// implementation for the simulation event set problem", CACM 1988), specialised for a delay
// line: buckets 2^shift ns wide in a ring of kBuckets, holding entries due within the ring's
// horizon of the last entry taken out; later ones wait in an overflow heap and move into the
// ring as time reaches them. Entries are taken out in (at, seq) order, exactly as a binary
// heap would give them, but at O(1) amortised cost when releases spread evenly over time,
// which jittered delays do. Keys never go below the last one taken (time does not go back).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "core/time.h"

namespace gw {

struct Release {
  Instant at{};            // release time
  std::uint64_t seq = 0;   // arrival order, breaks ties
  std::uint32_t slot = 0;  // the owner's index of the packet
};

class ReleaseCalendar {
 public:
  static constexpr std::size_t kBuckets = 1U << 14;

  // `width_hint`: about how far apart releases are expected to be spread (the jitter); the
  // bucket width is a power of two near width_hint / 256, at least 64 ns.
  explicit ReleaseCalendar(Duration width_hint);

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // `now`: the caller's time; r.at >= now, and no later push goes below now either.
  void push(const Release& r, Instant now);
  // The earliest entry; the calendar must not be empty. Inline while the earliest bucket is
  // known and sorted (sorted_ >= 0 implies current_ is not empty, see pop()).
  const Release& top() {
    if (sorted_ >= 0) {
      return current_.back();
    }
    return find_top();
  }
  void pop();
  // Loads the bucket a push of a release at `at` would write (a hint): a push lands in a random
  // bucket, far in the ring from the last one, so its first access misses the caches.
  void prefetch(Instant at) const {
    const std::int64_t b = bucket_of(at);
    if (b != sorted_) {
      __builtin_prefetch(&ring_[static_cast<std::size_t>(b) & (kBuckets - 1)], 1);
    }
  }
  // The entries of the earliest bucket, once top() found it (latest first, top() last), and how
  // many buckets top() has sorted so far: an owner can prefetch what the next few pops release
  // when this count moves.
  const std::vector<Release>& sorted_bucket() const { return current_; }
  std::uint64_t buckets_sorted() const { return buckets_sorted_; }
  // The entries kept in the bucket of the first non-empty bucket after the sorted one, within
  // kLookahead buckets (unsorted, those past kInline left out): what the pops release after
  // the sorted bucket's, for an owner that prefetches a bucket ahead. Empty when none is
  // known (no sorted bucket, or nothing that close).
  std::span<const Release> next_bucket() const;

 private:
  // A bucket's first kInline entries live in the bucket itself, two cache lines in one array
  // (a push or a pop touches the bucket, not a separate heap block found through it); more go
  // to spill_[position], which is rare at the width chosen (a few entries per bucket).
  static constexpr std::size_t kInline = 5;
  static constexpr std::size_t kLookahead = 256;  // buckets next_bucket() looks through
  struct alignas(64) Bucket {
    std::uint32_t n = 0;  // entries, inline and spilled
    std::array<Release, kInline> e{};
  };
  static_assert(sizeof(Bucket) == 128);

  static bool later(const Release& a, const Release& b) { return a.at != b.at ? a.at > b.at : a.seq > b.seq; }
  std::int64_t bucket_of(Instant t) const { return ns_of(t) >> shift_; }
  std::size_t first_bucket();  // ring position of the first non-empty bucket at or after base_
  void place(const Release& r);
  void put(std::size_t pos, const Release& r);  // into bucket `pos`, unsorted
  const Release& find_top();
  void unsort();  // current_ goes back into its bucket (a push came before it)
  void migrate();
  void push_overflow(const Release& r);
  void pop_overflow();

  int shift_;
  std::int64_t base_ = 0;  // bucket of the last entry taken out; no entry lies before it
  std::vector<Bucket> ring_;
  std::vector<std::vector<Release>> spill_;  // [pos]: bucket pos's entries past kInline
  std::array<std::uint64_t, kBuckets / 64> occupied_{};
  std::size_t in_ring_ = 0;  // entries in the ring's buckets and in current_
  std::size_t size_ = 0;
  // The earliest bucket, once top() found it: its entries moved out of the ring into current_,
  // sorted latest first (pop() takes from the back), and its bucket number in sorted_; -1 while
  // not known (current_ is then empty).
  std::int64_t sorted_ = -1;
  std::vector<Release> current_;
  std::uint64_t buckets_sorted_ = 0;
  std::vector<Release> overflow_;  // heap (earliest on top) of entries beyond the horizon
};

// The per-packet operations, inline (the delay stage calls them for every packet that
// overtakes); the overflow heap and the search for the earliest bucket stay out of line.

inline void ReleaseCalendar::put(std::size_t pos, const Release& r) {
  Bucket& bucket = ring_[pos];
  if (bucket.n < kInline) {
    bucket.e[bucket.n] = r;
  } else {
    spill_[pos].push_back(r);
  }
  ++bucket.n;
  occupied_[pos / 64] |= std::uint64_t{1} << (pos % 64);
}

inline void ReleaseCalendar::place(const Release& r) {
  const std::int64_t b = bucket_of(r.at);
  if (b == sorted_) {
    // Keep the earliest bucket sorted, latest first, so pop() takes from the back.
    current_.insert(std::upper_bound(current_.begin(), current_.end(), r, later), r);
  } else {
    put(static_cast<std::size_t>(b) & (kBuckets - 1), r);
  }
  ++in_ring_;
}

inline void ReleaseCalendar::push(const Release& r, Instant now) {
  if (size_ == 0) {
    // Nothing held: the horizon may start at `now` (nothing will come due before it).
    base_ = std::max(base_, bucket_of(now));
  }
  ++size_;
  if (bucket_of(r.at) - base_ < static_cast<std::int64_t>(kBuckets)) {
    if (bucket_of(r.at) < sorted_) {
      unsort();  // an earlier bucket than the one top() found: find it again
    }
    place(r);
    return;
  }
  push_overflow(r);
}

inline void ReleaseCalendar::pop() {
  if (in_ring_ == 0) {
    pop_overflow();
    return;
  }
  top();  // makes sure the earliest bucket is the sorted one
  current_.pop_back();
  --in_ring_;
  --size_;
  base_ = sorted_;
  if (current_.empty()) {
    sorted_ = -1;
  }
  if (!overflow_.empty()) {
    migrate();
  }
}

}  // namespace gw
