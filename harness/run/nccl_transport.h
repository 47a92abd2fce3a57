// NCCL's flow control between the collective driver and the network (docs/collectives.md
// "NCCL's buffers"): a step's bytes go out in slots of the connection's buffer, at most
// `steps` slots in flight; each slot that arrives sends a small "slot free" message back on
// the reverse path, and only its arrival lets the sender use the slot again. The slots ride the
// transport as messages of their own (round-robin or split over the connection's QPs), so loss,
// queueing and congestion control act on them and on the credits as they do on any message.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "core/id_window.h"
#include "generators/collectives/nccl.h"
#include "harness/run/collective_driver.h"

namespace gw {

class NcclTransport {
 public:
  NcclTransport(MessageService& net, coll::NcclConfig config);

  // `bytes` of data from rank `src` to rank `dst` on NCCL channel `channel`; `p2p` uses the
  // point-to-point slot size. Returns this layer's id for it (0, 1, 2, ... in call order).
  std::uint64_t send(std::uint32_t src, std::uint32_t dst, std::uint32_t channel, std::uint64_t bytes,
                     bool p2p, Instant now);
  // The network delivered its message `message`: the id of a send that has now fully arrived,
  // if any.
  std::optional<std::uint64_t> delivered(std::uint64_t message, Instant now);

  // Messages sent and not yet delivered (slots and slot-free messages).
  std::uint64_t in_flight() const { return in_flight_messages_; }

  // The network's channel for QP `qp` of NCCL channel `channel` (the slot-free messages use
  // qp == qps_per_connection): every QP its own connection, as NCCL opens them.
  std::uint32_t wire_channel(std::uint32_t channel, std::uint32_t qp) const;

 private:
  using Key = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>;  // src, dst, channel
  struct Slot {
    std::uint64_t send = 0;
    std::uint64_t data_bytes = 0;
  };
  struct Connection {
    Key key;
    std::uint32_t free_slots = 0;
    std::uint32_t next_qp = 0;
    std::deque<Slot> waiting;
  };
  struct InFlight {  // a slot on the wire, maybe in parts (split over QPs)
    std::size_t connection = 0;
    std::uint64_t send = 0;
    std::uint32_t parts_left = 0;
  };
  struct Message {  // the network's message id -> what it carries
    bool credit = false;
    std::size_t connection = 0;
    std::size_t slot = 0;  // into in_flight_ (data)
  };
  struct SendState {
    std::uint64_t slots_left = 0;
  };

  void pump(std::size_t connection, Instant now);
  void track(std::uint64_t message, Message m);

  MessageService* net_;
  coll::NcclConfig config_;
  std::map<Key, std::size_t> connection_of_;
  std::vector<Connection> connections_;
  std::vector<InFlight> in_flight_;
  std::vector<std::size_t> free_in_flight_;
  IdWindow<Message> messages_;  // in flight, by network message id (others' ids are gaps)
  IdWindow<SendState> sends_;   // not yet fully arrived, by this layer's id
  std::uint64_t next_send_ = 0;
  std::uint64_t in_flight_messages_ = 0;
};

}  // namespace gw
