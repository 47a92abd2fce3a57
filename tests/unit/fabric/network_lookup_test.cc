// The network finds a packet's destination host from its address per packet (a flat table
// built from the address map): every host's own address leads back to it, other addresses to
// none.
#include <gtest/gtest.h>

#include <utility>

#include "emulator/engine/netem.h"
#include "emulator/fabric/network.h"
#include "tests/unit/engine/sink_for_tests.h"

namespace gw::fabric {
namespace {

struct Nothing : Receiver {
  void receive(Instant /*now*/, Packet&& /*p*/) override {}
  void dropped(Instant /*now*/, Packet&& /*p*/, DropCause /*cause*/, const std::string& /*hop*/) override {}
};

RegionSpec region(const std::string& name, std::uint32_t hosts) {
  RegionSpec r;
  r.name = name;
  r.hosts = hosts;
  r.nic_rate = BitRate{10'000'000'000};
  return r;
}

using gw::testing::v4;

// Every address is distinct (10.R.0.1 .. 10.R.4.0 for 1,024 hosts: index 511 once shared
// index 255's address); a relay POP has none.
TEST(NetworkLookup, EveryHostAddressLeadsBackToItsHost) {
  EventLoop loop;
  Nothing rx;
  TopologySpec t;
  t.regions = {region("a", 1024), region("pop", 0), region("b", 3)};
  for (const auto& [x, y] : {std::pair{"a", "pop"}, std::pair{"pop", "b"}}) {
    WanLinkSpec w;
    w.a = x;
    w.b = y;
    w.profile.a_to_b = netem_to_direction(split_args("delay 1ms")).dir;
    w.profile.b_to_a = w.profile.a_to_b;
    t.wan.push_back(w);
  }
  Network net(loop, t, 1, rx);
  for (std::uint32_t r : {0U, 2U}) {
    for (std::uint32_t i = 0; i < net.region(r).hosts; ++i) {
      HostId got{99, 99};
      ASSERT_TRUE(net.host_of(net.address(HostId{r, i}), got));
      EXPECT_EQ(got, (HostId{r, i}));
    }
  }
  HostId none;
  EXPECT_FALSE(net.host_of(v4(10, 0, 0, 0), none));    // index -1
  EXPECT_FALSE(net.host_of(v4(10, 2, 0, 4), none));    // region b has 3 hosts
  EXPECT_FALSE(net.host_of(v4(10, 1, 0, 1), none));    // the POP has none
  EXPECT_FALSE(net.host_of(v4(10, 3, 0, 1), none));    // no region 3
  EXPECT_FALSE(net.host_of(v4(11, 0, 0, 1), none));    // not 10/8
  EXPECT_FALSE(net.host_of(v4(198, 18, 0, 1), none));  // not 10/8
}

}  // namespace
}  // namespace gw::fabric
