// Specification of netem syntax in and out (emulator/engine/netem.h).
//
// Expected `tc qdisc show` strings come from iproute2 tc/q_netem.c netem_print_opt (with the
// seed option, iproute2 >= 6.6) and the kernel's tc-testing netem cases (tools/testing/
// selftests/tc-testing/tc-tests/qdiscs/netem.json: ids 3782, 2b82, a932, e01a, ba29, 0492,
// 7862, 7235, 5439 are reproduced below). Cases marked "derived" were worked out from the
// iproute2 source, not observed on a machine.
#include "emulator/engine/netem.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/errors.h"
#include "core/units.h"
#include "emulator/engine/profile.h"
#include "emulator/engine/profile_writer.h"

namespace gw {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

NetemResult parse(const std::string& args) {
  return netem_to_direction(split_args(args));
}

std::string show(const NetemResult& r) {
  std::vector<std::string> notes;
  const std::string out = direction_to_netem(r.dir, notes, {NetemForm::kShow, r.seed});
  EXPECT_TRUE(notes.empty()) << notes.front();
  return out;
}

std::string command(const NetemResult& r) {
  std::vector<std::string> notes;
  const std::string out = direction_to_netem(r.dir, notes, {NetemForm::kCommand, r.seed});
  EXPECT_TRUE(notes.empty()) << notes.front();
  return out;
}

std::string error_of(const std::string& args) {
  try {
    parse(args);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// Field-by-field equality of what netem can express. `exact` compares doubles bit for bit;
// otherwise within 4 ulps (text percentages are divided by 100 when read back).
void expect_same(const DirectionSpec& a, const DirectionSpec& b, bool exact) {
  const auto eq = [exact](double x, double y) {
    if (exact) {
      EXPECT_EQ(x, y);
    } else {
      EXPECT_DOUBLE_EQ(x, y);
    }
  };
  EXPECT_EQ(a.limit_packets, b.limit_packets);
  ASSERT_EQ(a.loss.has_value(), b.loss.has_value());
  if (a.loss) {
    EXPECT_EQ(a.loss->model, b.loss->model);
    eq(a.loss->p, b.loss->p);
    eq(a.loss->correlation, b.loss->correlation);
    for (const auto& [x, y] : {std::pair{a.loss->p13, b.loss->p13},
                               {a.loss->p31, b.loss->p31},
                               {a.loss->p32, b.loss->p32},
                               {a.loss->p23, b.loss->p23},
                               {a.loss->p14, b.loss->p14},
                               {a.loss->ge_p, b.loss->ge_p},
                               {a.loss->ge_r, b.loss->ge_r},
                               {a.loss->ge_1_h, b.loss->ge_1_h},
                               {a.loss->ge_1_k, b.loss->ge_1_k}}) {
      eq(x, y);
    }
    EXPECT_EQ(a.loss->ecn, b.loss->ecn);
  }
  for (const auto& [x, y] : {std::pair{&a.duplicate, &b.duplicate}, {&a.corrupt, &b.corrupt}}) {
    ASSERT_EQ(x->has_value(), y->has_value());
    if (x->has_value()) {
      eq((*x)->p, (*y)->p);
      eq((*x)->correlation, (*y)->correlation);
    }
  }
  ASSERT_EQ(a.delay.has_value(), b.delay.has_value());
  if (a.delay) {
    EXPECT_EQ(a.delay->delay, b.delay->delay);
    EXPECT_EQ(a.delay->jitter, b.delay->jitter);
    eq(a.delay->correlation, b.delay->correlation);
    EXPECT_EQ(a.delay->distribution.name, b.delay->distribution.name);
    EXPECT_EQ(a.delay->distribution.values, b.delay->distribution.values);
    EXPECT_EQ(a.delay->reorder_policy, b.delay->reorder_policy);
    eq(a.delay->reorder_p, b.delay->reorder_p);
    eq(a.delay->reorder_correlation, b.delay->reorder_correlation);
    EXPECT_EQ(a.delay->reorder_gap, b.delay->reorder_gap);
  }
  ASSERT_EQ(a.rate.has_value(), b.rate.has_value());
  if (a.rate) {
    EXPECT_EQ(a.rate->rate, b.rate->rate);
    EXPECT_EQ(a.rate->packet_overhead_bytes, b.rate->packet_overhead_bytes);
    EXPECT_EQ(a.rate->cell_bytes, b.rate->cell_bytes);
    EXPECT_EQ(a.rate->cell_overhead_bytes, b.rate->cell_overhead_bytes);
  }
  ASSERT_EQ(a.slot.has_value(), b.slot.has_value());
  if (a.slot) {
    EXPECT_EQ(a.slot->use_distribution, b.slot->use_distribution);
    EXPECT_EQ(a.slot->min_delay, b.slot->min_delay);
    EXPECT_EQ(a.slot->max_delay, b.slot->max_delay);
    EXPECT_EQ(a.slot->distribution.name, b.slot->distribution.name);
    EXPECT_EQ(a.slot->distribution.values, b.slot->distribution.values);
    EXPECT_EQ(a.slot->dist_delay, b.slot->dist_delay);
    EXPECT_EQ(a.slot->dist_jitter, b.slot->dist_jitter);
    EXPECT_EQ(a.slot->max_packets, b.slot->max_packets);
    EXPECT_EQ(a.slot->max_bytes, b.slot->max_bytes);
  }
  EXPECT_EQ(a.queue.has_value(), b.queue.has_value());
  EXPECT_EQ(a.incast.has_value(), b.incast.has_value());
}

struct Case {
  const char* in;
  const char* shown;  // as `tc qdisc show` prints the options
};

const Case kCases[] = {
    {"", "limit 1000"},
    {"limit 200", "limit 200"},                 // tc-testing a089
    {"limit 1k", "limit 1024"},                 // get_size: k = 1024
    {"delay 100ms", "limit 1000 delay 100ms"},  // tc-testing 3449
    {"delay 100ms 10ms", "limit 1000 delay 100ms  10ms"},
    {"delay 100ms 10ms 25% loss 0.3% 25%", "limit 1000 delay 100ms  10ms 25% loss 0.3% 25%"},
    {"delay 100ms 10ms distribution normal corrupt 1%", "limit 1000 delay 100ms  10ms corrupt 1%"},  // 3782
    {"delay 100ms 10ms distribution normal duplicate 1%",
     "limit 1000 delay 100ms  10ms duplicate 1%"},                                             // 2b82
    {"delay 100ms 10ms distribution pareto loss 1%", "limit 1000 delay 100ms  10ms loss 1%"},  // a932
    {"delay 100ms 10ms distribution paretonormal loss state 1",                                // e01a
     "limit 1000 delay 100ms  10ms loss state p13 1% p31 99% p32 0% p23 100% p14 0%"},
    {"loss gemodel 1%", "limit 1000 loss gemodel p 1% r 99% 1-h 100% 1-k 0%"},                      // ba29
    {"delay 100ms 10ms reorder 2% gap 100", "limit 1000 delay 100ms  10ms reorder 2% gap 100"},     // 0492
    {"rate 20000", "limit 1000 rate 20Kbit"},                                                       // 7862
    {"slot 10 200 packets 2000 bytes 9000", "limit 1000 slot 10ns 200ns packets 2000 bytes 9000"},  // 7235
    {"slot distribution pareto 1ms 0.1ms", "limit 1000 slot distribution 1ms 100us"},               // 5439
    // Derived from netem_parse_opt / netem_print_opt:
    {"delay 10ms reorder 25% 50%", "limit 1000 delay 10ms reorder 25% 50% gap 1"},  // gap 0 becomes 1
    {"loss 1% ecn", "limit 1000 loss 1% ecn "},                                     // " ecn " as printed
    {"delay 10ms reorder 5% gap 3 loss random 2% ecn", "limit 1000 delay 10ms loss 2% reorder 5% ecn  gap 3"},
    {"loss state 1% 2% 3% 4% 5%", "limit 1000 loss state p13 1% p31 2% p32 3% p23 4% p14 5%"},
    {"loss gemodel 1% 10% 70% 0.1%", "limit 1000 loss gemodel p 1% r 10% 1-h 70% 1-k 0.1%"},
    {"rate 1mbit 20 48 5", "limit 1000 rate 1Mbit packetoverhead 20 cellsize 48 celloverhead 5"},
    {"rate 100mbit -4", "limit 1000 rate 100Mbit packetoverhead -4"},
    {"rate 1500kbit", "limit 1000 rate 1500Kbit"},
    {"rate 10gbit 0 64", "limit 1000 rate 10Gbit cellsize 64"},
    {"rate 1001bit", "limit 1000 rate 1Kbit"},  // netem keeps whole bytes per second: 125 B/s
    {"rate 1kbps", "limit 1000 rate 8Kbit"},    // kbps is kilobytes per second
    // iproute2 sends the duplicate correlation only with a delay or loss correlation.
    {"duplicate 1% 50% corrupt 0.1%", "limit 1000 duplicate 1% corrupt 0.1%"},
    {"delay 5ms 1ms 10% duplicate 1% 50%", "limit 1000 delay 5ms  1ms 10% duplicate 1% 50%"},
    {"delay 1.5ms", "limit 1000 delay 1.5ms"},
    {"delay 1234ms", "limit 1000 delay 1.23s"},               // sprint_time64: three significant digits
    {"delay 100", "limit 1000 delay 100us"},                  // bare number: microseconds (see netem.h)
    {"delay 3us", "limit 1000 delay 3us"},                    // iproute2 < 6.9 would show 2us (64 ns ticks)
    {"delay 1500ns 250ns", "limit 1000 delay 1.5us  250ns"},  // "ns" as iproute2 >= 6.9 reads it
    {"delay 300s", "limit 1000 delay 300s"},
    {"latency 50ms", "limit 1000 delay 50ms"},
    {"drop 1%", "limit 1000 loss 1%"},
    {"del 100ms lo 1% lim 50 du 2%",
     "limit 50 delay 100ms loss 1% duplicate 2%"},                // prefixes, iproute2 order
    {"delay 10ms 5ms delay 20ms", "limit 1000 delay 20ms  5ms"},  // a repeated delay keeps the jitter
    {"slot 1ms", "limit 1000 slot 1ms 1ms"},
    {"slot 1ms 2ms p 5 b 64k", "limit 1000 slot 1ms 2ms packets 5 bytes 65536"},
    {"seed 42 loss 1%", "limit 1000 loss 1% seed 42"},
    {"delay 5ms 1ms rate 1gbit slot 1ms 3ms seed 7 corrupt 1% duplicate 2% loss 3%",
     "limit 1000 delay 5ms  1ms loss 3% duplicate 2% corrupt 1% seed 7 rate 1Gbit slot 1ms 3ms"},
    {"loss 0.00000001%", "limit 1000"},  // rounds to 0 in netem's 2^-32 fixed point: no loss
};

TEST(NetemShow, PrintsWhatTcQdiscShowPrints) {
  for (const Case& c : kCases) {
    EXPECT_EQ(show(parse(c.in)), c.shown) << "netem " << c.in;
  }
}

TEST(NetemCommand, ReadsBackToTheSameSettingsAndTheSameShowForm) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string("netem ") + c.in);
    const NetemResult first = parse(c.in);
    const std::string cmd = command(first);
    SCOPED_TRACE("command: " + cmd);
    const NetemResult again = parse(cmd);
    expect_same(first.dir, again.dir, false);
    EXPECT_EQ(first.seed, again.seed);
    EXPECT_EQ(show(again), c.shown);
  }
}

TEST(NetemCommand, UsesPositionalValuesAndNamesTheDistribution) {
  EXPECT_EQ(command(parse("delay 100ms 10ms 25% distribution normal loss state 1% 2%")),
            "limit 1000 delay 100ms 10ms 25% distribution normal loss state 1% 2% 0% 100% 0%");
  EXPECT_EQ(command(parse("loss gemodel 1% 10% ecn")), "limit 1000 loss gemodel 1% 10% 100% 0% ecn");
  EXPECT_EQ(command(parse("rate 1234567bit 0 0")), "limit 1000 rate 1234560bit");
  EXPECT_EQ(command(parse("rate 1mbit 0 48 -3")), "limit 1000 rate 1Mbit 0 48 -3");
  EXPECT_EQ(command(parse("slot distribution pareto 1ms 0.1ms packets 3")),
            "limit 1000 slot distribution pareto 1ms 100us packets 3");
  EXPECT_EQ(command(parse("delay 1234ms 3us reorder 1% gap 7")),
            "limit 1000 delay 1234ms 3us reorder 1% gap 7");
}

TEST(NetemToJson, ProfileLoaderReadsBackTheDirectParse) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string("netem ") + c.in);
    const NetemResult r = parse(c.in);
    Profile p;
    p.name = "from-netem";
    p.seed = r.seed.value_or(1);
    p.a_to_b = r.dir;
    p.b_to_a = r.dir;
    const nlohmann::json doc = profile_to_json(p);
    EXPECT_FALSE(doc.contains("b_to_a")) << "an identical direction is written once";
    const Profile back = parse_profile(nlohmann::json::parse(doc.dump()), "netem.json");
    expect_same(r.dir, back.a_to_b, true);
    expect_same(r.dir, back.b_to_a, true);
    EXPECT_EQ(back.seed, p.seed);
  }
}

TEST(NetemToJson, UsesReadableExactUnits) {
  const nlohmann::json j = direction_to_json(parse("delay 100ms 250us rate 10gbit slot 1500ns 1ms").dir);
  EXPECT_EQ(j.at("delay").at("delay_ms"), 100);
  EXPECT_EQ(j.at("delay").at("jitter_us"), 250);
  EXPECT_EQ(j.at("rate").at("rate_gbps"), 10);
  EXPECT_EQ(j.at("slot").at("min_delay_ns"), 1500);
  EXPECT_EQ(j.at("slot").at("max_delay_ms"), 1);
  EXPECT_EQ(j.at("limit_packets"), 1000);
}

TEST(NetemParse, MapsOntoTheProfileModel) {
  const NetemResult r = parse(
      "limit 5000 delay 100ms 10ms 25% distribution normal reorder 5% 10% gap 3 loss gemodel 2% 30% 80% 0.5% "
      "ecn "
      "duplicate 1% corrupt 0.1% 5% rate 100mbit 14 rate 50mbit slot distribution pareto 2ms 1ms bytes 1m "
      "seed 99");
  const DirectionSpec& d = r.dir;
  EXPECT_EQ(d.limit_packets, 5000U);
  ASSERT_TRUE(d.delay);
  EXPECT_EQ(d.delay->delay, Duration{100'000'000});
  EXPECT_EQ(d.delay->jitter, Duration{10'000'000});
  EXPECT_EQ(d.delay->correlation, 0.25);
  EXPECT_EQ(d.delay->distribution.name, "normal");
  EXPECT_FALSE(d.delay->distribution.values.empty());
  EXPECT_EQ(d.delay->reorder_policy, ReorderPolicy::kNetem);
  EXPECT_EQ(d.delay->reorder_p, 0.05);
  EXPECT_EQ(d.delay->reorder_correlation, 0.1);
  EXPECT_EQ(d.delay->reorder_gap, 3U);
  ASSERT_TRUE(d.loss);
  EXPECT_EQ(d.loss->model, LossModel::kGemodel);
  EXPECT_EQ(d.loss->ge_p, 0.02);
  EXPECT_EQ(d.loss->ge_r, 0.3);
  EXPECT_EQ(d.loss->ge_1_h, 0.8);
  EXPECT_EQ(d.loss->ge_1_k, 0.005);
  EXPECT_TRUE(d.loss->ecn);
  ASSERT_TRUE(d.duplicate && d.corrupt);
  EXPECT_EQ(d.duplicate->p, 0.01);
  EXPECT_EQ(d.corrupt->correlation, 0.05);
  ASSERT_TRUE(d.rate);
  EXPECT_EQ(d.rate->rate, BitRate{50'000'000});  // the last rate wins ...
  EXPECT_EQ(d.rate->packet_overhead_bytes, 14);  // ... and the overhead given before stays (as in tc)
  ASSERT_TRUE(d.slot);
  EXPECT_TRUE(d.slot->use_distribution);
  EXPECT_EQ(d.slot->distribution.name, "pareto");
  EXPECT_EQ(d.slot->dist_delay, Duration{2'000'000});
  EXPECT_EQ(d.slot->dist_jitter, Duration{1'000'000});
  EXPECT_EQ(d.slot->max_packets, 0);
  EXPECT_EQ(d.slot->max_bytes, 1024 * 1024);
  EXPECT_EQ(r.seed, 99U);
  EXPECT_FALSE(d.queue);
  EXPECT_FALSE(d.incast);
}

TEST(NetemParse, DefaultsOfTheLossModelsAsTcNetem) {
  const LossSettings state = *parse("loss state 10%").dir.loss;
  EXPECT_EQ(state.p13, 0.1);
  EXPECT_EQ(state.p31, 0.9);
  EXPECT_EQ(state.p32, 0);
  EXPECT_EQ(state.p23, 1);
  EXPECT_EQ(state.p14, 0);
  const LossSettings ge = *parse("loss gemodel 10%").dir.loss;
  EXPECT_EQ(ge.ge_p, 0.1);
  EXPECT_EQ(ge.ge_r, 0.9);
  EXPECT_EQ(ge.ge_1_h, 1);
  EXPECT_EQ(ge.ge_1_k, 0);
  const LossSettings random = *parse("loss random 10% 30").dir.loss;
  EXPECT_EQ(random.model, LossModel::kRandom);
  EXPECT_EQ(random.p, 0.1);
  EXPECT_EQ(random.correlation, 0.3);
}

TEST(NetemParse, OptionalValuesAreTakenOnlyWhenTheNextWordStartsWithADigit) {
  // NEXT_IS_NUMBER: ".5ms" is not a number to tc, so it is read as a keyword.
  EXPECT_THAT(error_of("delay 10ms .5ms"), StartsWith("netem: argument 3 (`.5ms`): unknown keyword"));
  EXPECT_EQ(parse("delay 10ms 5ms").dir.delay->jitter, Duration{5'000'000});
  EXPECT_EQ(parse("delay 10ms loss 1%").dir.delay->jitter, Duration{0});
  // "5ms" starts with a digit, so after a loss percentage it is read as the correlation.
  EXPECT_THAT(error_of("loss 1% 5ms"), StartsWith("netem: argument 3 (`5ms`): not a percentage"));
}

TEST(NetemParse, SplitArgsSplitsOnBlanks) {
  EXPECT_EQ(split_args("  delay\t100ms \n 10ms "), (std::vector<std::string>{"delay", "100ms", "10ms"}));
  EXPECT_TRUE(split_args(" \t").empty());
}

TEST(NetemErrors, RejectWhatIproute2RejectsWithItsReason) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"reorder 10%", "netem: argument 1 (`reorder`): reordering not possible without specifying some delay"},
      {"delay 0ms reorder 10%",
       "netem: argument 3 (`reorder`): reordering not possible without specifying some delay"},
      {"ecn", "netem: argument 1 (`ecn`): ecn requested without loss model"},
      {"loss 0% ecn", "netem: argument 3 (`ecn`): ecn requested without loss model"},
      {"delay 10ms gap 5", "netem: argument 3 (`gap`): gap specified without reorder probability"},
      {"distribution normal",
       "netem: argument 1 (`distribution`): distribution specified but no latency and jitter values"},
      {"delay 10ms distribution normal",
       "netem: argument 3 (`distribution`): distribution specified but no latency and jitter values"},
      {"loss 1% loss 2%", "netem: argument 3 (`loss`): duplicate loss argument"},
      {"loss gemodel 1% drop 2%", "netem: argument 4 (`drop`): duplicate loss argument"},
      {"delay", "netem: argument 1 (`delay`): needs a value: TIME"},
      {"delay 10ms 5ms 150%",
       "netem: argument 4 (`150%`): not a percentage in [0%, 100%] (e.g. 1%, 0.3%; a bare number is a "
       "percentage too)"},
      {"delay abc",
       "netem: argument 2 (`abc`): not a time (e.g. 100ms, 1.5ms, 250us, 2s; a bare number is microseconds)"},
      {"delay 10m",
       "netem: argument 2 (`10m`): not a time (e.g. 100ms, 1.5ms, 250us, 2s; a bare number is "
       "microseconds)"},
      {"delay 2h",
       "netem: argument 2 (`2h`): not a time (e.g. 100ms, 1.5ms, 250us, 2s; a bare number is "
       "microseconds)"},
      {"delay 10ms 3601s", "netem: argument 3 (`3601s`): delay and jitter must be at most 3600s"},
      {"loss .5%", "netem: argument 2 (`.5%`): unknown loss model (random, state, gemodel, or a percentage)"},
      {"rate 10%",
       "netem: argument 2 (`10%`): a rate in percent of the device speed needs a device; give a rate (e.g. "
       "100mbit)"},
      {"rate fast",
       "netem: argument 2 (`fast`): not a rate (e.g. 100mbit, 10gbit, 1500kbit; a bare number is "
       "bit/s; kbps is kilobytes/s)"},
      {"slot distribution normal 1ms 0",
       "netem: argument 5 (`0`): Non-positive jitter: slot distribution needs a jitter above 0"},
      {"slot 2ms 1ms", "netem: argument 3 (`1ms`): slot max_delay must not be below min_delay"},
      {"slot foo", "netem: argument 2 (`foo`): unknown slot parameter (expected a time or `distribution`)"},
      {"slot 1ms packets", "netem: argument 3 (`packets`): needs a value: MAX_PACKETS"},
      {"limit 0", "netem: argument 2 (`0`): must be at least 1 packet"},
      {"limit many", "netem: argument 2 (`many`): not a packet count (e.g. 1000)"},
      {"seed -1", "netem: argument 2 (`-1`): not a seed: a decimal integer in [0, 2^63-1]"},
      {"seed 18446744073709551615",
       "netem: argument 2 (`18446744073709551615`): not a seed: a decimal integer in "
       "[0, 2^63-1]"},
      {"loss state 60% 50% 60%", "netem: argument 1 (`loss`): loss state: p31 + p32 must not exceed 1"},
      {"rate 1mbit 0 0 5", "netem: argument 1 (`rate`): a cell overhead needs a cell size"},
      {"rate 1mbit 2000", "netem: argument 3 (`2000`): must be an integer in [-1500, 1500] (bytes)"},
  };
  for (const auto& [args, message] : cases) {
    EXPECT_EQ(error_of(args), message) << "netem " << args;
  }
}

TEST(NetemErrors, UnknownKeywordSaysWhatIsItAndShowsTheUsage) {
  const std::string e = error_of("delay 10ms jitter 5ms");
  EXPECT_THAT(
      e, StartsWith("netem: argument 3 (`jitter`): unknown keyword (What is \"jitter\"?); usage: netem"));
  EXPECT_THAT(error_of("help"), StartsWith("netem: argument 1 (`help`): usage: netem [limit PACKETS]"));
}

TEST(NetemErrors, UnknownDistributionNamesTheWord) {
  EXPECT_THAT(error_of("delay 10ms 5ms distribution nosuchtable"),
              AllOf(StartsWith("netem: argument 5 (`nosuchtable`): "), HasSubstr("nosuchtable")));
}

TEST(NetemNotExpressible, ListsWhatNetemCannotDoAndPrintsTheRest) {
  DirectionSpec d;  // no limit_packets: gradwall's unlimited
  d.delay = DelaySettings{};
  d.delay->distance_km = 1000;
  d.delay->delay = Duration{5'000'000};
  d.delay->jitter = Duration{1'500};
  d.delay->reorder_policy = ReorderPolicy::kPreserve;
  d.rate = RateSettings{};
  d.rate->rate = BitRate{1'000'001};
  d.queue = QueueSettings{};
  d.queue->limit_bytes = 100'000;
  d.queue->aqm.kind = AqmKind::kCodel;
  d.queue->microbursts.push_back(MicroburstSettings{});
  d.incast = IncastSettings{};
  std::vector<std::string> notes;
  EXPECT_EQ(direction_to_netem(d, notes), "limit 1000 delay 5ms  1.5us rate 1Mbit");
  const std::string all = ::testing::PrintToString(notes);
  for (const char* phrase :
       {"no packet limit", "distance_km 1000", "reorder_policy preserve", "rate 1000001bit",
        "queue limit_bytes 100000", "aqm codel", "microburst", "incast"}) {
    EXPECT_THAT(all, HasSubstr(phrase));
  }
}

TEST(NetemNotExpressible, DistributionFilesAndTracesAreNamed) {
  DirectionSpec d;
  d.limit_packets = 100;
  d.delay = DelaySettings{};
  d.delay->delay = Duration{10'000'000};
  d.delay->jitter = Duration{1'000'000};
  d.delay->distribution = DistributionTable{"tables/wifi.dist", {1, 2, 3}};
  d.rate = RateSettings{};
  d.rate->trace_file = "lte.csv";
  d.rate->trace = {RateTracePoint{Duration{0}, BitRate{1'000'000}}};
  std::vector<std::string> notes;
  EXPECT_EQ(direction_to_netem(d, notes, {NetemForm::kCommand, std::nullopt}),
            "limit 100 delay 10ms 1ms distribution wifi");
  const std::string all = ::testing::PrintToString(notes);
  EXPECT_THAT(all, HasSubstr("distribution file tables/wifi.dist"));
  EXPECT_THAT(all, HasSubstr("rate trace lte.csv"));
}

}  // namespace
}  // namespace gw
