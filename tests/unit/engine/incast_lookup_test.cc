// The incast stage finds a packet's egress port by its destination: whole-address ports in a
// hash table, prefix ports in profile order, the first match in profile order winning.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "emulator/engine/incast_stage.h"
#include "emulator/engine/profile.h"
#include "tests/unit/engine/sink_for_tests.h"

namespace gw {
namespace {

using testing::udp_packet;
using testing::v4;

struct Out final : StageOutput {
  void emit(Packet&& p) override { emitted.push_back(p); }
  void drop(Packet&& /*p*/, DropCause /*cause*/) override { ++drops; }
  void marked(const Packet& /*p*/) override {}
  std::vector<Packet> emitted;
  int drops = 0;
};

IncastPortSettings port(const std::string& prefix) {
  return IncastPortSettings{parse_prefix(prefix, "t", "$"), BitRate{1'000'000'000}};
}

// Pushes one packet to `dst` and drains the stage; returns the port that sent it (-1: it
// passed straight through).
int port_taken(IncastStage& st, const IpAddress& dst, Instant& now) {
  std::vector<std::uint64_t> before;
  for (const IncastPortStats& s : st.port_stats()) {
    before.push_back(s.packets_out);
  }
  Out out;
  st.push(udp_packet(1000, Ecn::kNotEct, dst), now, out);
  while (st.next_wakeup() != kNever) {
    now = st.next_wakeup();
    st.pull(now, out);
  }
  EXPECT_EQ(out.emitted.size(), 1U);
  for (std::size_t i = 0; i < st.port_stats().size(); ++i) {
    if (st.port_stats()[i].packets_out != before[i]) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

// 600 whole-address ports (a table far larger than its initial size, so that probing and
// growth are exercised): each address reaches its own port, others pass through.
TEST(IncastLookup, EveryWholeAddressReachesItsOwnPort) {
  IncastSettings s;
  s.buffer_bytes = 1 << 20;
  for (int i = 0; i < 600; ++i) {
    s.ports.push_back(port("10.0." + std::to_string(i / 256) + "." + std::to_string(i % 256)));
  }
  IncastStage st(s, 1, "t");
  Instant now = kEpoch;
  for (int i = 0; i < 600; ++i) {
    const auto a = static_cast<std::uint8_t>(i / 256);
    const auto b = static_cast<std::uint8_t>(i % 256);
    ASSERT_EQ(port_taken(st, v4(10, 0, a, b), now), i);
  }
  EXPECT_EQ(port_taken(st, v4(10, 0, 3, 0), now), -1);
  EXPECT_EQ(port_taken(st, v4(198, 18, 0, 2), now), -1);
}

// A duplicated address keeps its first port; a prefix listed before a whole address that it
// covers wins, one listed after it does not.
TEST(IncastLookup, TheFirstMatchInProfileOrderWins) {
  IncastSettings s;
  s.buffer_bytes = 1 << 20;
  s.ports = {port("198.18.0.2"), port("198.18.0.2"), port("198.18.1.0/24"),
             port("198.18.1.7"), port("198.18.0.3"), port("198.18.0.0/24")};
  IncastStage st(s, 1, "t");
  Instant now = kEpoch;
  EXPECT_EQ(port_taken(st, v4(198, 18, 0, 2), now), 0);
  EXPECT_EQ(port_taken(st, v4(198, 18, 1, 7), now), 2);
  EXPECT_EQ(port_taken(st, v4(198, 18, 0, 3), now), 4);
  EXPECT_EQ(port_taken(st, v4(198, 18, 0, 9), now), 5);
  EXPECT_EQ(port_taken(st, v4(198, 18, 2, 1), now), -1);
}

}  // namespace
}  // namespace gw
