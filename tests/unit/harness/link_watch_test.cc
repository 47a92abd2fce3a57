// LinkWatch (harness/live/link_watch.h) on interfaces every Linux host has, or cannot have.
#include "harness/live/link_watch.h"

#include <gtest/gtest.h>

namespace gw {
namespace {

TEST(LinkWatch, AnUpPortIsNoFaultAndAMissingOneIsDownUntilTheEnd) {
  EXPECT_TRUE(link_is_up("lo"));
  EXPECT_FALSE(link_is_up("gw-no-such-if"));
  LinkWatch w({"lo", "gw-no-such-if"});
  w.poll(kEpoch + Duration{1'000'000'000});
  w.poll(kEpoch + Duration{1'010'000'000});  // within 50 ms: not read again
  const auto f = w.faults(kEpoch + Duration{3'000'000'000});
  ASSERT_EQ(f.size(), 1U);
  EXPECT_EQ(f[0],
            "port gw-no-such-if went down 1.000 s into the run and was still down at the end (3.000 s)");
  EXPECT_TRUE(LinkWatch({"lo", "lo"}).faults(kEpoch).empty());
}

}  // namespace
}  // namespace gw
