// A windowed running min or max: the best sample seen over the last `window` time units,
// in O(1) time and space. Kathleen Nichols' algorithm as in Linux lib/win_minmax.c and QUICHE
// quiche/quic/core/congestion_control/windowed_filter.h: it keeps the best, second-best and
// third-best samples from successive sub-windows, so an expired best is replaced by a sample
// from later in the window without storing the window. The result is exact when the best
// sample is the most recent; otherwise it may keep a sample up to one window too long or
// replace it with one slightly worse (the published trade-off, fine for BBR's filters).
//
// `Time` is what the window is measured in: an Instant (min RTT over 10 s) or a round or
// cycle count (BBR's max bandwidth over N rounds). `Delta` is Time's difference type.
#pragma once

#include <array>
#include <cstdint>
#include <functional>

namespace gw::cc {

template <class T, class Better, class Time, class Delta>
class WindowedFilter {
 public:
  explicit WindowedFilter(Delta window) : window_(window) {}

  void set_window(Delta window) { window_ = window; }
  bool empty() const { return empty_; }

  // Forgets everything and starts over from this sample.
  void reset(T sample, Time t) {
    empty_ = false;
    est_.fill(Sample{sample, t});
  }

  void update(T sample, Time t) {
    if (empty_ || !better(est_[0].value, sample) || t - est_[2].time > window_) {
      reset(sample, t);  // a new best, or nothing in the window is worth keeping
      return;
    }
    if (!better(est_[1].value, sample)) {
      est_[1] = Sample{sample, t};
      est_[2] = est_[1];
    } else if (!better(est_[2].value, sample)) {
      est_[2] = Sample{sample, t};
    }
    if (t - est_[0].time > window_) {
      // The best expired: promote the second and third, and check the new best once more.
      est_[0] = est_[1];
      est_[1] = est_[2];
      est_[2] = Sample{sample, t};
      if (t - est_[0].time > window_) {
        est_[0] = est_[1];
        est_[1] = est_[2];
      }
      return;
    }
    if (same(est_[1].value, est_[0].value) && t - est_[1].time > window_ / 4) {
      est_[2] = est_[1] = Sample{sample, t};  // a quarter window without a better sample
      return;
    }
    if (same(est_[2].value, est_[1].value) && t - est_[2].time > window_ / 2) {
      est_[2] = Sample{sample, t};  // half a window without a better third
    }
  }

  // The best sample in the window; T{} when empty.
  T best() const { return empty_ ? T{} : est_[0].value; }
  Time best_time() const { return est_[0].time; }

 private:
  struct Sample {
    T value{};
    Time time{};
  };
  // True when `a` is strictly better than `b`.
  static bool better(const T& a, const T& b) { return Better{}(a, b); }
  static bool same(const T& a, const T& b) { return !better(a, b) && !better(b, a); }

  Delta window_;
  bool empty_ = true;
  std::array<Sample, 3> est_{};
};

template <class T, class Time, class Delta>
using MaxFilter = WindowedFilter<T, std::greater<T>, Time, Delta>;
template <class T, class Time, class Delta>
using MinFilter = WindowedFilter<T, std::less<T>, Time, Delta>;

}  // namespace gw::cc
