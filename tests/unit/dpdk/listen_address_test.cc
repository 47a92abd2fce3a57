// Listening addresses of `gradwall emu --control` / `--metrics` (emulator/dpdk/control.h).
#include <gtest/gtest.h>

#include "core/errors.h"
#include "emulator/dpdk/control.h"

namespace gw {
namespace {

TEST(ListenAddress, APortAloneMeansIpv4Loopback) {
  for (const char* text : {"9465", ":9465"}) {
    const ListenAddress a = parse_listen_address("--control", text);
    EXPECT_EQ(a.host, "127.0.0.1") << text;
    EXPECT_FALSE(a.ipv6);
    EXPECT_EQ(a.port, 9465);
    EXPECT_TRUE(a.loopback);
    EXPECT_EQ(a.text(), "127.0.0.1:9465");
  }
}

TEST(ListenAddress, Ipv6InBrackets) {
  const ListenAddress a = parse_listen_address("--control", "[::1]:0");
  EXPECT_TRUE(a.ipv6);
  EXPECT_EQ(a.host, "::1");
  EXPECT_EQ(a.port, 0);
  EXPECT_TRUE(a.loopback);
  EXPECT_EQ(a.text(), "[::1]:0");
  EXPECT_TRUE(parse_listen_address("--control", "[::ffff:127.0.0.2]:80").loopback);
  EXPECT_FALSE(parse_listen_address("--control", "[2001:db8::1]:80").loopback);
  EXPECT_FALSE(parse_listen_address("--control", "[::]:80").loopback);
}

TEST(ListenAddress, LoopbackIsAllOf127Slash8AndNothingElse) {
  EXPECT_TRUE(parse_listen_address("--control", "127.1.2.3:1").loopback);
  EXPECT_FALSE(parse_listen_address("--control", "0.0.0.0:1").loopback);
  EXPECT_FALSE(parse_listen_address("--control", "198.18.0.1:1").loopback);
}

TEST(ListenAddress, MalformedOnesNameTheOption) {
  for (const char* text : {"", "::1:80", "[::1]", "[::1]80", "127.0.0.1:", "127.0.0.1:65536", "host:80",
                           "127.0.0.1:-1", "[zz::1]:80", "1.2.3:80"}) {
    try {
      (void)parse_listen_address("--metrics", text);
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--metrics"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace gw
