// Reading netem arguments, after iproute2 tc/q_netem.c netem_parse_opt and tc-netem(8).
// Independent implementation; the iproute2 functions are cited where a rule comes from them.
#include "emulator/engine/netem.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>

#include "core/errors.h"
#include "core/units.h"
#include "emulator/engine/distribution.h"

namespace gw {
namespace {

// The profile loader's bounds, so that what is read here always loads from a profile.
constexpr Duration kMaxDelay{std::int64_t{3600} * 1'000'000'000};
constexpr std::int64_t kMaxGap = std::int64_t{1} << 30;
constexpr double kMaxRateBps = 1e15;

// Delay and jitter: iproute2 before 6.9 reads them with get_time (bare number = us, no "ns")
// and sends 32-bit psched ticks of 64 ns; iproute2 6.9 and later (commit "netem: use 64 bit
// value for latency and jitter", 2024) reads them with get_time64 (bare number = ns) and sends
// TCA_NETEM_LATENCY64/JITTER64 in ns. We read a bare number as microseconds, as tc-netem(8)
// always documented and older tc does, and accept the "ns" units of newer tc too.
std::optional<Duration> netem_time(std::string_view text) {
  if (const auto t = parse_time(text)) {
    return t;
  }
  // What get_time64 reads beyond get_time is "ns", "nsec", "nsecs" (and bare numbers).
  if (!text.empty() && std::isalpha(static_cast<unsigned char>(text.back())) != 0) {
    return parse_time64(text);
  }
  return std::nullopt;
}

const char* const kUsage =
    "usage: netem [limit PACKETS] [delay TIME [JITTER [CORRELATION]]] [distribution NAME] "
    "[loss random PERCENT [CORRELATION] | loss state P13 [P31 [P32 [P23 [P14]]]] | "
    "loss gemodel PERCENT [R [1-H [1-K]]]] [ecn] [corrupt PERCENT [CORRELATION]] "
    "[duplicate PERCENT [CORRELATION]] [reorder PERCENT [CORRELATION] [gap DISTANCE]] "
    "[rate RATE [PACKETOVERHEAD [CELLSIZE [CELLOVERHEAD]]]] "
    "[slot MIN_DELAY [MAX_DELAY] [packets N] [bytes B] | "
    "slot distribution NAME DELAY JITTER [packets N] [bytes B]] [seed SEED]";

enum class Keyword : std::uint8_t {
  kLimit,
  kDelay,
  kLoss,
  kSeed,
  kEcn,
  kReorder,
  kCorrupt,
  kGap,
  kDuplicate,
  kDistribution,
  kRate,
  kSlot
};

// netem_parse_opt's if-chain order: the first keyword the word is a prefix of wins.
constexpr std::array<std::pair<std::string_view, Keyword>, 14> kKeywords{{
    {"limit", Keyword::kLimit},
    {"latency", Keyword::kDelay},
    {"delay", Keyword::kDelay},
    {"loss", Keyword::kLoss},
    {"drop", Keyword::kLoss},
    {"seed", Keyword::kSeed},
    {"ecn", Keyword::kEcn},
    {"reorder", Keyword::kReorder},
    {"corrupt", Keyword::kCorrupt},
    {"gap", Keyword::kGap},
    {"duplicate", Keyword::kDuplicate},
    {"distribution", Keyword::kDistribution},
    {"rate", Keyword::kRate},
    {"slot", Keyword::kSlot},
}};

// iproute2 matches(): `word` is a non-empty prefix of `keyword`.
bool matches(std::string_view word, std::string_view keyword) {
  return !word.empty() && keyword.starts_with(word);
}

bool starts_with_digit(std::string_view w) {
  return !w.empty() && std::isdigit(static_cast<unsigned char>(w.front())) != 0;
}

// get_u32/get_s32/get_u64: strtoul-style integers, base 0 (0x.. hex, 0.. octal) unless given.
std::optional<std::int64_t> parse_integer(const std::string& text, int base, std::int64_t lo,
                                          std::int64_t hi) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front())) != 0) {
    return std::nullopt;
  }
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, base);
  if (*end != '\0' || end == text.c_str() || errno == ERANGE || v < lo || v > hi) {
    return std::nullopt;
  }
  return v;
}

// The netem arguments as netem_parse_opt collects them, before the checks it makes at the end.
struct RawNetem {
  std::uint64_t limit = kNetemDefaultLimit;
  std::optional<std::size_t> delay_at;
  Duration latency{0};
  Duration jitter{0};
  double delay_corr = 0;
  std::optional<DistributionTable> distribution;
  std::size_t distribution_at = 0;
  double loss = 0;  // random model
  double loss_corr = 0;
  std::optional<LossSettings> loss_model;  // state or gemodel
  std::optional<std::size_t> ecn_at;
  double duplicate = 0;
  double duplicate_corr = 0;
  double corrupt = 0;
  double corrupt_corr = 0;
  double reorder = 0;
  double reorder_corr = 0;
  std::size_t reorder_at = 0;
  std::uint32_t gap = 0;
  std::size_t gap_at = 0;
  std::optional<BitRate> rate;
  std::int32_t packet_overhead = 0;
  std::uint32_t cell_size = 0;
  std::int32_t cell_overhead = 0;
  std::size_t rate_at = 0;
  std::optional<SlotSettings> slot;
  std::optional<std::uint64_t> seed;
};

class Parser {
 public:
  explicit Parser(const std::vector<std::string>& args) : args_(args) {}

  NetemResult run() {
    for (i_ = 0; i_ < args_.size(); ++i_) {
      keyword(args_[i_]);
    }
    return finish();
  }

 private:
  [[noreturn]] void fail(std::size_t at, const std::string& reason) const {
    throw InputError("netem", "argument " + std::to_string(at + 1) + " (`" + args_[at] + "`)", reason);
  }

  bool next_is_number() const { return i_ + 1 < args_.size() && starts_with_digit(args_[i_ + 1]); }
  bool next_is_signed_number() const {
    return i_ + 1 < args_.size() && (starts_with_digit(args_[i_ + 1]) || args_[i_ + 1].starts_with('-'));
  }
  bool next_matches(std::string_view keyword) const {
    return i_ + 1 < args_.size() && matches(args_[i_ + 1], keyword);
  }

  // The next word, which must exist (NEXT_ARG).
  const std::string& value(const std::string& expects) {
    if (i_ + 1 >= args_.size()) {
      fail(i_, "needs a value: " + expects);
    }
    return args_[++i_];
  }

  double percent(const std::string& text) const {
    const auto p = parse_percent(text);
    if (!p) {
      fail(i_, "not a percentage in [0%, 100%] (e.g. 1%, 0.3%; a bare number is a percentage too)");
    }
    return *p;
  }
  double percent_value(const std::string& what) { return percent(value(what)); }

  Duration delay_time(const std::string& text) const {
    const auto t = netem_time(text);
    if (!t) {
      fail(i_, "not a time (e.g. 100ms, 1.5ms, 250us, 2s; a bare number is microseconds)");
    }
    if (*t > kMaxDelay) {
      fail(i_, "delay and jitter must be at most 3600s");
    }
    return *t;
  }

  Duration time64(const std::string& text) const {
    const auto t = parse_time64(text);
    if (!t) {
      fail(i_, "not a time (e.g. 10ms, 250us, 800ns; a bare number is nanoseconds here)");
    }
    return *t;
  }

  DistributionTable table(const std::string& name) const {
    try {
      return load_distribution(name);
    } catch (const InputError& e) {
      fail(i_, e.what());
    }
  }

  void keyword(const std::string& word) {
    const auto* k = std::find_if(kKeywords.begin(), kKeywords.end(),
                                 [&](const auto& kw) { return matches(word, kw.first); });
    if (k == kKeywords.end()) {
      fail(i_, word == "help" ? kUsage : "unknown keyword (What is \"" + word + "\"?); " + kUsage);
    }
    switch (k->second) {
      case Keyword::kLimit:
        return limit();
      case Keyword::kDelay:
        return delay();
      case Keyword::kLoss:
        return loss();
      case Keyword::kSeed:
        return seed();
      case Keyword::kEcn:
        raw_.ecn_at = i_;
        return;
      case Keyword::kReorder:
        raw_.reorder_at = i_;
        raw_.reorder = percent_value("PERCENT");
        if (next_is_number()) {
          raw_.reorder_corr = percent_value("CORRELATION");
        }
        return;
      case Keyword::kCorrupt:
        raw_.corrupt = percent_value("PERCENT");
        if (next_is_number()) {
          raw_.corrupt_corr = percent_value("CORRELATION");
        }
        return;
      case Keyword::kGap:
        return gap();
      case Keyword::kDuplicate:
        raw_.duplicate = percent_value("PERCENT");
        if (next_is_number()) {
          raw_.duplicate_corr = percent_value("CORRELATION");
        }
        return;
      case Keyword::kDistribution:
        raw_.distribution_at = i_;
        raw_.distribution = table(value("a distribution name (normal, pareto, paretonormal, ...)"));
        return;
      case Keyword::kRate:
        return rate();
      case Keyword::kSlot:
        return slot();
    }
  }

  void limit() {
    const auto n = parse_size(value("PACKETS"));
    if (!n || *n > UINT32_MAX) {
      fail(i_, "not a packet count (e.g. 1000)");
    }
    if (*n == 0) {
      fail(i_, "must be at least 1 packet");
    }
    raw_.limit = *n;
  }

  void delay() {
    raw_.delay_at = i_;
    raw_.latency = delay_time(value("TIME"));
    if (next_is_number()) {
      raw_.jitter = delay_time(value("JITTER"));
      if (next_is_number()) {
        raw_.delay_corr = percent_value("CORRELATION");
      }
    }
  }

  void loss() {
    const std::size_t at = i_;
    if (netem_probability(raw_.loss) > 0 || raw_.loss_model) {
      fail(at, "duplicate loss argument");
    }
    const std::string& model = value("a loss model (random, state, gemodel) or a percentage");
    if (starts_with_digit(model) || model == "random") {  // "loss P" is the old random syntax
      raw_.loss = starts_with_digit(model) ? percent(model) : percent_value("PERCENT");
      if (next_is_number()) {
        raw_.loss_corr = percent_value("CORRELATION");
      }
    } else if (model == "state") {
      LossSettings s;
      s.model = LossModel::kState;
      s.p13 = percent_value("P13");
      s.p31 = 1 - s.p13;  // defaults as tc-netem(8): p32 = 0, p23 = 1, p14 = 0
      s.p32 = 0;
      s.p23 = 1;
      s.p14 = 0;
      for (double* p : {&s.p31, &s.p32, &s.p23, &s.p14}) {
        if (!next_is_number()) {
          break;
        }
        *p = percent_value("a transition probability");
      }
      if (s.p13 + s.p14 > 1) {
        fail(at, "loss state: p13 + p14 must not exceed 1");
      }
      if (s.p31 + s.p32 > 1) {
        fail(at, "loss state: p31 + p32 must not exceed 1");
      }
      raw_.loss_model = s;
    } else if (model == "gemodel") {
      LossSettings s;
      s.model = LossModel::kGemodel;
      s.ge_p = percent_value("PERCENT");
      s.ge_r = 1 - s.ge_p;  // defaults as iproute2: r = 1 - p, 1-h = 1, 1-k = 0
      s.ge_1_h = 1;
      s.ge_1_k = 0;
      for (double* p : {&s.ge_r, &s.ge_1_h, &s.ge_1_k}) {
        if (!next_is_number()) {
          break;
        }
        *p = percent_value("a Gilbert-Elliott probability");
      }
      raw_.loss_model = s;
    } else {
      fail(i_, "unknown loss model (random, state, gemodel, or a percentage)");
    }
  }

  void seed() {
    const auto n = parse_integer(value("SEED"), 10, 0, std::numeric_limits<std::int64_t>::max());
    if (!n) {
      fail(i_, "not a seed: a decimal integer in [0, 2^63-1]");
    }
    raw_.seed = static_cast<std::uint64_t>(*n);
  }

  void gap() {
    raw_.gap_at = i_;
    const auto n = parse_integer(value("DISTANCE"), 0, 0, kMaxGap);
    if (!n) {
      fail(i_, "not a gap: an integer in [0, 2^30] (packets)");
    }
    raw_.gap = static_cast<std::uint32_t>(*n);
  }

  void rate() {
    raw_.rate_at = i_;
    const std::string& text = value("RATE");
    if (text.find('%') != std::string::npos) {
      fail(i_, "a rate in percent of the device speed needs a device; give a rate (e.g. 100mbit)");
    }
    const auto r = parse_rate(text);
    if (!r) {
      fail(i_, "not a rate (e.g. 100mbit, 10gbit, 1500kbit; a bare number is bit/s; kbps is kilobytes/s)");
    }
    if (static_cast<double>(r->bps) > kMaxRateBps) {
      fail(i_, "rates above 1000tbit are not supported");
    }
    raw_.rate = *r;
    if (next_is_signed_number()) {
      raw_.packet_overhead = static_cast<std::int32_t>(overhead(value("PACKETOVERHEAD"), -1500, 1500));
    }
    if (next_is_number()) {
      raw_.cell_size = static_cast<std::uint32_t>(overhead(value("CELLSIZE"), 0, 65535));
    }
    if (next_is_signed_number()) {
      raw_.cell_overhead = static_cast<std::int32_t>(overhead(value("CELLOVERHEAD"), -255, 255));
    }
  }

  std::int64_t overhead(const std::string& text, std::int64_t lo, std::int64_t hi) const {
    const auto n = parse_integer(text, 0, lo, hi);
    if (!n) {
      fail(i_, "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] (bytes)");
    }
    return *n;
  }

  void slot() {
    SlotSettings s;
    if (next_is_number()) {
      s.min_delay = time64(value("MIN_DELAY"));
      s.max_delay = s.min_delay;
      if (next_is_number()) {
        s.max_delay = time64(value("MAX_DELAY"));
        if (s.max_delay < s.min_delay) {
          fail(i_, "slot max_delay must not be below min_delay");
        }
      }
    } else {
      if (value("MIN_DELAY or distribution") != "distribution") {
        fail(i_, "unknown slot parameter (expected a time or `distribution`)");
      }
      s.use_distribution = true;
      s.distribution = table(value("a distribution name"));
      s.dist_delay = time64(value("DELAY"));
      s.dist_jitter = time64(value("JITTER"));
      if (s.dist_jitter.count() <= 0) {
        fail(i_, "Non-positive jitter: slot distribution needs a jitter above 0");
      }
    }
    if (next_matches("packets")) {
      ++i_;
      const auto n = parse_integer(value("MAX_PACKETS"), 0, 0, std::numeric_limits<std::int32_t>::max());
      if (!n) {
        fail(i_, "not a packet count (an integer in [0, 2^31-1])");
      }
      s.max_packets = *n;
    }
    if (next_matches("bytes")) {
      ++i_;
      const auto n = parse_size(value("MAX_BYTES"));
      if (!n || *n > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
        fail(i_, "not a byte count (e.g. 64k, 9000; at most 2^31-1)");
      }
      s.max_bytes = static_cast<std::int64_t>(*n);
    }
    raw_.slot = s;
  }

  // The checks netem_parse_opt makes after reading every argument, then the mapping.
  NetemResult finish() {
    const RawNetem& r = raw_;
    const bool has_latency = r.latency.count() != 0;
    if (netem_probability(r.reorder) != 0) {
      if (!has_latency) {
        fail(r.reorder_at, "reordering not possible without specifying some delay");
      }
    } else if (r.gap > 0) {
      fail(r.gap_at, "gap specified without reorder probability");
    }
    if (r.ecn_at && netem_probability(r.loss) == 0 && !r.loss_model) {
      fail(*r.ecn_at, "ecn requested without loss model");
    }
    if (r.distribution && (!has_latency || r.jitter.count() == 0)) {
      fail(r.distribution_at, "distribution specified but no latency and jitter values");
    }
    if (r.rate && r.cell_overhead != 0 && r.cell_size == 0) {
      fail(r.rate_at, "a cell overhead needs a cell size");
    }

    NetemResult out;
    out.seed = r.seed;
    DirectionSpec& d = out.dir;
    d.limit_packets = r.limit;
    if (r.delay_at) {
      DelaySettings s;
      s.delay = r.latency;
      s.jitter = r.jitter;
      s.correlation = r.delay_corr;
      s.distribution = r.distribution.value_or(DistributionTable{"uniform", {}});
      if (netem_probability(r.reorder) != 0) {
        s.reorder_p = r.reorder;
        s.reorder_correlation = r.reorder_corr;
        s.reorder_gap = r.gap;
      }
      d.delay = s;
    }
    if (r.loss_model) {
      d.loss = r.loss_model;
    } else if (netem_probability(r.loss) != 0) {
      d.loss = LossSettings{};
      d.loss->p = r.loss;
      d.loss->correlation = r.loss_corr;
    }
    if (d.loss) {
      d.loss->ecn = r.ecn_at.has_value();
    }
    if (netem_probability(r.duplicate) != 0) {
      // iproute2 sends the correlations (TCA_NETEM_CORR: delay, loss, duplicate together) only
      // when a delay or loss correlation was given; otherwise the kernel never sees the
      // duplicate correlation, so neither does the profile. (A correlation written as 0 % is
      // taken as not given: the kernel's result is the same for delay and loss.)
      const bool sent = r.delay_corr != 0 || r.loss_corr != 0;
      d.duplicate = ChanceSettings{r.duplicate, sent ? r.duplicate_corr : 0.0};
    }
    if (netem_probability(r.corrupt) != 0) {
      d.corrupt = ChanceSettings{r.corrupt, r.corrupt_corr};
    }
    if (r.rate && r.rate->bps >= 8) {
      RateSettings s;
      s.rate = BitRate{r.rate->bps / 8 * 8};  // netem counts whole bytes per second
      s.packet_overhead_bytes = r.packet_overhead;
      s.cell_bytes = r.cell_size;
      s.cell_overhead_bytes = r.cell_overhead;
      d.rate = s;
    }
    d.slot = r.slot;
    return out;
  }

  const std::vector<std::string>& args_;
  std::size_t i_ = 0;
  RawNetem raw_;
};

}  // namespace

std::vector<std::string> split_args(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t start = text.find_first_not_of(" \t\r\n", i);
    if (start == std::string_view::npos) {
      break;
    }
    const std::size_t end = std::min(text.find_first_of(" \t\r\n", start), text.size());
    out.emplace_back(text.substr(start, end - start));
    i = end;
  }
  return out;
}

NetemResult netem_to_direction(const std::vector<std::string>& args) {
  return Parser(args).run();
}

}  // namespace gw
