// Offline impairment of pcap captures (see docs/guide/replay.md):
//   gradwall replay IN.pcap OUT.pcap --profile FILE [--direction a_to_b|b_to_a] [--seed S]
//
// Every record of IN (Ethernet only) enters one direction of the profile's engine at its
// capture time, relative to the first record; every packet the engine delivers is written to
// OUT at its release time (first record's time + release instant), with the engine's
// modifications applied to its bytes: CE marks (apply_ce), bit errors (flip_bit), and
// duplicate copies written again. Records are in release-time order, ties in delivery order.
// Dropped packets are not written. Timestamps in OUT have nanosecond precision (a pcap with
// the nanosecond magic), whatever the precision of IN.
//
// OUT is written to a temporary file next to it and renamed only when the whole capture was
// replayed, so an error never leaves a partial OUT behind (an existing OUT stays as it was).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "core/time.h"
#include "emulator/engine/engine.h"
#include "emulator/engine/packet.h"
#include "emulator/engine/spec.h"
#include "emulator/engine/summary.h"

namespace gw {

struct ReplayOptions {
  std::string input;    // IN: a pcap (not pcapng) with link type Ethernet (DLT_EN10MB)
  std::string output;   // OUT
  std::string profile;  // profile file; read by replay(const ReplayOptions&)
  Direction direction = Direction::kAToB;
  std::optional<std::uint64_t> seed;  // overrides the profile's seed
};

struct ReplaySummary {
  // Counters, one-way delay and queue percentiles, goodput: the same summary (and printer)
  // as `profile probe`. Delays are release - arrival of the records written.
  ImpairmentSummary impairment;

  // Records IN holds cut by its snapshot length (caplen < len): allowed; the engine sees the
  // wire length, OUT gets the captured bytes and keeps `len`.
  std::uint64_t snapshot_truncated = 0;
  // Of the corrupted packets, those whose bit fell in the part a snapshot length cut off:
  // counted as corrupted, but the bytes written are unchanged.
  std::uint64_t corrupt_beyond_capture = 0;
  // Records whose capture time is earlier than the record before (merged captures): they
  // enter the engine at the time of the latest record so far, as time never goes back.
  std::uint64_t input_time_went_back = 0;
  // Idle gaps shortened (replay.cc: with cross traffic in the profile, a gap longer than twice
  // the settling time with nothing of the capture in flight), and the time cut from them.
  std::uint64_t gaps_shortened = 0;
  Duration idle_skipped{0};
};

// Replays o.input into o.output through direction o.direction of the profile in o.profile.
// Throws InputError for a bad profile, an unreadable, non-Ethernet or truncated IN (naming
// the file and the record: "in.pcap: record 12: truncated dump file; ..."), and
// EnvironmentError when OUT cannot be written.
ReplaySummary replay(const ReplayOptions& o);

// The same with a profile already loaded (o.profile is not read).
ReplaySummary replay(const Profile& profile, const ReplayOptions& o);

}  // namespace gw
