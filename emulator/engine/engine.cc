#include "emulator/engine/engine.h"

#include <algorithm>

#include "emulator/engine/profile.h"

namespace gw {
namespace {

bool any_prefix(const std::vector<Prefix>& ps, const IpAddress& a) {
  return ps.empty() ||
         std::any_of(ps.begin(), ps.end(), [&](const Prefix& p) { return prefix_contains(p, a); });
}

template <typename T>
bool any_equal(const std::vector<T>& vs, T v) {
  return vs.empty() || std::find(vs.begin(), vs.end(), v) != vs.end();
}

bool any_port(const std::vector<PortRange>& rs, std::uint16_t port) {
  return rs.empty() ||
         std::any_of(rs.begin(), rs.end(), [&](const PortRange& r) { return r.contains(port); });
}

std::uint64_t seed_of(const Profile& p, Direction d) {
  return d == Direction::kBToA && p.seed_b_to_a ? *p.seed_b_to_a : p.seed;
}

}  // namespace

const char* direction_name(Direction d) {
  return d == Direction::kAToB ? "a_to_b" : "b_to_a";
}

const DirectionSpec& direction_of(const PhaseSpec& p, Direction d) {
  return d == Direction::kAToB ? p.a_to_b : p.b_to_a;
}
const DirectionSpec& direction_of(const Profile& p, Direction d) {
  return d == Direction::kAToB ? p.a_to_b : p.b_to_a;
}
const DirectionSpec& direction_of(const ClassSpec& c, Direction d) {
  return d == Direction::kAToB ? c.a_to_b : c.b_to_a;
}

bool stamps_int(const Profile& p, Direction d) {
  bool any = false;
  for_each_direction(
      p, d, [&any](const DirectionSpec& s) { any = any || (s.queue && s.queue->telemetry.enabled); });
  return any;
}

bool class_matches(const ClassMatch& m, const PacketHeaders& h) {
  const bool needs_l3 = !m.src.empty() || !m.dst.empty() || m.protocol || m.dscp || m.ecn;
  if (needs_l3 && !h.valid_l3) {
    return false;
  }
  const bool needs_l4 = !m.src_ports.empty() || !m.dst_ports.empty();
  if (needs_l4 && !h.valid_l4) {
    return false;
  }
  if (!any_prefix(m.src, h.src) || !any_prefix(m.dst, h.dst)) {
    return false;
  }
  if ((m.protocol && *m.protocol != h.protocol) || (m.dscp && *m.dscp != h.dscp) ||
      (m.ecn && *m.ecn != h.ecn)) {
    return false;
  }
  if (!any_port(m.src_ports, h.src_port) || !any_port(m.dst_ports, h.dst_port)) {
    return false;
  }
  if (m.roce && *m.roce != h.roce) {
    return false;
  }
  if ((!m.roce_opcodes.empty() || m.roce_dest_qp) && !h.roce) {
    return false;
  }
  if (!any_equal(m.roce_opcodes, h.roce_opcode)) {
    return false;
  }
  return !(m.roce_dest_qp && *m.roce_dest_qp != h.roce_dest_qp);
}

std::string DirectionEngine::stream_name(const std::string& cls, bool with_lane) const {
  return std::string(direction_name(dir_)) +
         (lane_ == 0 || !with_lane ? "" : "/queue/" + std::to_string(lane_)) +
         (cls.empty() ? "" : "/class/" + cls);
}

std::unique_ptr<Pipeline> DirectionEngine::make_pipeline(const DirectionSpec& spec,
                                                         const std::string& cls) const {
  return std::make_unique<Pipeline>(spec, seed_, stream_name(cls, true), stream_name(cls, false), streams_);
}

DirectionEngine::DirectionEngine(const Profile& profile, Direction dir, unsigned lane, SharedWires* wires)
    : dir_(dir),
      lane_(lane),
      wires_(wires),
      seed_(seed_of(profile, dir)),
      streams_(profile.streams),
      phases_(profile.phases) {
  default_ = make_pipeline(direction_of(profile, dir), "");
  share(*default_, "default");
  for (const ClassSpec& c : profile.classes) {
    matches_.push_back(c.match);
    names_.push_back(c.name);
    class_pipelines_.push_back(make_pipeline(direction_of(c, dir), c.name));
    share(*class_pipelines_.back(), "class/" + c.name);
  }
  set_horizons();
}

void DirectionEngine::set_horizons() {
  next_phase_ = phase_ + 1 < static_cast<int>(phases_.size())
                    ? kEpoch + phases_[static_cast<std::size_t>(phase_ + 1)].at
                    : kNever;
  default_->set_horizon(next_phase_);
  for (auto& c : class_pipelines_) {
    c->set_horizon(next_phase_);
  }
}

void DirectionEngine::apply_phases_until(Instant now, PacketSink& sink) {
  while (phase_ + 1 < static_cast<int>(phases_.size()) && kEpoch + phases_[phase_ + 1].at <= now) {
    const PhaseSpec& next = phases_[phase_ + 1];
    const Instant at = kEpoch + next.at;
    // Everything due before the change happens under the old settings.
    default_->advance(at - Duration{1}, sink);
    default_->reconfigure(direction_of(next, dir_));
    for (std::size_t i = 0; i < class_pipelines_.size() && i < next.classes.size(); ++i) {
      class_pipelines_[i]->advance(at - Duration{1}, sink);
      const ClassDirections& c = next.classes[i];
      class_pipelines_[i]->reconfigure(dir_ == Direction::kAToB ? c.a_to_b : c.b_to_a);
    }
    ++phase_;
    set_horizons();
  }
}

void DirectionEngine::push_classified(Packet&& p, Instant now, PacketSink& sink) {
  if (now >= next_phase_) {
    apply_phases_until(now, sink);
  }
  for (std::size_t i = 0; i < matches_.size(); ++i) {
    if (class_matches(matches_[i], p.headers)) {
      class_pipelines_[i]->push(std::move(p), now, sink);
      return;
    }
  }
  default_->push(std::move(p), now, sink);
}

void DirectionEngine::advance(Instant now, PacketSink& sink) {
  if (now >= next_phase_) {
    apply_phases_until(now, sink);
  }
  default_->advance(now, sink);
  for (auto& c : class_pipelines_) {
    c->advance(now, sink);
  }
  for (auto& r : retired_) {
    r.pipeline->advance(now, sink);
  }
}

Instant DirectionEngine::next_wakeup() const {
  Instant t = default_->next_wakeup();
  for (const auto& c : class_pipelines_) {
    t = std::min(t, c->next_wakeup());
  }
  for (const auto& r : retired_) {
    t = std::min(t, r.pipeline->next_wakeup());
  }
  // A phase change is only an event while something is in flight (an idle link has nothing
  // to release); push() and advance() apply due phases first anyway.
  if (phase_ + 1 < static_cast<int>(phases_.size()) && held_packets() > 0) {
    t = std::min(t, kEpoch + phases_[phase_ + 1].at);
  }
  return t;
}

NextRelease DirectionEngine::peek_next() const {
  NextRelease best = default_->peek_next();
  const auto consider = [&best](const Pipeline& pl) {
    const NextRelease n = pl.peek_next();
    if (n.packet != nullptr && (best.packet == nullptr || n.at < best.at)) {
      best = n;
    }
  };
  for (const auto& c : class_pipelines_) {
    consider(*c);
  }
  for (const auto& r : retired_) {
    consider(*r.pipeline);
  }
  return best;
}

void DirectionEngine::rehandle_next(std::uint64_t handle) {
  // The record is one of this engine's own (a pipeline's delay stage), not a const object:
  // peek_next() only hands it out read-only.
  if (const NextRelease n = peek_next(); n.packet != nullptr) {
    const_cast<Packet*>(n.packet)->handle = handle;
  }
}

Instant DirectionEngine::drain(PacketSink& sink, Instant now) {
  Instant last = now;
  while (held_packets() > 0) {
    const Instant t = next_wakeup();
    if (t == kNever) {
      break;
    }
    advance(t, sink);
    last = t;
  }
  return last;
}

void DirectionEngine::reconfigure(const Profile& profile, Instant now) {
  seed_ = seed_of(profile, dir_);
  default_->reconfigure(direction_of(profile, dir_));
  std::vector<std::unique_ptr<Pipeline>> kept;
  for (const ClassSpec& c : profile.classes) {
    const auto it = std::find(names_.begin(), names_.end(), c.name);
    if (it != names_.end() && class_pipelines_[static_cast<std::size_t>(it - names_.begin())]) {
      auto& pl = class_pipelines_[static_cast<std::size_t>(it - names_.begin())];
      pl->reconfigure(direction_of(c, dir_));
      kept.push_back(std::move(pl));
    } else {
      kept.push_back(make_pipeline(direction_of(c, dir_), c.name));
      share(*kept.back(), "class/" + c.name);
    }
  }
  // Classes that disappeared stop taking packets but release what they hold as it comes due.
  for (auto& pl : class_pipelines_) {
    if (pl && pl->held_packets() > 0) {
      pl->retire_from_sharing();
      retired_.push_back({"retired", std::move(pl)});
    }
  }
  class_pipelines_ = std::move(kept);
  matches_.clear();
  names_.clear();
  for (const ClassSpec& c : profile.classes) {
    matches_.push_back(c.match);
    names_.push_back(c.name);
  }
  phases_ = profile.phases;
  phase_ = -1;
  while (phase_ + 1 < static_cast<int>(phases_.size()) && kEpoch + phases_[phase_ + 1].at <= now) {
    ++phase_;
  }
  if (phase_ >= 0) {
    const PhaseSpec& ph = phases_[static_cast<std::size_t>(phase_)];
    default_->reconfigure(direction_of(ph, dir_));
    for (std::size_t i = 0; i < class_pipelines_.size() && i < ph.classes.size(); ++i) {
      class_pipelines_[i]->reconfigure(dir_ == Direction::kAToB ? ph.classes[i].a_to_b
                                                                : ph.classes[i].b_to_a);
    }
  }
  for (auto& r : retired_) {
    r.pipeline->set_horizon(kNever);  // no phase applies to them any more
  }
  set_horizons();
}

std::vector<DirectionEngine::ClassView> DirectionEngine::classes() const {
  std::vector<ClassView> out{{"default", default_.get()}};
  for (std::size_t i = 0; i < names_.size(); ++i) {
    out.push_back({names_[i], class_pipelines_[i].get()});
  }
  for (const auto& r : retired_) {
    out.push_back({r.name, r.pipeline.get()});
  }
  return out;
}

PipelineCounters DirectionEngine::totals() const {
  PipelineCounters t;
  for (const auto& c : classes()) {
    const PipelineCounters& k = c.pipeline->counters();
    t.packets_in += k.packets_in;
    t.bytes_in += k.bytes_in;
    t.delivered += k.delivered;
    t.bytes_delivered += k.bytes_delivered;
    for (std::size_t i = 0; i < t.dropped.size(); ++i) {
      t.dropped[i] += k.dropped[i];
    }
    t.duplicated += k.duplicated;
    t.corrupted += k.corrupted;
    t.marked_ce += k.marked_ce;
    t.reordered += k.reordered;
    t.synthetic_in += k.synthetic_in;
    t.synthetic_dropped += k.synthetic_dropped;
  }
  return t;
}

std::uint64_t DirectionEngine::held_packets() const {
  std::uint64_t n = 0;
  for (const auto& c : classes()) {
    n += c.pipeline->held_packets();
  }
  return n;
}

const std::string& DirectionEngine::phase_name() const {
  static const std::string kBase = "base";
  return phase_ < 0 ? kBase : phases_[static_cast<std::size_t>(phase_)].name;
}

}  // namespace gw
