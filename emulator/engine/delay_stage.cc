#include "emulator/engine/delay_stage.h"

#include <algorithm>
#include <utility>

#include "core/rate.h"  // u128
#include "emulator/engine/distribution.h"

namespace gw {

std::int64_t netem_jitter_sample(std::uint32_t u, Duration jitter, const std::vector<std::int16_t>& table) {
  const std::int64_t sigma = jitter.count();
  if (sigma == 0) {
    return 0;
  }
  if (!table.empty()) {
    return netem_table_offset(sigma, table[u % table.size()]);
  }
  const std::uint64_t span = 2 * static_cast<std::uint64_t>(sigma);
  const std::uint64_t r = span <= (std::uint64_t{1} << 32)
                              ? u % span
                              : static_cast<std::uint64_t>((static_cast<u128>(u) * span) >> 32);
  return static_cast<std::int64_t>(r) - sigma;
}

DelayStage::Params DelayStage::params_from(const DelaySettings& s) {
  Params p;
  p.delay = std::max(s.delay, Duration{0});
  p.jitter = std::max(s.jitter, Duration{0});
  p.table = s.distribution.values;
  p.policy = s.reorder_policy;
  p.correlation = s.correlation;
  p.reorder_correlation = s.reorder_correlation;
  p.reorder_threshold = scaled_probability(s.reorder_p);
  // tc q_netem.c: a reorder probability without a gap means gap 1; no probability, no reorder.
  p.gap = p.reorder_threshold == 0 ? 0 : std::max<std::uint32_t>(s.reorder_gap, 1);
  p.sigma_q = p.jitter.count() / kNetemDistScale;
  p.sigma_r = p.jitter.count() % kNetemDistScale;
  const std::uint64_t d = p.table.empty() ? 2 * static_cast<std::uint64_t>(p.jitter.count()) : p.table.size();
  if (p.jitter.count() != 0 && d > 0 && d <= UINT32_MAX) {
    p.fast_mod = true;
    p.mod_d = static_cast<std::uint32_t>(d);
    p.mod_m = UINT64_MAX / d + 1;  // wraps to 0 for d = 1, which still gives u % 1 = 0
  }
  return p;
}

// netem_jitter_sample(u, params_.jitter, params_.table), the same value.

DelayStage::DelayStage(const DelaySettings& settings, std::uint64_t seed, const std::string& stream,
                       const std::string& flow_stream, const FlowStreamSettings& flows)
    : params_(params_from(settings)), draws_(fresh(Rng(seed, stream)), seed, flow_stream, flows) {}

DelayStage::Draws DelayStage::fresh(Rng rng) const {
  // init_crandom for each generator, in a fixed order so the stream is reproducible.
  Draws d{rng, {}, {}, 0};
  d.delay_cor = CorrelatedUniform(params_.correlation, d.rng);
  d.reorder_cor = CorrelatedUniform(params_.reorder_correlation, d.rng);
  return d;
}

void DelayStage::set_settings(const DelaySettings& settings) {
  params_ = params_from(settings);
  draws_.for_each([&](Draws& d) {
    d.delay_cor.set_correlation(settings.correlation);
    d.reorder_cor.set_correlation(settings.reorder_correlation);
  });
}

void DelayStage::hold_overtaking(Packet&& p, Instant at, std::uint64_t seq, Instant now) {
  std::uint32_t slot = 0;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.push_back(std::move(p));
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    slots_[slot] = p;
  }
  if (!overtaken_) {
    overtaken_.emplace(params_.jitter);
  }
  if (pending_n_ == kPending) {
    // The oldest pending one goes in now: its bucket was prefetched kPending holds ago.
    const Pending& old = pending_[pending_head_];
    overtaken_->push(old.held, old.now);
    pending_head_ = (pending_head_ + 1) % kPending;
    --pending_n_;
    if (old.held.at == pending_earliest_) {
      pending_earliest_ = kNever;
      for (std::size_t i = 0; i < pending_n_; ++i) {
        pending_earliest_ = std::min(pending_earliest_, pending_[(pending_head_ + i) % kPending].held.at);
      }
    }
  }
  overtaken_->prefetch(at);
  pending_[(pending_head_ + pending_n_) % kPending] = {Held{at, seq, slot}, now};
  ++pending_n_;
  pending_earliest_ = std::min(pending_earliest_, at);
}

void DelayStage::flush_pending() const {
  for (; pending_n_ > 0; --pending_n_) {
    const Pending& p = pending_[pending_head_];
    overtaken_->push(p.held, p.now);
    pending_head_ = (pending_head_ + 1) % kPending;
  }
  pending_head_ = 0;
  pending_earliest_ = kNever;
}

void DelayStage::push(Packet&& p, Instant now, StageOutput& out) {
  Draws& d = draws_of(p);
  if (reorder_now(d)) {
    d.counter = 0;
    p.time = now;
    out.emit(std::move(p));
    return;
  }
  const Instant at = time_to_send(now, d);
  ++d.counter;
  latest_ = std::max(latest_, at);
  // Zero delay and nothing held due first: it leaves now (the pipeline releases what is due
  // before it pushes, so this only skips a round trip through the heap).
  if (at == now && next_wakeup() > now) {
    p.time = now;
    out.emit(std::move(p));
    return;
  }
  hold(std::move(p), at, now);
}

void DelayStage::pull(Instant now, StageOutput& out) {
  release_until(now, [&out](Packet& p) { out.emit(std::move(p)); });
}

}  // namespace gw
