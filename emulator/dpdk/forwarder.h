// The inline emulator's data plane: lanes (a_to_b: rx port A -> engine -> tx port B, and
// b_to_a; one of each per rx queue, `queues`), each in the shape of DPDK's l2fwd loop:
//   advance the engine to now -> tx burst what is due (CE and bit errors applied to the mbuf
//   bytes, INT entries inserted, duplicates as private mbuf copies; drops freed) -> rx burst ->
//   read the TSC (converted to the engine's Instant) -> parse headers -> engine -> nap or not.
// The lanes are spread over the calling (main) lcore and the worker lcores (EAL `-l`) by
// lane_layout() below; one lcore runs both directions of one queue, two run one direction
// each. Each lane's engine, sink and counters are touched by its lcore only; the mbuf pool
// (duplicates' and copies' mbufs) is safe from several lcores.
// It never prints: it returns the counters (stats.h) and publishes them to an Exchange
// (exchange.h) every publish interval; it takes new profiles from there too.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "core/time.h"
#include "emulator/dpdk/stats.h"
#include "emulator/engine/spec.h"

struct rte_mempool;

namespace gw {

class Exchange;
class CaptureRing;

// How lanes are spread over lcores (lane_layout()).
enum class LaneLayout : std::uint8_t {
  // By queue: an lcore runs both directions of its queues. Balances the load whatever the
  // traffic's direction, but with several lcores each direction's shared bottleneck
  // (shared_wire.h) is claimed from several lcores, a cache line moving between them per frame.
  kQueues,
  // By direction: half the lcores run a_to_b's queues, half b_to_a's. With two lcores a
  // direction's shared bottleneck stays on one lcore (no line moves), but traffic that is
  // heavier one way loads one half only.
  kDirections,
};

struct ForwarderOptions {
  std::uint16_t port_a = 0;  // faces side A: its rx feeds a_to_b, its tx sends b_to_a
  std::uint16_t port_b = 1;
  rte_mempool* pool = nullptr;  // for the private copies of duplicated frames and held copies
  // Per direction, room for this many small frames (<= 128 bytes) held as copies, their mbufs
  // freed on entry (frame_store.h); 0 = every frame is held in its mbuf.
  std::size_t copy_slots = 0;
  Duration duration{0};  // stop by itself after this long; 0 = only on `stop`
  // After stop: rx ends, what is held keeps being sent at its release time for up to this
  // long; what is still held then is freed and counted as DropCause::kShutdown.
  Duration drain{std::chrono::milliseconds(500)};
  // When nothing was received, sleep up to this long before polling again (0 = busy poll),
  // but wake an estimate of the sleep's own lateness before the next release (forwarder.cc,
  // IdleNap), then poll until it is due. A frame arriving meanwhile waits at most this long
  // (plus the kernel's wakeup latency) in the rx ring; releases are not delayed by it.
  // Sleeping while holding matters on a shared machine: a thread that busy-polls through a
  // 20 ms delay uses up its CFS share and is then preempted for milliseconds.
  Duration idle_sleep{std::chrono::microseconds(100)};
  // SCHED_FIFO priority (1-99) for the forwarding lcores' threads, 0 = leave them as they are.
  // With naps (idle_sleep > 0) a real-time lcore wakes on its timer without waiting for a CPU
  // behind other processes; busy-polling at real-time priority is throttled by the kernel
  // (sched_rt_runtime_us: 95 % of each second) and starves the CPU's other work.
  int rt_priority = 0;
  // Rx and tx queue pairs per port (EthPort): one lane per direction and queue, each with its
  // own engine drawing from its own streams (DirectionEngine's `lane`).
  std::uint16_t queues = 1;
  LaneLayout layout = LaneLayout::kQueues;  // how lanes are spread over the lcores
  // The EAL worker lcores (besides the calling one) the lanes are spread over; none = the
  // calling lcore runs every lane.
  std::vector<unsigned> worker_lcores;
  // Where counters are published every publish_interval and new profiles come from; null = none.
  Exchange* exchange = nullptr;
  Duration publish_interval{std::chrono::milliseconds(100)};
  // Captures (capture.h), null = none: what each port received and what it sent.
  CaptureRing* capture_a_in = nullptr;
  CaptureRing* capture_a_out = nullptr;
  CaptureRing* capture_b_in = nullptr;
  CaptureRing* capture_b_out = nullptr;
  // Frames with this DSCP carry an INT-MD header after TCP/UDP (int_stamp.h); the engine's
  // queue stage telemetry (profile `queue.int`) is written into them.
  std::uint8_t int_dscp = 0x17;
};

// Which lcore (0 = the calling one, i = worker_lcores[i - 1]) runs each lane, lanes in the order
// a_to_b queue 0, b_to_a queue 0, a_to_b queue 1, ...
// kQueues: with at least as many queues as lcores, lcore i runs both directions of queues i,
// i + lcores, ... (a queue's two lanes share an lcore; a flow's ACKs are hashed on the other
// port, so may be on another); with fewer, lane j runs on lcore j mod lcores (one queue on two
// lcores: a_to_b on the calling one, b_to_a on the worker).
// kDirections: a_to_b's queue k runs on lcore k mod h, b_to_a's on lcore h + k mod (lcores - h),
// h = ceil(lcores / 2) (one lcore: both on it). With one queue both layouts are the same.
// Lcores past the lane count run nothing.
std::vector<unsigned> lane_layout(std::uint16_t queues, unsigned lcores,
                                  LaneLayout how = LaneLayout::kQueues);

// With `queues` > 1 each queue's lanes run their own engines. A direction's bottleneck (rate,
// queue) is then one link their engines share (shared_wire.h), which needs the settings
// QueueStage::unshareable() allows; a stage whose capacity would otherwise be counted per queue
// (limit_packets, incast, slot) is refused. InputError(file, the JSON path of the first such
// setting, why). Per-packet stages (loss, duplicate, corrupt, delay) are fine. Nothing to check
// with one queue.
void check_queues_can_run(const Profile& profile, std::uint16_t queues, const std::string& file);

// Runs until `stop` becomes true or the duration has passed, then drains (above). `stop` is
// only read: a signal handler may set it.
EmuStats run_forwarder(const Profile& profile, const ForwarderOptions& o, const std::atomic<bool>& stop);

}  // namespace gw
