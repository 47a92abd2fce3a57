#include "emulator/engine/summary.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace gw {

void SummarySink::deliver(Packet&& p) {
  delays_.push_back((p.time - p.arrival).count());
  if (!p.duplicate) {
    original_bytes_ += p.size_bytes;
  }
  last_ = std::max(last_, p.time);
  if (next_ != nullptr) {
    next_->deliver(std::move(p));
  }
}

void SummarySink::dropped(Packet&& p, DropCause cause) {
  if (next_ != nullptr) {
    next_->dropped(std::move(p), cause);
  }
}

void SummarySink::arrival(Instant now, std::uint64_t queue_bytes) {
  first_ = std::min(first_, now);
  last_ = std::max(last_, now);
  queue_.push_back(static_cast<std::int64_t>(queue_bytes));
}

ImpairmentSummary SummarySink::finish(const PipelineCounters& totals, std::uint64_t held_at_end) {
  ImpairmentSummary s;
  s.counters = totals;
  s.delay_ns = percentiles(delays_);
  s.queue_bytes = percentiles(queue_);
  s.held_at_end = held_at_end;
  if (first_ != kNever && last_ > first_) {
    s.span = last_ - first_;
    s.goodput_bps = static_cast<double>(original_bytes_) * 8e9 / static_cast<double>(s.span.count());
  }
  return s;
}

namespace {

nlohmann::json percentiles_json(const Percentiles& p) {
  return {{"count", p.count}, {"mean", p.mean}, {"min", p.min},   {"p50", p.p50},
          {"p90", p.p90},     {"p99", p.p99},   {"p999", p.p999}, {"max", p.max}};
}

std::string ms(std::int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1e6);
  return buf;
}

}  // namespace

nlohmann::json to_json(const ImpairmentSummary& s) {
  const PipelineCounters& c = s.counters;
  nlohmann::json dropped = nlohmann::json::object();
  for (std::size_t i = 0; i < c.dropped.size(); ++i) {
    dropped[drop_cause_name(static_cast<DropCause>(i))] = c.dropped[i];
  }
  return {
      {"packets_in", c.packets_in},
      {"bytes_in", c.bytes_in},
      {"delivered", c.delivered},
      {"bytes_delivered", c.bytes_delivered},
      {"dropped", dropped},
      {"dropped_total", c.dropped_total()},
      {"marked_ce", c.marked_ce},
      {"duplicated", c.duplicated},
      {"corrupted", c.corrupted},
      {"reordered", c.reordered},
      {"held_at_end", s.held_at_end},
      {"cross_traffic_packets", c.synthetic_in},
      {"cross_traffic_dropped", c.synthetic_dropped},
      {"delay_ns", percentiles_json(s.delay_ns)},
      {"queue_bytes", percentiles_json(s.queue_bytes)},
      {"goodput_bps", s.goodput_bps},
      {"span_ns", s.span.count()},
  };
}

std::string to_table(const ImpairmentSummary& s) {
  const PipelineCounters& c = s.counters;
  std::ostringstream os;
  const auto row = [&](const std::string& k, const std::string& v) {
    os << "  " << k << std::string(k.size() < 24 ? 24 - k.size() : 1, ' ') << v << "\n";
  };
  const auto pct = [&](std::uint64_t n) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " (%.3f%%)",
                  c.packets_in ? 100.0 * static_cast<double>(n) / c.packets_in : 0.0);
    return std::to_string(n) + buf;
  };
  os << "packets\n";
  row("in", std::to_string(c.packets_in) + " (" + std::to_string(c.bytes_in) + " bytes)");
  row("delivered", std::to_string(c.delivered) + " (" + std::to_string(c.bytes_delivered) + " bytes)");
  row("dropped", pct(c.dropped_total()));
  for (std::size_t i = 0; i < c.dropped.size(); ++i) {
    if (c.dropped[i] > 0) {
      row(std::string("  ") + drop_cause_name(static_cast<DropCause>(i)), pct(c.dropped[i]));
    }
  }
  row("marked CE", pct(c.marked_ce));
  row("duplicated", pct(c.duplicated));
  row("corrupted", pct(c.corrupted));
  row("reordered", pct(c.reordered));
  if (c.synthetic_in > 0) {
    row("cross traffic",
        std::to_string(c.synthetic_in) + " packets, " + std::to_string(c.synthetic_dropped) + " dropped");
  }
  const Percentiles& d = s.delay_ns;
  os << "one-way delay (ms)\n";
  if (d.count == 0) {
    row("(none)", "nothing was delivered");
  } else {
    row("mean / p50", ms(static_cast<std::int64_t>(d.mean)) + " / " + ms(d.p50));
    row("p90 / p99", ms(d.p90) + " / " + ms(d.p99));
    row("p99.9 / max", ms(d.p999) + " / " + ms(d.max));
  }
  const Percentiles& q = s.queue_bytes;
  os << "bottleneck queue seen by arrivals (bytes)\n";
  row("p50 / p99 / max",
      std::to_string(q.p50) + " / " + std::to_string(q.p99) + " / " + std::to_string(q.max));
  char gp[64];
  std::snprintf(gp, sizeof gp, "%.3f Mbit/s over %.3f s", s.goodput_bps / 1e6,
                static_cast<double>(s.span.count()) / 1e9);
  os << "goodput\n";
  row("delivered", gp);
  const std::string err = accounting_error(s);
  os << "accounting\n";
  row("in = delivered - copies + dropped + held", err.empty() ? "balanced" : err);
  return os.str();
}

std::string accounting_error(const ImpairmentSummary& s) {
  const PipelineCounters& c = s.counters;
  const std::uint64_t out = c.delivered + c.dropped_total() + s.held_at_end;
  if (out == c.packets_in + c.duplicated) {
    return "";
  }
  std::ostringstream os;
  os << "UNBALANCED: in " << c.packets_in << " + copies " << c.duplicated << " != delivered " << c.delivered
     << " + dropped " << c.dropped_total() << " + held " << s.held_at_end;
  return os.str();
}

}  // namespace gw
