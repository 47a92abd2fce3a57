// Step graphs (step_graph.h): the lazy ring and the built schedule.
#include "generators/collectives/step_graph.h"

#include <algorithm>

#include "generators/collectives/schedule_builder.h"

namespace gw::coll {
namespace {

// build_schedule's schedule with what the driver tracks of it: per step the waits left and the
// steps waiting on it.
class ScheduleGraph final : public StepGraph {
 public:
  explicit ScheduleGraph(Schedule schedule) : schedule_(std::move(schedule)) {
    const std::size_t n = schedule_.steps.size();
    waiting_.resize(n);
    dependents_.resize(n);
    for (std::size_t s = 0; s < n; ++s) {
      Step& step = schedule_.steps[s];
      waiting_[s] = static_cast<std::uint32_t>(step.after.size());
      for (const std::uint32_t d : step.after) {
        dependents_[d].push_back(static_cast<std::uint32_t>(s));
      }
      step.after = {};  // the counts above are all the graph needs of it
    }
  }
  std::uint32_t ranks() const override { return schedule_.ranks; }
  std::uint32_t size() const override { return static_cast<std::uint32_t>(schedule_.steps.size()); }
  Step at(std::uint32_t i) const override { return schedule_.steps[i]; }
  std::vector<std::uint32_t> roots() const override {
    std::vector<std::uint32_t> out;
    for (std::uint32_t s = 0; s < waiting_.size(); ++s) {
      if (waiting_[s] == 0) {
        out.push_back(s);
      }
    }
    return out;
  }
  std::uint32_t waits(std::uint32_t i) const override { return waiting_[i]; }
  void dependents(std::uint32_t i, std::vector<std::uint32_t>& out) const override {
    out.insert(out.end(), dependents_[i].begin(), dependents_[i].end());
  }

 private:
  Schedule schedule_;
  std::vector<std::uint32_t> waiting_;
  std::vector<std::vector<std::uint32_t>> dependents_;
};

// The ring of build_ring (ring.cc), step for step. Per channel c and piece k, a pass of
// reduce-scatter rounds then all-gather rounds (either alone for those ops), each round q
// steps: member i sends to member i+1 (members in region order). Step (round r, member i)
// waits for (r-1, i-1) alone, round 0 of the reduce-scatter (or of a lone all-gather) waits
// for nothing, and the all-gather's round 0 follows the reduce-scatter's last round.
class RingGraph final : public StepGraph {
 public:
  RingGraph(const CollectiveSpec& spec, const Placement& placement) {
    for (const auto& group : detail::ranks_by_region(placement)) {
      members_.insert(members_.end(), group.begin(), group.end());
    }
    q_ = static_cast<std::uint32_t>(members_.size());
    const bool barrier = spec.op == Op::kBarrier;
    bytes_ = barrier ? 0 : spec.bytes;
    channels_ = barrier ? 1 : spec.channels;
    reduce_scatter_ = spec.op != Op::kAllGather;
    all_gather_ = spec.op != Op::kReduceScatter;
    rounds_ = (q_ - 1) * ((reduce_scatter_ ? 1 : 0) + (all_gather_ ? 1 : 0));
    first_pass_.push_back(0);
    for (std::uint32_t c = 0; c < channels_; ++c) {
      pieces_.push_back(detail::ring_pieces(spec, q_, c));
      first_pass_.push_back(first_pass_.back() + pieces_.back());
    }
    const std::uint64_t steps = first_pass_.back() * rounds_ * q_;
    if (steps > 0xFFFFFFFFull) {
      detail::fail(spec, "more than 2^32 steps");
    }
    size_ = static_cast<std::uint32_t>(steps);
  }

  std::uint32_t ranks() const override { return q_; }
  std::uint32_t size() const override { return size_; }

  Step at(std::uint32_t index) const override {
    const Where w = where(index);
    const std::uint32_t c = w.channel;
    // Reduce-scatter round s sends block i-s-1; all-gather round s forwards block i-s.
    const bool rs = reduce_scatter_ && w.round < q_ - 1;
    const std::uint32_t s = rs || !reduce_scatter_ ? w.round : w.round - (q_ - 1);
    const std::uint32_t block = rs ? (w.member + 2 * q_ - s - 1) % q_ : (w.member + q_ - s) % q_;
    const ByteRange whole = part(channel_slice(bytes_, channels_, c), q_, members_[block]);
    const ByteRange piece = part(whole, pieces_[c], w.piece);
    Step step;
    step.src = members_[w.member];
    step.dst = members_[(w.member + 1) % q_];
    step.bytes = piece.bytes;
    step.offset = piece.offset;
    step.channel = c;
    step.combine = rs ? Combine::kReduce : Combine::kCopy;
    return step;
  }

  std::vector<std::uint32_t> roots() const override {
    std::vector<std::uint32_t> out;
    for (std::uint64_t pass = 0; pass < first_pass_.back(); ++pass) {
      for (std::uint32_t i = 0; i < q_; ++i) {
        out.push_back(static_cast<std::uint32_t>(pass * rounds_ * q_ + i));
      }
    }
    return out;
  }

  std::uint32_t waits(std::uint32_t index) const override {
    return index % (std::uint64_t{rounds_} * q_) < q_ ? 0 : 1;
  }
  void dependents(std::uint32_t index, std::vector<std::uint32_t>& out) const override {
    const std::uint64_t in_pass = index % (std::uint64_t{rounds_} * q_);
    const std::uint32_t round = static_cast<std::uint32_t>(in_pass / q_);
    if (round + 1 < rounds_) {
      const std::uint32_t member = static_cast<std::uint32_t>(in_pass % q_);
      const std::uint64_t pass_start = index - in_pass;
      out.push_back(
          static_cast<std::uint32_t>(pass_start + std::uint64_t{round + 1} * q_ + (member + 1) % q_));
    }
  }

 private:
  struct Where {
    std::uint32_t channel;
    std::uint64_t piece;
    std::uint32_t round;
    std::uint32_t member;
  };
  Where where(std::uint32_t index) const {
    const std::uint64_t per_pass = std::uint64_t{rounds_} * q_;
    const std::uint64_t pass = index / per_pass;
    const std::uint64_t in_pass = index % per_pass;
    const auto c = static_cast<std::uint32_t>(std::upper_bound(first_pass_.begin(), first_pass_.end(), pass) -
                                              first_pass_.begin() - 1);
    return Where{c, pass - first_pass_[c], static_cast<std::uint32_t>(in_pass / q_),
                 static_cast<std::uint32_t>(in_pass % q_)};
  }
  // Part i of `range` cut into `parts` as detail::split cuts it, without building the list.
  static ByteRange part(ByteRange range, std::uint64_t parts, std::uint64_t i) {
    const std::uint64_t base = range.bytes / parts;
    const std::uint64_t extra = range.bytes % parts;
    return ByteRange{range.offset + i * base + std::min(i, extra), base + (i < extra ? 1 : 0)};
  }

  std::vector<std::uint32_t> members_;
  std::uint32_t q_ = 0;
  std::uint64_t bytes_ = 0;
  std::uint32_t channels_ = 1;
  bool reduce_scatter_ = true;
  bool all_gather_ = true;
  std::uint32_t rounds_ = 0;               // per pass
  std::vector<std::uint64_t> pieces_;      // per channel
  std::vector<std::uint64_t> first_pass_;  // per channel: its first pass; back(): the passes
  std::uint32_t size_ = 0;
};

}  // namespace

void GraphWalk::complete(std::uint32_t i, std::vector<std::uint32_t>& ready) {
  dependents_.clear();
  graph_->dependents(i, dependents_);
  for (const std::uint32_t d : dependents_) {
    const std::uint32_t waits = graph_->waits(d);
    if (waits <= 1) {
      ready.push_back(d);
      continue;
    }
    auto it = heard_.try_emplace(d, 0).first;
    if (++it->second == waits) {
      heard_.erase(it);
      ready.push_back(d);
    }
  }
}

FoldedRing::FoldedRing(const CollectiveSpec& spec, const Placement& placement) {
  const auto ranks = static_cast<std::uint32_t>(placement.region.size());
  detail::check_spec(spec, ranks);
  if (spec.algorithm != Algorithm::kRing || ranks < 2) {
    detail::fail(spec, "only a ring of two or more ranks folds its hops inside regions");
  }
  ring_ = std::make_unique<RingGraph>(spec, placement);
  for (const auto& group : detail::ranks_by_region(placement)) {
    members_.insert(members_.end(), group.begin(), group.end());
  }
  q_ = static_cast<std::uint32_t>(members_.size());
  for (const std::uint32_t m : members_) {
    region_.push_back(placement.region[m]);
  }
  for (std::uint32_t e = 0; e < q_; ++e) {
    if (region_[e] != region_[(e + 1) % q_]) {
      boundary_.push_back(e);
    }
  }
  const auto b = static_cast<std::uint32_t>(boundary_.size());
  for (std::uint32_t j = 0; j < b; ++j) {
    const std::uint32_t before = boundary_[(j + b - 1) % b];
    inside_.push_back((boundary_[j] + q_ - before - 1) % q_);
  }
  const std::uint32_t channels = spec.op == Op::kBarrier ? 1 : spec.channels;
  for (std::uint32_t c = 0; c < channels; ++c) {
    passes_ += detail::ring_pieces(spec, q_, c);
  }
  rounds_ = static_cast<std::uint32_t>(ring_->size() / (passes_ * q_));
  const std::uint64_t n = passes_ * rounds_ * b;
  if (n > 0xFFFFFFFFull) {
    detail::fail(spec, "more than 2^32 steps between regions");
  }
  size_ = static_cast<std::uint32_t>(n);
}

FoldedRing::~FoldedRing() = default;

std::uint32_t FoldedRing::ranks() const {
  return q_;
}

FoldedRing::Where FoldedRing::where(std::uint32_t i) const {
  const auto b = static_cast<std::uint32_t>(boundary_.size());
  const std::uint64_t per_pass = std::uint64_t{rounds_} * b;
  return Where{i / per_pass, static_cast<std::uint32_t>(i % per_pass / b), static_cast<std::uint32_t>(i % b)};
}

std::uint32_t FoldedRing::index(std::uint64_t pass, std::uint32_t round, std::uint32_t boundary) const {
  const auto b = static_cast<std::uint32_t>(boundary_.size());
  return static_cast<std::uint32_t>((pass * rounds_ + round) * b + boundary);
}

std::uint32_t FoldedRing::ring_index(std::uint32_t i) const {
  const Where w = where(i);
  return static_cast<std::uint32_t>((w.pass * rounds_ + w.round) * q_ + boundary_[w.boundary]);
}

std::uint64_t FoldedRing::pass_bytes(std::uint64_t pass) const {
  return ring_->at(static_cast<std::uint32_t>(pass * rounds_ * q_)).bytes;
}

Step FoldedRing::at(std::uint32_t i) const {
  return ring_->at(ring_index(i));
}

FoldedRing::Wait FoldedRing::wait(std::uint32_t i) const {
  const Where w = where(i);
  const auto b = static_cast<std::uint32_t>(boundary_.size());
  const std::uint32_t h = inside_[w.boundary];
  Wait out;
  out.region = region_[boundary_[w.boundary]];
  out.bytes = pass_bytes(w.pass);
  if (w.round >= h + 1) {
    out.after = index(w.pass, w.round - h - 1, (w.boundary + b - 1) % b);
    out.hops = h;
  } else {
    out.hops = w.round;
  }
  return out;
}

std::vector<std::uint32_t> FoldedRing::roots() const {
  std::vector<std::uint32_t> out;
  if (boundary_.empty()) {
    return out;
  }
  const std::uint32_t most = std::min(*std::max_element(inside_.begin(), inside_.end()), rounds_ - 1);
  for (std::uint64_t pass = 0; pass < passes_; ++pass) {
    for (std::uint32_t r = 0; r <= most; ++r) {
      for (std::uint32_t j = 0; j < boundary_.size(); ++j) {
        if (r <= inside_[j]) {
          out.push_back(index(pass, r, j));
        }
      }
    }
  }
  return out;
}

std::uint32_t FoldedRing::next(std::uint32_t i) const {
  const Where w = where(i);
  const auto b = static_cast<std::uint32_t>(boundary_.size());
  const std::uint32_t j = (w.boundary + 1) % b;
  const std::uint64_t round = std::uint64_t{w.round} + inside_[j] + 1;
  return round < rounds_ ? index(w.pass, static_cast<std::uint32_t>(round), j) : kNone;
}

FoldedRing::Wait FoldedRing::tail(std::uint32_t i) const {
  const Where w = where(i);
  const auto b = static_cast<std::uint32_t>(boundary_.size());
  Wait out;
  out.after = i;
  out.hops = std::min(inside_[(w.boundary + 1) % b], rounds_ - 1 - w.round);
  out.region = region_[(boundary_[w.boundary] + 1) % q_];
  out.bytes = pass_bytes(w.pass);
  return out;
}

std::vector<FoldedRing::Wait> FoldedRing::local_runs() const {
  std::vector<Wait> out;
  for (std::uint64_t pass = 0; pass < passes_; ++pass) {
    if (boundary_.empty()) {
      out.push_back(Wait{kNone, rounds_, region_[0], pass_bytes(pass)});
    }
    for (std::size_t j = 0; j < boundary_.size(); ++j) {
      if (inside_[j] >= rounds_) {
        out.push_back(Wait{kNone, rounds_, region_[boundary_[j]], pass_bytes(pass)});
      }
    }
  }
  return out;
}

std::unique_ptr<StepGraph> schedule_graph(Schedule schedule) {
  return std::make_unique<ScheduleGraph>(std::move(schedule));
}

std::unique_ptr<StepGraph> step_graph(const CollectiveSpec& spec, const Placement& placement) {
  const auto ranks = static_cast<std::uint32_t>(placement.region.size());
  if (spec.algorithm == Algorithm::kRing && ranks >= 2) {
    detail::check_spec(spec, ranks);
    return std::make_unique<RingGraph>(spec, placement);
  }
  return schedule_graph(build_schedule(spec, placement));
}

}  // namespace gw::coll
