// NCCL's own limits on a network connection (docs/collectives.md "NCCL's buffers"): each
// channel's connection between two ranks has a staging buffer of `buffsize` bytes cut into
// `steps` slots; the sender may fill a slot only after the receiver has said the slot is free
// (NCCL's net transport: the receiver posts a buffer and writes its address into the sender's
// FIFO). So a channel moves at most one buffer per round trip, whatever the congestion window
// allows. Values and defaults are NCCL 2.x's (src/include/device.h, src/init.cc, docs "Environment
// Variables"); each field names the variable it stands for.
#pragma once

#include <cstdint>
#include <string_view>

#include "generators/collectives/collective.h"

namespace gw::coll {

class StepGraph;
class FoldedRing;

// NCCL_PROTO. The wire carries more than the data: LL sends each 8 bytes of data with an 8-byte
// flag (16-byte lines), LL128 a 128-byte line of which 120 bytes are data, Simple the data alone.
enum class Protocol : std::uint8_t { kSimple, kLl128, kLl };

std::string_view protocol_name(Protocol p);  // "simple", "ll128", "ll"
bool parse_protocol(std::string_view name, Protocol& out);
// Data bytes per wire byte: 1, 120/128, 8/16.
double protocol_efficiency(Protocol p);
// NCCL's default buffer per connection for the protocol, in wire bytes: Simple 4 MiB
// (DEFAULT_BUFFSIZE, 1 << 22), LL 8 lines x 512 threads x 8 steps x 16 B = 512 KiB, LL128
// 120 elements x 640 threads x 8 steps x 8 B = 4,915,200 B.
std::uint64_t default_buffsize(Protocol p);

struct NcclConfig {
  // false: no NCCL buffers; each step is one message limited by the transport alone (an ideal
  // collective library).
  bool enabled = true;
  Protocol protocol = Protocol::kSimple;  // NCCL_PROTO
  std::uint64_t buffsize = 0;             // NCCL_BUFFSIZE, wire bytes; 0: the protocol's default
  std::uint32_t steps = 8;                // NCCL_STEPS (a compile-time constant in NCCL)
  // NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS: collectives without their own `channels`; 0 = keep
  // the workload's.
  std::uint32_t channels = 0;
  std::uint32_t qps_per_connection = 1;  // NCCL_IB_QPS_PER_CONNECTION
  // NCCL_IB_SPLIT_DATA_ON_QPS: true cuts each slot across the QPs; false (NCCL >= 2.20's
  // default) sends whole slots round-robin over them.
  bool split_data_on_qps = false;
  // NCCL_P2P_NET_CHUNKSIZE: the slot of point-to-point send/recv (pipeline activations), so
  // their window is steps x this.
  std::uint64_t p2p_chunk_bytes = 128 * 1024;
  // Bytes of the receiver's "slot free" message on the reverse path (one FIFO entry).
  std::uint32_t credit_bytes = 64;

  std::uint64_t buffer_wire_bytes() const { return buffsize != 0 ? buffsize : default_buffsize(protocol); }
  // Data bytes one slot of a collective holds, and of a point-to-point transfer.
  std::uint64_t slot_data_bytes() const;
  std::uint64_t p2p_slot_data_bytes() const;
  // Data bytes in flight per connection at most: steps slots.
  double window_data_bytes() const { return static_cast<double>(slot_data_bytes()) * steps; }
};

// The two bounds of an op as α-β models (docs/collectives.md "NCCL's buffers"), α unchanged:
// - the network: each pair's β divided by the protocol's efficiency (the wire carries more
//   bytes than the data);
// - NCCL's window: one window per round trip on each of the op's `channels` connections,
//   β = RTT / (channels x window data bytes) x `slot_rounding`, each pair's RTT its `rtt` (2·α
//   when 0). A step smaller than a slot still takes a whole slot, so an op whose steps are
//   small moves fewer bytes per window: `slot_rounding` is the op's bytes in whole slots over
//   its bytes (slot_rounding()), 1 when every step fills its slots;
// - both: per pair the larger β of the two (what the op can do at best).
LinkModel network_bound(const LinkModel& links, const NcclConfig& nccl);
LinkModel window_bound(const LinkModel& links, const NcclConfig& nccl, std::uint32_t channels,
                       double slot_rounding = 1.0);
// Σ over the schedule's steps of ⌈bytes / slot⌉ x slot, over Σ bytes (1 for an empty schedule).
double slot_rounding(const Schedule& schedule, const NcclConfig& nccl);
double slot_rounding(const StepGraph& graph, const NcclConfig& nccl);
// A folded ring's hops between regions (their sizes are its blocks', as every hop's are).
double slot_rounding(const FoldedRing& ring, const NcclConfig& nccl);
LinkModel both_bounds(const LinkModel& network, const LinkModel& window);

}  // namespace gw::coll
