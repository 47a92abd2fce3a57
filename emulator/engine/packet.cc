#include "emulator/engine/packet.h"

namespace gw {

const char* drop_cause_name(DropCause c) {
  switch (c) {
    case DropCause::kLoss:
      return "loss";
    case DropCause::kLimit:
      return "limit";
    case DropCause::kQueuePackets:
      return "queue_packets";
    case DropCause::kQueueBytes:
      return "queue_bytes";
    case DropCause::kQueueTime:
      return "queue_time";
    case DropCause::kAqm:
      return "aqm";
    case DropCause::kIncastBuffer:
      return "incast_buffer";
    case DropCause::kShutdown:
      return "shutdown";
    case DropCause::kCount:
      break;
  }
  return "unknown";
}

}  // namespace gw
