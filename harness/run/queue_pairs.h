// How sim and live number queue pairs (RoCE's destination QP in every packet's BTH). A
// connection is a pair: its sending half the even number q, its receiving half q + 1
// (harness/live/endpoints/qp_driver.h opens the receiving half on the first segment for it).
//   from kFirstQp         the simulator's flows and connections, in the order they open; a
//                         live run's collective data connections
//   from kFirstFlowQp     a live run's flows and background flows (harness/live/live_flows.h)
//   from kFirstControlQp  a live run's collective-library signalling (NCCL's slot-free
//                         messages, Traffic::kControl), which the live series labels apart
#pragma once

#include <cstdint>

namespace gw {

constexpr std::uint32_t kFirstQp = 0x100;
constexpr std::uint32_t kFirstFlowQp = 0x8000;
constexpr std::uint32_t kFirstControlQp = 0x10000;

}  // namespace gw
