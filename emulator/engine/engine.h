// One direction of a profile, ready to take packets: the default pipeline, one pipeline per
// traffic class (first matching class wins), and the profile's phases applied at their times.
// This is what the DPDK data plane, pcap replay, `profile probe` and the simulator drive.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "emulator/engine/pipeline.h"
#include "emulator/engine/shared_wire.h"
#include "emulator/engine/spec.h"

namespace gw {

enum class Direction : std::uint8_t { kAToB, kBToA };

const char* direction_name(Direction d);
const DirectionSpec& direction_of(const PhaseSpec& p, Direction d);
const DirectionSpec& direction_of(const Profile& p, Direction d);
const DirectionSpec& direction_of(const ClassSpec& c, Direction d);

// f(spec) for every setting direction `d` can run under: the profile's own, each class's, each
// phase's and each phase's classes'.
template <typename F>
void for_each_direction(const Profile& p, Direction d, F&& f) {
  f(direction_of(p, d));
  for (const ClassSpec& c : p.classes) {
    f(direction_of(c, d));
  }
  for (const PhaseSpec& ph : p.phases) {
    f(direction_of(ph, d));
    for (const ClassDirections& c : ph.classes) {
      f(d == Direction::kAToB ? c.a_to_b : c.b_to_a);
    }
  }
}

// Whether some queue stage of direction `d` stamps INT (profile `queue.int`) at some time:
// then the owner gives each packet a telemetry stack (Packet::telemetry).
bool stamps_int(const Profile& p, Direction d);

bool class_matches(const ClassMatch& m, const PacketHeaders& h);

class DirectionEngine {
 public:
  // `lane` > 0: one of several engines sharing the direction's traffic (the emulator's rx
  // queues); each draws from its own streams ("<direction>/queue/<lane>..."), so that two
  // queues never repeat each other's drops. Lane 0 keeps the direction's own streams. With
  // the profile's per-flow streams, a flow draws the same on every lane (flow_streams.h).
  // `wires` (non-null): the bottleneck of each pipeline is the link of that name shared with
  // the other lanes' engines (shared_wire.h); the profile's queue settings must allow it
  // (QueueStage::unshareable).
  DirectionEngine(const Profile& profile, Direction dir, unsigned lane = 0, SharedWires* wires = nullptr);

  void push(Packet&& p, Instant now, PacketSink& sink) {
    if (now < next_phase_ && matches_.empty()) {  // the common case, inline: one pipeline
      default_->push(std::move(p), now, sink);
      return;
    }
    push_classified(std::move(p), now, sink);
  }
  void advance(Instant now, PacketSink& sink);
  Instant next_wakeup() const;
  // Whether a packet pushed now would come straight out untouched: one pipeline (no classes,
  // none retired), no phase to come, and that pipeline passes through (Pipeline::passes_through).
  // The owner may then forward packets itself and count them with passed(), as push() would.
  bool passes_through() const {
    return matches_.empty() && retired_.empty() && next_phase_ == kNever && default_->passes_through();
  }
  void passed(std::uint64_t packets, std::uint64_t bytes) { default_->passed(packets, bytes); }
  // The packet delivered next and when, without releasing it (Pipeline::peek_next): the
  // earliest over the pipelines that can tell, on equal instants the one advance() releases
  // first (default, classes, retired). {} when none can tell. advance(peek_next().at)
  // delivers it first, unless a packet pushed before then is due earlier.
  NextRelease peek_next() const;
  // The packet peek_next() shows gets `handle` instead of its own (the engine never reads
  // handles): for an owner that moves the frame's buffer before its release. No-op when
  // peek_next() shows none.
  void rehandle_next(std::uint64_t handle);
  // Virtual time: run until nothing real is held; returns the last instant reached.
  Instant drain(PacketSink& sink, Instant now);

  // A new profile at run time (SIGHUP, control endpoint). Pipelines of classes that keep
  // their name keep their packets in flight; phases restart from the new profile's list,
  // skipping those already past. Packets a bottleneck already passed on keep the departure
  // and delay computed when they arrived (Pipeline::set_horizon); phases, known in advance,
  // apply exactly at their time.
  void reconfigure(const Profile& profile, Instant now);

  struct ClassView {
    std::string name;  // "default" for the default pipeline
    const Pipeline* pipeline;
  };
  std::vector<ClassView> classes() const;
  PipelineCounters totals() const;
  std::uint64_t held_packets() const;
  // Phases applied so far (index of the one in force, -1 before the first).
  int phase() const { return phase_; }
  const std::string& phase_name() const;

 private:
  void push_classified(Packet&& p, Instant now, PacketSink& sink);
  void apply_phases_until(Instant now, PacketSink& sink);
  void set_horizons();  // tells the pipelines when the next phase comes

  // The streams' name prefix of a class ("" = default); `with_lane`: with this rx queue's
  // part ("/queue/<lane>"), which per-flow streams leave out.
  std::string stream_name(const std::string& cls, bool with_lane) const;
  std::unique_ptr<Pipeline> make_pipeline(const DirectionSpec& spec, const std::string& cls) const;

  void share(Pipeline& p, const std::string& name) {
    if (wires_ != nullptr) {
      p.share_bottleneck(wires_->get(name), lane_ == 0);  // queue 0's engine makes the bursts
      p.share_order(wires_->order(name));
      p.share_held(wires_->held(name), lane_);
    }
  }

  Direction dir_;
  unsigned lane_;
  SharedWires* wires_;
  std::uint64_t seed_;
  // Per-queue or per-flow streams, as the profile said at the start (a reload keeps them).
  FlowStreamSettings streams_;
  std::vector<PhaseSpec> phases_;
  int phase_ = -1;
  Instant next_phase_ = kNever;  // when phases_[phase_ + 1] applies
  std::unique_ptr<Pipeline> default_;
  std::vector<ClassMatch> matches_;
  std::vector<std::string> names_;
  std::vector<std::unique_ptr<Pipeline>> class_pipelines_;
  struct Retired {
    std::string name;
    std::unique_ptr<Pipeline> pipeline;
  };
  std::vector<Retired> retired_;  // classes removed at run time, still releasing packets
};

}  // namespace gw
