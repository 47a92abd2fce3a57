#include "emulator/fabric/network.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "core/errors.h"
#include "emulator/engine/netem.h"
#include "emulator/fabric/path_ports.h"

namespace gw::fabric {
namespace {

struct Collector : Receiver {
  void receive(Instant now, Packet&& p) override { got.push_back({ns_of(now), p.handle}); }
  void dropped(Instant, Packet&&, DropCause cause, const std::string& hop) override {
    ++drops[hop + "/" + drop_cause_name(cause)];
  }
  std::vector<std::pair<std::int64_t, std::uint64_t>> got;
  std::map<std::string, int> drops;
};

WanLinkSpec netem_link(const std::string& a, const std::string& b, const std::string& args) {
  WanLinkSpec w;
  w.a = a;
  w.b = b;
  const NetemResult n = netem_to_direction(split_args(args));
  w.profile.a_to_b = n.dir;
  w.profile.b_to_a = n.dir;
  return w;
}

RegionSpec region(const std::string& name, std::uint32_t hosts, std::uint64_t nic_bps) {
  RegionSpec r;
  r.name = name;
  r.hosts = hosts;
  r.nic_rate = BitRate{nic_bps};
  r.latency = Duration{1'000};
  return r;
}

Packet packet(const Network& net, HostId to, std::uint64_t handle, std::uint32_t bytes = 1500) {
  Packet p;
  p.size_bytes = bytes;
  p.handle = handle;
  p.headers.valid_l3 = true;
  p.headers.dst = net.address(to);
  return p;
}

// One packet from a to b crosses: uplink latency (1 us) + WAN delay (10 ms) + WAN
// serialization at 1 Gbit/s (1500 B = 12 us) + downlink latency (1 us) + the receiver's port
// at its 10 Gbit/s NIC rate (1.2 us). Exact in virtual time.
TEST(Network, OneWayTimeIsTheSumOfTheHops) {
  EventLoop loop;
  Collector rx;
  TopologySpec t;
  t.regions = {region("a", 1, 10'000'000'000), region("b", 1, 10'000'000'000)};
  t.wan = {netem_link("a", "b", "delay 10ms rate 1Gbit limit 100000")};
  Network net(loop, t, 1, rx);
  net.send(HostId{0, 0}, packet(net, HostId{1, 0}, 7), loop.now());
  loop.run_until(at_ns(1'000'000'000));
  ASSERT_EQ(rx.got.size(), 1U);
  EXPECT_EQ(rx.got[0].first, 1'000 + 10'000'000 + 12'000 + 1'000 + 1'200);
  EXPECT_EQ(rx.got[0].second, 7U);
  EXPECT_EQ(net.in_flight(), 0U);
  const std::vector<std::string> want{"uplink a", "wan a->b", "downlink b"};
  EXPECT_EQ(net.route_names(0, 1), want);
}

TEST(Network, InsideARegionOnlyTheDownlinkIsCrossed) {
  EventLoop loop;
  Collector rx;
  TopologySpec t;
  t.regions = {region("a", 2, 10'000'000'000)};
  Network net(loop, t, 1, rx);
  net.send(HostId{0, 0}, packet(net, HostId{0, 1}, 1), loop.now());
  loop.run_until(at_ns(1'000'000));
  ASSERT_EQ(rx.got.size(), 1U);
  EXPECT_EQ(rx.got[0].first, 1'000 + 1'200);
}

TEST(Network, RoutesThroughARelayWhenThereIsNoDirectLink) {
  EventLoop loop;
  Collector rx;
  TopologySpec t;
  t.regions = {region("a", 1, 10'000'000'000), region("b", 1, 10'000'000'000), region("pop", 0, 0)};
  t.wan = {netem_link("a", "pop", "delay 3ms"), netem_link("pop", "b", "delay 4ms")};
  Network net(loop, t, 1, rx);
  const std::vector<std::string> want{"uplink a", "wan a->pop", "wan pop->b", "downlink b"};
  EXPECT_EQ(net.route_names(0, 1), want);
  net.send(HostId{1, 0}, packet(net, HostId{0, 0}, 1), loop.now());
  loop.run_until(at_ns(1'000'000'000));
  ASSERT_EQ(rx.got.size(), 1U);
  EXPECT_EQ(rx.got[0].first, 1'000 + 4'000'000 + 3'000'000 + 1'000 + 1'200);
}

TEST(Network, ARouteMayForceARelay) {
  EventLoop loop;
  Collector rx;
  TopologySpec t;
  t.regions = {region("a", 1, 10'000'000'000), region("b", 1, 10'000'000'000), region("pop", 0, 0)};
  t.wan = {netem_link("a", "b", "delay 10ms"), netem_link("a", "pop", "delay 3ms"),
           netem_link("pop", "b", "delay 4ms")};
  t.routes = {RouteSpec{"a", "b", {"pop"}, {}}};
  Network net(loop, t, 1, rx);
  const std::vector<std::string> forced{"uplink a", "wan a->pop", "wan pop->b", "downlink b"};
  EXPECT_EQ(net.route_names(0, 1), forced);
  const std::vector<std::string> back{"uplink b", "wan b->a", "downlink a"};
  EXPECT_EQ(net.route_names(1, 0), back);
}

// Two paths a -> b, direct (10 ms) and via pop (3 + 4 ms): the source port names the path,
// and the way back takes the same paths reversed.
TopologySpec two_paths() {
  TopologySpec t;
  t.regions = {region("a", 1, 10'000'000'000), region("b", 1, 10'000'000'000), region("pop", 0, 0)};
  t.wan = {netem_link("a", "b", "delay 10ms"), netem_link("a", "pop", "delay 3ms"),
           netem_link("pop", "b", "delay 4ms")};
  RouteSpec r{"a", "b", {}, {}};
  r.paths = {{}, {"pop"}};
  t.routes = {r};
  return t;
}

TEST(Network, TheSourcePortNamesThePath) {
  EventLoop loop;
  Collector rx;
  Network net(loop, two_paths(), 1, rx);
  EXPECT_EQ(net.path_count(0, 1), 2U);
  EXPECT_EQ(net.path_count(1, 0), 2U);
  EXPECT_EQ(net.path_via(0, 1, 1), std::vector<std::string>{"pop"});
  const std::vector<std::string> back{"uplink b", "wan b->pop", "wan pop->a", "downlink a"};
  EXPECT_EQ(net.route_names(1, 0, 1), back);
  EXPECT_EQ(net.base_delay(0, 1, 0), Duration{1'000 + 10'000'000 + 1'000});
  EXPECT_EQ(net.base_delay(0, 1, 1), Duration{1'000 + 7'000'000 + 1'000});
  for (std::uint32_t path : {0U, 1U}) {
    Packet p = packet(net, HostId{1, 0}, path);
    p.headers.src = net.address(HostId{0, 0});
    p.headers.src_port = path_port(path, 7);
    net.send(HostId{0, 0}, std::move(p), loop.now());
  }
  Packet back_packet = packet(net, HostId{0, 0}, 2);
  back_packet.headers.src = net.address(HostId{1, 0});
  back_packet.headers.src_port = path_port(1, 9);
  net.send(HostId{1, 0}, std::move(back_packet), loop.now());
  loop.run_until(at_ns(1'000'000'000));
  ASSERT_EQ(rx.got.size(), 3U);
  std::map<std::string, std::uint64_t> in;
  for (const HopStats& h : net.hop_stats()) {
    in[h.name] = h.counters.packets_in;
  }
  EXPECT_EQ(in["wan a->b"], 1U);
  EXPECT_EQ(in["wan a->pop"], 1U);
  EXPECT_EQ(in["wan pop->b"], 1U);
  EXPECT_EQ(in["wan b->pop"], 1U);
  EXPECT_EQ(in["wan pop->a"], 1U);
  EXPECT_EQ(in["wan b->a"], 0U);
}

TEST(Network, APathThroughARegionWithHostsIsAnInputError) {
  EventLoop loop;
  Collector rx;
  TopologySpec t = two_paths();
  t.regions.push_back(region("c", 1, 10'000'000'000));
  t.wan.push_back(netem_link("a", "c", "delay 1ms"));
  t.wan.push_back(netem_link("c", "b", "delay 1ms"));
  t.routes[0].paths.push_back({"c"});
  try {
    Network net(loop, t, 1, rx);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "$.topology.routes[0].paths[2].via");
    EXPECT_EQ(e.reason(), "c is a region with hosts, not a relay");
  }
}

TEST(Network, AHopRateAndLinkStateFollowTheProfilesPhases) {
  EventLoop loop;
  Collector rx;
  TopologySpec t = two_paths();
  PhaseSpec cut;
  cut.at = Duration{2'000'000'000};
  cut.a_to_b = netem_to_direction(split_args("delay 10ms rate 2Gbit loss 100%")).dir;
  cut.b_to_a = cut.a_to_b;
  t.wan[0].profile.a_to_b = netem_to_direction(split_args("delay 10ms rate 10Gbit")).dir;
  t.wan[0].profile.phases = {cut};
  Network net(loop, t, 1, rx);
  const std::size_t direct = net.wan_hops(0, 1, 0).at(0);
  EXPECT_EQ(net.hop_rate_at(direct, at_ns(1'999'999'999)).bps, 10'000'000'000U);
  EXPECT_TRUE(net.hop_up_at(direct, at_ns(1'999'999'999)));
  EXPECT_EQ(net.hop_rate_at(direct, at_ns(2'000'000'000)).bps, 2'000'000'000U);
  EXPECT_FALSE(net.hop_up_at(direct, at_ns(2'000'000'000)));
}

TEST(Network, UnroutableTopologyIsAnInputError) {
  EventLoop loop;
  Collector rx;
  TopologySpec t;
  t.regions = {region("a", 1, 10'000'000'000), region("b", 1, 10'000'000'000)};
  try {
    Network net(loop, t, 1, rx);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.reason(), "no route from region a to region b");
  }
}

// Eight senders of one region send 64 packets each at once to one receiver whose port shares
// a 64 KiB buffer: the port holds at most about alpha/(1+alpha) of the buffer (DT), so most
// packets are dropped at the downlink, and every packet is either received or dropped.
TEST(Network, IncastOverflowsTheSharedBufferAndEveryPacketIsAccounted) {
  EventLoop loop;
  Collector rx;
  TopologySpec t;
  RegionSpec r = region("a", 9, 10'000'000'000);
  r.buffer_bytes = 64 * 1024;
  t.regions = {r};
  Network net(loop, t, 1, rx);
  std::uint64_t id = 0;
  for (std::uint32_t s = 1; s <= 8; ++s) {
    for (int k = 0; k < 64; ++k) {
      net.send(HostId{0, s}, packet(net, HostId{0, 0}, id++), loop.now());
    }
  }
  loop.run_until(at_ns(1'000'000'000));
  int dropped = 0;
  for (const auto& [k, v] : rx.drops) {
    EXPECT_EQ(k, "downlink a/incast_buffer");
    dropped += v;
  }
  EXPECT_EQ(rx.got.size() + static_cast<std::size_t>(dropped), 512U);
  EXPECT_GT(dropped, 400);
  EXPECT_LT(rx.got.size(), 64U);
  EXPECT_EQ(net.in_flight(), 0U);
}

}  // namespace
}  // namespace gw::fabric
