// The live control protocol's typed messages (harness/live/control_messages.h): each one read
// back from its own JSON line gives the fields it was made with; a line of another kind is not
// taken for it; a line of its kind without a required field throws.
#include "harness/live/control_messages.h"

#include <gtest/gtest.h>

namespace gw::control {
namespace {

TEST(ControlMessages, RoundTripEveryKind) {
  const Hello hello = *parse_hello(Hello{1, 4242}.to_json());
  EXPECT_EQ(hello.side, 1u);
  EXPECT_EQ(hello.pid, 4242);

  EXPECT_EQ(parse_start(Start{123456789}.to_json())->epoch_ns, 123456789);
  EXPECT_EQ(parse_ready(Ready{4791}.to_json())->port, 4791u);

  const Send send =
      *parse_send(Send{0x8002, "198.18.0.2", (std::uint64_t{1} << 62) | 7, 64u << 20, "", {}}.to_json());
  EXPECT_EQ(send.qp, 0x8002u);
  EXPECT_EQ(send.peer, "198.18.0.2");
  EXPECT_EQ(send.msg, (std::uint64_t{1} << 62) | 7);  // a live flow's message id keeps its top bits
  EXPECT_EQ(send.bytes, 64u << 20);
  EXPECT_TRUE(send.cc.empty());
  EXPECT_FALSE(Send{}.to_json().contains("cc"));  // the endpoint's controller: no key at all

  // A flow's own controller travels with its first message.
  const Send own = *parse_send(Send{0x8004, "198.18.0.2", 1, 1400, "bbr", {{"beta", 0.7}}}.to_json());
  EXPECT_EQ(own.cc, "bbr");
  EXPECT_EQ(own.cc_params, (cc::CcParams{{"beta", 0.7}}));

  const Delivered d = *parse_delivered(Delivered{0x101, 9, 1400, 1'000, 21'000'000}.to_json());
  EXPECT_EQ(d.qp, 0x101u);
  EXPECT_EQ(d.msg, 9u);
  EXPECT_EQ(d.bytes, 1400u);
  EXPECT_EQ(d.posted_ns, 1'000);
  EXPECT_EQ(d.at_ns, 21'000'000);

  EXPECT_TRUE(is_stop(Stop{}.to_json()));
  EXPECT_TRUE(is_stats(nlohmann::json{{"t", "stats"}, {"side", 0}}));
}

// Path steering (docs/steering.md "Live"): a Send names the path a QP opens on, a Path moves it.
TEST(ControlMessages, PathsRoundTrip) {
  Send s{4, "198.18.0.2", 1, 100, "", {}, 1};
  EXPECT_EQ(parse_send(nlohmann::json::parse(s.to_json().dump()))->path, 1);
  s.path = -1;
  EXPECT_FALSE(s.to_json().contains("path"));  // no path: the line is as before
  EXPECT_EQ(parse_send(s.to_json())->path, -1);
  const std::optional<Path> p = parse_path(nlohmann::json::parse(Path{32770, 0, 4'000'000}.to_json().dump()));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->qp, 32770u);
  EXPECT_EQ(p->path, 0);
  EXPECT_EQ(p->lag_ns, 4'000'000);
  EXPECT_FALSE(parse_path(Stop{}.to_json()));
  EXPECT_ANY_THROW(parse_path(nlohmann::json{{"t", "path"}, {"qp", 2}}));  // no path
}

TEST(ControlMessages, AnotherKindIsNotTaken) {
  const nlohmann::json start = Start{1}.to_json();
  EXPECT_FALSE(parse_hello(start));
  EXPECT_FALSE(parse_send(start));
  EXPECT_FALSE(parse_delivered(start));
  EXPECT_FALSE(parse_ready(start));
  EXPECT_FALSE(is_stop(start));
  EXPECT_FALSE(parse_start(nlohmann::json::array()));  // not an object: no kind
  EXPECT_EQ(kind_of(nlohmann::json{{"x", 1}}), "");
}

TEST(ControlMessages, MissingFieldThrows) {
  EXPECT_ANY_THROW(
      parse_send(nlohmann::json{{"t", "send"}, {"qp", 2}, {"msg", 1}, {"bytes", 10}}));  // no peer
  EXPECT_ANY_THROW(parse_delivered(nlohmann::json{{"t", "delivered"}, {"msg", 1}}));     // no at_ns
  EXPECT_ANY_THROW(parse_start(nlohmann::json{{"t", "start"}}));
  EXPECT_ANY_THROW(parse_hello(nlohmann::json{{"t", "hello"}, {"side", "a"}}));  // mistyped
}

}  // namespace
}  // namespace gw::control
