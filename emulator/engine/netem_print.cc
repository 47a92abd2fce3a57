// Printing netem arguments, after iproute2 tc/q_netem.c netem_print_opt (what `tc qdisc show`
// prints) and netem_parse_opt (what `tc qdisc add` reads). Independent implementation.
#include "emulator/engine/netem.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <limits>

#include "core/units.h"

namespace gw {
namespace {

bool is_distribution_file(const std::string& name) {
  return name.find('/') != std::string::npos || name.ends_with(".dist");
}

class Printer {
 public:
  Printer(std::vector<std::string>& notes, const NetemPrintOptions& o)
      : notes_(notes), show_(o.form == NetemForm::kShow), seed_(o.seed) {}

  // netem_print_opt's order: limit, delay, loss, duplicate, reorder, corrupt, seed, rate, slot,
  // ecn, gap. The command form keeps it, with ecn after the loss model and gap after reorder.
  std::string run(const DirectionSpec& d) {
    limit(d);
    if (d.delay) {
      delay(*d.delay);
    }
    if (d.loss) {
      loss(*d.loss);
    }
    if (!show_ && ecn_) {
      out_ += " ecn";
    }
    chance("duplicate", d.duplicate);
    const bool other_correlation =
        (d.delay && nonzero(d.delay->correlation)) ||
        (d.loss && d.loss->model == LossModel::kRandom && nonzero(d.loss->correlation));
    if (d.duplicate && nonzero(d.duplicate->p) && nonzero(d.duplicate->correlation) && !other_correlation) {
      notes_.push_back(
          "duplicate correlation without a delay or loss correlation (tc sends it only with one "
          "of them, so netem runs without it)");
    }
    if (d.delay) {
      reorder(*d.delay);
    }
    chance("corrupt", d.corrupt);
    if (seed_) {
      out_ += " seed " + std::to_string(*seed_);
    }
    if (d.rate) {
      rate(*d.rate);
    }
    if (d.slot) {
      slot(*d.slot);
    }
    if (show_ && ecn_) {
      out_ += " ecn ";  // netem_print_opt prints " ecn " with the trailing blank
    }
    if (show_ && gap_) {
      out_ += " gap " + std::to_string(*gap_);
    }
    unexpressible(d);
    return out_;
  }

 private:
  std::string percent(double p) const { return show_ ? format_percent(p) : format_percent_exact(p); }
  static bool nonzero(double p) { return netem_probability(p) != 0; }

  void limit(const DirectionSpec& d) {
    std::uint64_t n = d.limit_packets.value_or(kNetemDefaultLimit);
    if (!d.limit_packets) {
      notes_.push_back("no packet limit (netem always has one; printed its default, limit 1000)");
    } else if (n > UINT32_MAX) {
      notes_.push_back("limit " + std::to_string(n) + " packets (netem's limit is 32-bit)");
      n = UINT32_MAX;
    }
    out_ = "limit " + std::to_string(n);
  }

  // netem_print_opt (iproute2 >= 6.9): " delay D" if D != 0, then "  J" if J != 0, then the
  // correlation if both J and it are non-zero; times by sprint_time64.
  void delay(const DelaySettings& s) {
    if (s.distance_km != 0) {
      notes_.push_back("distance_km " + format_number(s.distance_km) + " (netem takes the equivalent delay)");
    }
    if (s.reorder_policy == ReorderPolicy::kPreserve) {
      notes_.push_back("reorder_policy preserve (netem sends in time-to-send order, so jitter reorders)");
    }
    const bool has_lat = s.delay.count() != 0;
    const bool has_jit = s.jitter.count() != 0;
    if (show_) {
      if (has_lat) {
        out_ += " delay " + format_time(s.delay);
        if (has_jit) {
          out_ += "  " + format_time(s.jitter);
          if (nonzero(s.correlation)) {
            out_ += " " + percent(s.correlation);
          }
        }
      }
    } else {  // `delay 0s` too, so that a zero delay reads back as one
      out_ += " delay " + format_time_exact(s.delay);
      // A correlation is positional after the jitter: with none, print a zero jitter so the
      // correlation still reads back (it has no effect then, as in netem).
      if (has_jit || nonzero(s.correlation)) {
        out_ += " " + format_time_exact(s.jitter);
        if (nonzero(s.correlation)) {
          out_ += " " + percent(s.correlation);
        }
      }
    }
    const std::string& name = s.distribution.name;
    if (s.distribution.values.empty() && name == "uniform") {
      return;
    }
    std::string shown = name;
    if (is_distribution_file(name)) {
      shown = std::filesystem::path(name).stem().string();
      notes_.push_back("distribution file " + name +
                       " (tc loads tables by name from its lib folder: install it as " + shown + ".dist)");
    }
    if (!has_lat || !has_jit) {
      notes_.push_back("distribution " + name + " without delay and jitter (netem needs both)");
    } else if (!show_) {  // tc qdisc show never prints the distribution
      out_ += " distribution " + shown;
    }
  }

  void loss(const LossSettings& s) {
    switch (s.model) {
      case LossModel::kRandom:
        if (!nonzero(s.p)) {
          break;
        }
        out_ += show_ ? " loss " : " loss random ";
        out_ += percent(s.p);
        if (nonzero(s.correlation)) {
          out_ += " " + percent(s.correlation);
        }
        ecn_ = s.ecn;
        break;
      case LossModel::kState:
        if (show_) {
          out_ += " loss state p13 " + percent(s.p13) + " p31 " + percent(s.p31) + " p32 " + percent(s.p32) +
                  " p23 " + percent(s.p23) + " p14 " + percent(s.p14);
        } else {
          out_ += " loss state " + percent(s.p13) + " " + percent(s.p31) + " " + percent(s.p32) + " " +
                  percent(s.p23) + " " + percent(s.p14);
        }
        ecn_ = s.ecn;
        break;
      case LossModel::kGemodel:
        if (show_) {
          out_ += " loss gemodel p " + percent(s.ge_p) + " r " + percent(s.ge_r) + " 1-h " +
                  percent(s.ge_1_h) + " 1-k " + percent(s.ge_1_k);
        } else {
          out_ += " loss gemodel " + percent(s.ge_p) + " " + percent(s.ge_r) + " " + percent(s.ge_1_h) + " " +
                  percent(s.ge_1_k);
        }
        ecn_ = s.ecn;
        break;
    }
    if (s.ecn && !ecn_) {
      notes_.push_back("ecn without a loss probability (netem needs a loss model for ecn)");
    }
  }

  // Printed whenever set. (tc qdisc add has a quirk here: netem_parse_opt sends a duplicate
  // correlation only along with some other correlation, so `duplicate 1% 50%` alone shows, and
  // runs, without its 50%.)
  void chance(const char* name, const std::optional<ChanceSettings>& c) {
    if (c && nonzero(c->p)) {
      out_ += std::string(" ") + name + " " + percent(c->p);
      if (nonzero(c->correlation)) {
        out_ += " " + percent(c->correlation);
      }
    }
  }

  void reorder(const DelaySettings& s) {
    if (!nonzero(s.reorder_p)) {
      return;
    }
    if (s.delay.count() == 0) {
      notes_.push_back("reorder without delay (netem needs some delay to reorder)");
      return;
    }
    out_ += " reorder " + percent(s.reorder_p);
    if (nonzero(s.reorder_correlation)) {
      out_ += " " + percent(s.reorder_correlation);
    }
    gap_ = std::max<std::uint32_t>(s.reorder_gap, 1);  // netem_parse_opt: gap 0 becomes 1
    if (!show_ && s.reorder_gap != 0) {
      out_ += " gap " + std::to_string(s.reorder_gap);
    }
  }

  void rate(const RateSettings& s) {
    if (!s.trace.empty()) {
      notes_.push_back("rate trace " + s.trace_file + " (netem has one fixed rate)");
    }
    if (!s.mahimahi.empty()) {
      notes_.push_back("mahimahi trace " + s.mahimahi_file + " (netem has one fixed rate)");
    }
    const BitRate bytes_rate{s.rate.bps / 8 * 8};
    if (bytes_rate.bps != s.rate.bps) {
      notes_.push_back("rate " + format_rate_exact(s.rate) +
                       " (netem counts whole bytes per second: " + format_rate_exact(bytes_rate) + ")");
    }
    if (bytes_rate.bps == 0) {
      return;
    }
    if (show_) {
      out_ += " rate " + format_rate(bytes_rate);
      if (s.packet_overhead_bytes != 0) {
        out_ += " packetoverhead " + std::to_string(s.packet_overhead_bytes);
      }
      if (s.cell_bytes != 0) {
        out_ += " cellsize " + std::to_string(s.cell_bytes);
      }
      if (s.cell_overhead_bytes != 0) {
        out_ += " celloverhead " + std::to_string(s.cell_overhead_bytes);
      }
      return;
    }
    out_ += " rate " + format_rate_exact(bytes_rate);
    if (s.packet_overhead_bytes != 0 || s.cell_bytes != 0 || s.cell_overhead_bytes != 0) {
      out_ += " " + std::to_string(s.packet_overhead_bytes);
    }
    if (s.cell_bytes != 0 || s.cell_overhead_bytes != 0) {
      out_ += " " + std::to_string(s.cell_bytes);
    }
    if (s.cell_overhead_bytes != 0) {
      out_ += " " + std::to_string(s.cell_overhead_bytes);
    }
  }

  void slot(const SlotSettings& s) {
    const auto time = [&](Duration d) { return show_ ? format_time(d) : format_time_exact(d); };
    if (s.use_distribution) {
      if (s.dist_jitter.count() <= 0) {
        notes_.push_back("slot distribution with no jitter (netem needs a jitter above 0)");
        return;
      }
      std::string name = s.distribution.name;
      if (is_distribution_file(name)) {
        name = std::filesystem::path(name).stem().string();
        notes_.push_back("slot distribution file " + s.distribution.name +
                         " (tc loads tables by name from its lib folder: install it as " + name + ".dist)");
      }
      if (name == "uniform") {
        notes_.push_back("slot distribution uniform (tc ships no uniform.dist; `slot MIN MAX` is uniform)");
      }
      out_ += " slot distribution ";
      out_ += show_ ? "" : name + " ";  // tc qdisc show leaves the name out
      out_ += time(s.dist_delay) + " " + time(s.dist_jitter);
    } else {
      if (s.min_delay.count() == 0 && s.max_delay.count() == 0) {
        return;  // netem_dump leaves out a slot without times
      }
      out_ += " slot " + time(s.min_delay);
      if (show_ || s.max_delay != s.min_delay) {
        out_ += " " + time(s.max_delay);
      }
    }
    if (s.max_packets > std::numeric_limits<std::int32_t>::max() ||
        s.max_bytes > std::numeric_limits<std::int32_t>::max()) {
      notes_.push_back("slot budgets above 2^31-1 (netem's are 32-bit)");
    }
    if (s.max_packets > 0) {
      out_ += " packets " + std::to_string(std::min<std::int64_t>(s.max_packets, INT32_MAX));
    }
    if (s.max_bytes > 0) {
      out_ += " bytes " + std::to_string(std::min<std::int64_t>(s.max_bytes, INT32_MAX));
    }
  }

  void unexpressible(const DirectionSpec& d) {
    if (d.queue) {
      const QueueSettings& q = *d.queue;
      if (q.limit_packets) {
        notes_.push_back("queue limit_packets " + std::to_string(*q.limit_packets) +
                         " (netem has one limit, for the whole qdisc)");
      }
      if (q.limit_bytes) {
        notes_.push_back("queue limit_bytes " + std::to_string(*q.limit_bytes) +
                         " (netem limits packets only)");
      }
      if (q.limit_time) {
        notes_.push_back("queue limit_time " + format_time_exact(*q.limit_time) +
                         " (netem has no sojourn limit)");
      }
      static constexpr std::array<const char*, 6> kAqm{"droptail", "red",     "codel",
                                                       "pie",      "dualpi2", "threshold"};
      if (q.aqm.kind != AqmKind::kDropTail) {
        notes_.push_back(std::string("aqm ") + kAqm[static_cast<std::size_t>(q.aqm.kind)] +
                         " (netem has no AQM; attach one as netem's child qdisc)");
      }
      if (!q.microbursts.empty()) {
        notes_.push_back(std::to_string(q.microbursts.size()) +
                         " microburst source(s) (netem has no cross traffic)");
      }
      if (q.telemetry.enabled) {
        notes_.push_back("int telemetry (netem does not stamp packets)");
      }
    }
    if (d.incast) {
      notes_.push_back("incast (shared-buffer egress ports; netem has one queue)");
    }
  }

  static std::string format_number(double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (s.ends_with('.')) {
      s.pop_back();
    }
    return s;
  }

  std::vector<std::string>& notes_;
  bool show_;
  std::optional<std::uint64_t> seed_;
  std::string out_;
  bool ecn_ = false;
  std::optional<std::uint32_t> gap_;
};

}  // namespace

std::string direction_to_netem(const DirectionSpec& dir, std::vector<std::string>& not_expressible,
                               const NetemPrintOptions& options) {
  return Printer(not_expressible, options).run(dir);
}

}  // namespace gw
