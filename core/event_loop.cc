#include "core/event_loop.h"

#include <string>

namespace gw {

Timer::~Timer() {
  if (loop_->firing_ == this) {
    loop_->firing_ = nullptr;
  }
  if (slot_ != kNotQueued) {
    loop_->remove(*this);
  }
}

void Timer::arm(Instant at) {
  if (loop_->firing_ == this) {
    // Armed (or cancelled) by its own target while it runs: it is still queued at the current
    // instant with the smallest key, so any new key is later: it sinks. As if it had been
    // unarmed before wake(): a new arming order even for the same instant.
    loop_->firing_ = nullptr;
    if (at == kNever) {
      loop_->remove(*this);
      at_ = kNever;
      return;
    }
    if (at < loop_->now()) {
      throw std::logic_error("event loop: a timer armed at " + std::to_string(ns_of(at)) +
                             " ns, before the current time " + std::to_string(ns_of(loop_->now())) + " ns");
    }
    at_ = at;
    seq_ = loop_->seq_++;
    loop_->sift_down(slot_);
    return;
  }
  if (at == at_) {
    return;
  }
  if (at < loop_->now()) {
    throw std::logic_error("event loop: a timer armed at " + std::to_string(ns_of(at)) +
                           " ns, before the current time " + std::to_string(ns_of(loop_->now())) + " ns");
  }
  if (slot_ != kNotQueued && at != kNever) {
    // Move it in place: a later key (a later instant, or the same one with the newest arming
    // order) sinks, an earlier one rises. Half the work of remove + insert.
    const bool later = at >= at_;
    at_ = at;
    seq_ = loop_->seq_++;
    if (later) {
      loop_->sift_down(slot_);
    } else {
      loop_->sift_up(slot_);
    }
    return;
  }
  if (slot_ != kNotQueued) {
    loop_->remove(*this);
  }
  at_ = at;
  if (at != kNever) {
    seq_ = loop_->seq_++;
    loop_->insert(*this);
  }
}

void EventLoop::insert(Timer& t) {
  heap_.push_back(&t);
  t.slot_ = heap_.size() - 1;
  sift_up(t.slot_);
}

void EventLoop::remove(Timer& t) {
  const std::size_t i = t.slot_;
  t.slot_ = Timer::kNotQueued;
  Timer* last = heap_.back();
  heap_.pop_back();
  if (last == &t) {
    return;
  }
  place(i, last);
  sift_up(i);
  sift_down(last->slot_);
}

void EventLoop::sift_up(std::size_t i) {
  Timer* t = heap_[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!earlier(t, heap_[parent])) {
      break;
    }
    place(i, heap_[parent]);
    i = parent;
  }
  place(i, t);
}

void EventLoop::sift_down(std::size_t i) {
  Timer* t = heap_[i];
  const std::size_t n = heap_.size();
  for (;;) {
    std::size_t child = 2 * i + 1;
    if (child >= n) {
      break;
    }
    if (child + 1 < n && earlier(heap_[child + 1], heap_[child])) {
      ++child;
    }
    if (!earlier(heap_[child], t)) {
      break;
    }
    place(i, heap_[child]);
    i = child;
  }
  place(i, t);
}

bool EventLoop::step() {
  if (heap_.empty()) {
    return false;
  }
  Timer& t = *heap_.front();
  if (t.at_ < now_) {
    throw std::logic_error("event loop: time went backwards");
  }
  now_ = t.at_;
  firing_ = &t;
  ++events_run_;
  t.target_->wake(now_);
  if (firing_ == &t) {  // neither re-armed, cancelled nor destroyed by its target
    firing_ = nullptr;
    remove(t);
    t.at_ = kNever;
  }
  return true;
}

std::uint64_t EventLoop::run_until(Instant end) {
  const std::uint64_t before = events_run_;
  while (!heap_.empty() && heap_.front()->at_ <= end) {
    step();
  }
  if (end > now_ && end != kNever) {
    now_ = end;
  }
  return events_run_ - before;
}

}  // namespace gw
