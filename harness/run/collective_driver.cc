#include "harness/run/collective_driver.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <tuple>

#include "harness/run/nccl_transport.h"

namespace gw {

CollectiveDriver::CollectiveDriver(EventLoop& loop, MessageService& net, coll::Placement placement,
                                   std::vector<IterationPlan> plans, coll::LinkModel links,
                                   coll::NcclConfig nccl)
    : net_(&net),
      placement_(std::move(placement)),
      plans_(std::move(plans)),
      links_(std::move(links)),
      nccl_config_(nccl),
      nccl_(nccl.enabled ? std::make_unique<NcclTransport>(net, nccl) : nullptr),
      timer_(loop, *this),
      local_links_(nccl.enabled ? coll::network_bound(links_, nccl) : links_),
      later_timer_(loop, later_target_) {
  // Build every schedule once up front so that an impossible op fails before the run (each
  // distinct op and placement once: a training job repeats the same few many times).
  std::set<std::tuple<int, int, std::uint64_t, std::uint32_t, std::uint64_t, std::uint32_t,
                      std::vector<std::uint32_t>>>
      checked;
  for (const IterationPlan& plan : plans_) {
    for (const WorkItem& item : plan.items) {
      if (!item.is_collective) {
        continue;
      }
      for (const std::uint32_t r : item.group) {
        if (r >= placement_.region.size()) {
          throw coll::CollectiveError{"communicator of \"" + item.name + "\" names rank " +
                                      std::to_string(r) + " of " + std::to_string(placement_.region.size())};
        }
      }
      coll::Placement where = placement_of(item.group);
      const coll::CollectiveSpec& c = item.collective;
      if (c.send_matrix.empty() && !checked
                                        .emplace(static_cast<int>(c.op), static_cast<int>(c.algorithm),
                                                 c.bytes, c.channels, c.chunk_bytes, c.root, where.region)
                                        .second) {
        continue;
      }
      if (c.channels > kChannelsPerComm && item.comm != 0) {
        throw coll::CollectiveError{"\"" + item.name + "\": more than 64 channels on a communicator"};
      }
      (void)coll::step_graph(c, where);
    }
  }
}

coll::Placement CollectiveDriver::placement_of(const std::vector<std::uint32_t>& group) const {
  if (group.empty()) {
    return placement_;
  }
  coll::Placement p;
  p.region.reserve(group.size());
  for (const std::uint32_t r : group) {
    p.region.push_back(placement_.region.at(r));
  }
  return p;
}

double CollectiveDriver::slowdown(std::uint32_t rank) const {
  const std::vector<double>& s = plans_[iteration_].slowdown;
  return rank < s.size() ? s[rank] : 1.0;
}

CollectiveDriver::~CollectiveDriver() = default;

bool CollectiveDriver::settled() const {
  return done() && (nccl_ == nullptr || nccl_->in_flight() == 0);
}

void CollectiveDriver::start(Instant now) {
  begin_iteration(now);
}

void CollectiveDriver::begin_iteration(Instant now) {
  if (done()) {
    return;
  }
  const IterationPlan& plan = plans_[iteration_];
  IterationRecord rec;
  rec.index = static_cast<std::uint32_t>(iteration_);
  rec.start = now;
  iterations_.push_back(rec);
  all_ranks_busy_ = Duration{0};
  rank_busy_.assign(placement_.region.size(), Duration{0});
  item_waiting_.assign(plan.items.size(), 0);
  item_dependents_.assign(plan.items.size(), {});
  items_done_ = 0;
  for (std::size_t i = 0; i < plan.items.size(); ++i) {
    item_waiting_[i] = static_cast<std::uint32_t>(plan.items[i].after.size());
    for (const std::uint32_t a : plan.items[i].after) {
      item_dependents_.at(a).push_back(static_cast<std::uint32_t>(i));
    }
  }
  for (std::size_t i = 0; i < plan.items.size(); ++i) {
    if (item_waiting_[i] == 0) {
      start_item(static_cast<std::uint32_t>(i), now);
    }
  }
  if (plan.items.empty()) {
    iterations_.back().end = now;
    iterations_.back().finished = true;
    ++iteration_;
    begin_iteration(now);
  }
}

void CollectiveDriver::start_item(std::uint32_t item, Instant now) {
  const WorkItem& w = plans_[iteration_].items[item];
  if (w.is_p2p) {
    start_transfer(item, w, now);
  } else if (!w.is_collective) {
    start_compute(item, w, now);
  } else {
    start_collective(item, w, now);
  }
}

void CollectiveDriver::start_transfer(std::uint32_t item, const WorkItem& w, Instant now) {
  TransferRecord rec;
  rec.name = w.name;
  rec.src = w.src;
  rec.dst = w.dst;
  rec.bytes = w.bytes;
  rec.iteration = static_cast<std::uint32_t>(iteration_);
  rec.start = now;
  transfers_.push_back(rec);
  const std::uint64_t id = send(w.src, w.dst, 0, w.bytes, true, now);
  messages_.put(id, MessageRef{item, 0, true, transfers_.size() - 1});
}

// Scales a nominal compute time by a rank's slowdown, to the nanosecond.
static Duration scaled(Duration d, double factor) {
  return factor == 1.0 ? d : Duration{std::llround(static_cast<double>(d.count()) * factor)};
}

void CollectiveDriver::start_compute(std::uint32_t item, const WorkItem& w, Instant now) {
  Duration lasts = w.compute;
  if (!w.group.empty()) {
    // The ranks wait for the slowest; each is busy for its own share.
    double slowest = 0;
    for (const std::uint32_t r : w.group) {
      slowest = std::max(slowest, slowdown(r));
      rank_busy_.at(r) += scaled(w.compute, slowdown(r));
    }
    lasts = scaled(w.compute, slowest);
  } else if (w.rank == WorkItem::kAllRanks) {
    double slowest = 1.0;
    if (!plans_[iteration_].slowdown.empty()) {
      const auto& s = plans_[iteration_].slowdown;
      slowest = *std::max_element(s.begin(), s.end());
    }
    lasts = scaled(w.compute, slowest);
    all_ranks_busy_ += lasts;
  } else {
    lasts = scaled(w.compute, slowdown(w.rank));
    rank_busy_.at(w.rank) += lasts;
  }
  iterations_.back().compute =
      all_ranks_busy_ +
      (rank_busy_.empty() ? Duration{0} : *std::max_element(rank_busy_.begin(), rank_busy_.end()));
  computing_.emplace_back(now + lasts, item);
  std::sort(computing_.begin(), computing_.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second > b.second;
  });
  timer_.arm(computing_.back().first);
}

// The op's α-β predictions (docs/collectives.md): the network and NCCL's window bounds, and
// the propagation alone (β = 0).
void CollectiveDriver::predict(OpRecord& rec, const WorkItem& w, const coll::Placement& placement,
                               const RunningOp& op) const {
  const bool fold = op.folded != nullptr;
  if (nccl_config_.enabled) {
    // Slot rounding from the steps the op sends (a folded ring: its hops between regions).
    const double rounding = fold && op.folded->size() > 0 ? coll::slot_rounding(*op.folded, nccl_config_)
                                                          : coll::slot_rounding(*op.graph, nccl_config_);
    const coll::LinkModel network = coll::network_bound(links_, nccl_config_);
    const coll::LinkModel window = coll::window_bound(links_, nccl_config_, w.collective.channels, rounding);
    rec.predicted_network = coll::predicted_time(w.collective, placement, network, fold);
    rec.predicted_window = coll::predicted_time(w.collective, placement, window, fold);
    rec.predicted = coll::predicted_time(w.collective, placement, coll::both_bounds(network, window), fold);
  } else {
    rec.predicted = coll::predicted_time(w.collective, placement, links_, fold);
    rec.predicted_network = rec.predicted;
  }
  coll::LinkModel latency = links_;
  for (coll::AlphaBeta& m : latency.pair) {
    m.beta_ns_per_byte = 0;
  }
  rec.predicted_propagation = coll::predicted_time(w.collective, placement, latency, fold);
}

void CollectiveDriver::start_collective(std::uint32_t item, const WorkItem& w, Instant now) {
  RunningOp op;
  op.item = item;
  const coll::Placement where = placement_of(w.group);
  op.graph = coll::step_graph(w.collective, where);
  op.group = w.group;
  op.channel_base = w.comm * kChannelsPerComm;
  const bool fold =
      analytic_fabric_ && w.collective.algorithm == coll::Algorithm::kRing && op.graph->ranks() >= 2;
  std::size_t n = op.graph->size();
  OpRecord rec;
  rec.name = w.name;
  rec.spec = w.collective;
  rec.spec.send_matrix.clear();  // not kept per instance
  rec.ranks = op.graph->ranks();
  rec.iteration = static_cast<std::uint32_t>(iteration_);
  rec.start = now;
  if (fold) {
    op.folded = std::make_unique<coll::FoldedRing>(w.collective, where);
  }
  predict(rec, w, where, op);
  if (fold) {
    op.graph.reset();
    n = op.folded->size();
    op.local_end = now;
    for (const coll::FoldedRing::Wait& run : op.folded->local_runs()) {
      op.local_end = std::max(op.local_end, now + local_hops(run.region, run.hops, run.bytes));
    }
  } else {
    op.walk = std::make_unique<coll::GraphWalk>(*op.graph);
  }
  op.steps = n;
  op.wan_at_start = net_->wan_ledger(now);
  op.record = ops_.size();
  ops_.push_back(rec);
  running_.push_back(std::move(op));
  const auto index = static_cast<std::uint32_t>(running_.size() - 1);
  RunningOp& started = running_.back();
  if (started.folded != nullptr) {
    if (n == 0) {  // every hop inside one region
      later(started.local_end, index, kFinish, now);
      return;
    }
    for (const std::uint32_t s : started.folded->roots()) {
      const coll::FoldedRing::Wait wait = started.folded->wait(s);
      later(now + local_hops(wait.region, wait.hops, wait.bytes), index, s, now);
    }
    return;
  }
  if (n == 0) {
    finish_op(running_.back(), now);
    finish_item(item, now);
    return;
  }
  for (const std::uint32_t s : running_[index].graph->roots()) {
    launch(index, s, now);
  }
}

Duration CollectiveDriver::local_hops(std::uint32_t region, std::uint32_t hops, std::uint64_t bytes) const {
  if (hops == 0) {
    return Duration{0};
  }
  const coll::AlphaBeta& m = local_links_.at(region, region);
  const double one = static_cast<double>(m.alpha.count()) + static_cast<double>(bytes) * m.beta_ns_per_byte;
  return Duration{std::llround(one * hops)};
}

void CollectiveDriver::later(Instant at, std::uint32_t op, std::uint32_t step, Instant now) {
  if (at <= now && step != kFinish) {
    launch(op, step, now);
    return;
  }
  later_.push_back(Later{at, later_seq_++, op, step});
  std::push_heap(later_.begin(), later_.end(), std::greater<>());
  later_timer_.arm(later_.front().at);
}

void CollectiveDriver::run_due(Instant now) {
  while (!later_.empty() && later_.front().at <= now) {
    std::pop_heap(later_.begin(), later_.end(), std::greater<>());
    const Later due = later_.back();
    later_.pop_back();
    if (due.step == kFinish) {
      RunningOp& op = running_[due.op];
      finish_op(op, now);
      finish_item(op.item, now);
    } else {
      launch(due.op, due.step, now);
    }
  }
  if (!later_.empty()) {
    later_timer_.arm(later_.front().at);
  }
}

// A hop between regions of a folded ring has arrived: the next hop across waits for the hops
// inside the receiving region first; the op ends when its last hop across has arrived and the
// chains inside regions that follow have run out.
void CollectiveDriver::folded_delivered(std::uint32_t index, std::uint32_t step, Instant now) {
  RunningOp& op = running_[index];
  const coll::FoldedRing& f = *op.folded;
  const coll::FoldedRing::Wait tail = f.tail(step);
  op.local_end = std::max(op.local_end, now + local_hops(tail.region, tail.hops, tail.bytes));
  const std::uint32_t next = f.next(step);
  if (next != coll::FoldedRing::kNone) {
    const coll::FoldedRing::Wait wait = f.wait(next);
    later(now + local_hops(wait.region, wait.hops, wait.bytes), index, next, now);
  }
  if (op.steps_done == op.steps) {
    if (op.local_end <= now) {
      finish_op(op, now);
      finish_item(op.item, now);
    } else {
      later(op.local_end, index, kFinish, now);
    }
  }
}

coll::Step CollectiveDriver::step_of(const RunningOp& op, std::uint32_t step) const {
  return op.folded != nullptr ? op.folded->at(step) : op.graph->at(step);
}

void CollectiveDriver::launch(std::uint32_t op, std::uint32_t step, Instant now) {
  const RunningOp& o = running_[op];
  const coll::Step s = step_of(o, step);
  const std::uint32_t src = o.group.empty() ? s.src : o.group[s.src];
  const std::uint32_t dst = o.group.empty() ? s.dst : o.group[s.dst];
  const std::uint64_t id = send(src, dst, o.channel_base + s.channel, s.bytes, false, now);
  messages_.put(id, MessageRef{op, step, false, 0});
}

std::uint64_t CollectiveDriver::send(std::uint32_t src, std::uint32_t dst, std::uint32_t channel,
                                     std::uint64_t bytes, bool p2p, Instant now) {
  return nccl_ != nullptr ? nccl_->send(src, dst, channel, bytes, p2p, now)
                          : net_->send(src, dst, channel, bytes, Traffic::kData, now);
}

void CollectiveDriver::delivered(std::uint64_t network_message, Instant now) {
  std::uint64_t message = network_message;
  if (nccl_ != nullptr) {
    const std::optional<std::uint64_t> done = nccl_->delivered(network_message, now);
    if (!done) {
      return;
    }
    message = *done;
  }
  const MessageRef* held = messages_.find(message);
  if (held == nullptr) {
    throw std::logic_error("collective driver: a message it never sent");
  }
  if (done()) {
    throw std::logic_error("collective driver: a step delivered after the last iteration");
  }
  const MessageRef ref = *held;
  messages_.erase(message);
  if (ref.p2p) {
    transfers_[ref.transfer].end = now;
    transfers_[ref.transfer].finished = true;
    finish_item(ref.op, now);
    return;
  }
  RunningOp& op = running_[ref.op];
  ++op.steps_done;
  if (op.folded != nullptr) {
    folded_delivered(ref.op, ref.step, now);
    return;
  }
  ready_.clear();
  op.walk->complete(ref.step, ready_);
  for (const std::uint32_t next : ready_) {
    launch(ref.op, next, now);
  }
  if (op.steps_done == op.steps) {
    finish_op(op, now);
    finish_item(op.item, now);
  }
}

void CollectiveDriver::finish_op(RunningOp& op, Instant now) {
  // Every step is done: the schedule and its dependency lists go now rather than at the end of
  // the iteration, which may run many ops (a DDP iteration: one all-reduce per bucket).
  op.walk.reset();
  op.graph.reset();
  op.folded.reset();
  op.group = {};
  OpRecord& rec = ops_[op.record];
  rec.end = now;
  rec.finished = true;
  std::optional<WanLedger> wan = net_->wan_ledger(now);
  if (wan && op.wan_at_start) {
    *wan -= *op.wan_at_start;
  } else {
    wan.reset();
  }
  rec.attribution = attribute_time(
      rec.end - rec.start, ModelTimes{rec.predicted_propagation, rec.predicted_network, rec.predicted}, wan);
}

void CollectiveDriver::wake(Instant now) {
  while (!computing_.empty() && computing_.back().first <= now) {
    const std::uint32_t item = computing_.back().second;
    computing_.pop_back();
    finish_item(item, now);
  }
  if (!computing_.empty()) {
    timer_.arm(computing_.back().first);
  }
}

void CollectiveDriver::finish_item(std::uint32_t item, Instant now) {
  const IterationPlan& plan = plans_[iteration_];
  ++items_done_;
  // In ascending order, as the items are listed (ties between items started at once).
  for (const std::uint32_t i : item_dependents_[item]) {
    if (--item_waiting_[i] == 0) {
      start_item(i, now);
    }
  }
  if (items_done_ == plan.items.size()) {
    iterations_.back().end = now;
    iterations_.back().finished = true;
    running_.clear();
    ++iteration_;
    begin_iteration(now);
  }
}

nlohmann::json add_driver_results(const CollectiveDriver& driver, bool finished_only, SimResult& r) {
  nlohmann::json unfinished = nlohmann::json::array();
  for (const OpRecord& op : driver.ops()) {
    const bool finished = op.finished;
    if (!finished && finished_only) {
      unfinished.push_back({{"name", op.name}, {"iteration", op.iteration}, {"start_ns", ns_of(op.start)}});
      continue;
    }
    CollectiveOpResult c;
    c.name = op.name;
    c.op = std::string(coll::op_name(op.spec.op));
    c.algorithm = std::string(coll::algorithm_name(op.spec.algorithm));
    c.bytes = op.spec.bytes;
    c.ranks = op.ranks;
    c.channels = op.spec.channels;
    c.iteration = op.iteration;
    c.start_ns = ns_of(op.start);
    c.end_ns = finished ? ns_of(op.end) : -1;
    c.predicted_ns = ns_of(op.predicted);
    c.predicted_network_ns = ns_of(op.predicted_network);
    c.predicted_window_ns = op.predicted_window.count() > 0 ? ns_of(op.predicted_window) : -1;
    if (finished) {
      c.attribution = op.attribution;
    }
    c.busbw_factor = coll::busbw_factor(op.spec.op, op.ranks);
    r.collectives.push_back(c);
  }
  for (const TransferRecord& t : driver.transfers()) {
    const bool finished = t.finished;
    if (!finished && finished_only) {
      unfinished.push_back({{"name", t.name}, {"iteration", t.iteration}, {"start_ns", ns_of(t.start)}});
      continue;
    }
    TransferResult tr;
    tr.name = t.name;
    tr.src = t.src;
    tr.dst = t.dst;
    tr.bytes = t.bytes;
    tr.iteration = t.iteration;
    tr.start_ns = ns_of(t.start);
    tr.end_ns = finished ? ns_of(t.end) : -1;
    r.transfers.push_back(tr);
  }
  for (const IterationRecord& it : driver.iterations()) {
    const bool finished = it.finished;
    if (!finished && finished_only) {
      unfinished.push_back({{"iteration", it.index}, {"start_ns", ns_of(it.start)}});
      continue;
    }
    IterationResult i;
    i.index = it.index;
    i.start_ns = ns_of(it.start);
    i.end_ns = finished ? ns_of(it.end) : -1;
    i.compute_ns = ns_of(it.compute);
    i.exposed_comm_ns = finished ? std::max<std::int64_t>(0, i.end_ns - i.start_ns - i.compute_ns) : -1;
    r.iterations.push_back(i);
  }
  return unfinished;
}

}  // namespace gw
