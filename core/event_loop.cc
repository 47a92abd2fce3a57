#include "core/event_loop.h"

#include <string>

namespace gw {

void Timer::arm(Instant at) {
  if (at == at_) {
    return;
  }
  if (at < loop_->now()) {
    throw std::logic_error("event loop: a timer armed at " + std::to_string(ns_of(at)) +
                           " ns, before the current time " + std::to_string(ns_of(loop_->now())) + " ns");
  }
  at_ = at;
  ++generation_;
  if (at != kNever) {
    loop_->push(*this);
  }
}

void EventLoop::push(Timer& t) {
  heap_.push(Entry{t.at_, seq_++, &t, t.generation_});
}

void EventLoop::drop_stale() {
  while (!heap_.empty()) {
    const Entry& e = heap_.top();
    if (e.generation == e.timer->generation_) {
      return;
    }
    heap_.pop();
  }
}

Instant EventLoop::next_event_time() {
  drop_stale();
  return heap_.empty() ? kNever : heap_.top().at;
}

bool EventLoop::step() {
  drop_stale();
  if (heap_.empty()) {
    return false;
  }
  const Entry e = heap_.top();
  heap_.pop();
  if (e.at < now_) {
    throw std::logic_error("event loop: time went backwards");
  }
  now_ = e.at;
  e.timer->at_ = kNever;
  ++e.timer->generation_;
  ++events_run_;
  e.timer->target_->wake(now_);
  return true;
}

std::uint64_t EventLoop::run_until(Instant end) {
  const std::uint64_t before = events_run_;
  while (next_event_time() <= end && step()) {
  }
  if (end > now_ && end != kNever) {
    now_ = end;
  }
  return events_run_ - before;
}

}  // namespace gw
