#include "harness/run/time_attribution.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gw {
namespace {

// Splits `amount` over `weights` so that the integer parts add up to it exactly: each part
// rounded down, the nanoseconds left over given to the largest weights first.
std::vector<Duration> split(Duration amount, const std::vector<double>& weights) {
  std::vector<Duration> out(weights.size(), Duration{0});
  double sum = 0;
  for (const double w : weights) {
    sum += w;
  }
  if (amount.count() <= 0 || sum <= 0) {
    return out;
  }
  std::int64_t given = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    out[i] = Duration{
        static_cast<std::int64_t>(std::floor(static_cast<double>(amount.count()) * weights[i] / sum))};
    given += out[i].count();
  }
  std::vector<std::size_t> order(weights.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return weights[a] > weights[b]; });
  for (std::size_t k = 0; given < amount.count(); k = (k + 1) % order.size()) {
    if (weights[order[k]] > 0) {
      out[order[k]] += Duration{1};
      ++given;
    }
  }
  return out;
}

double ns(Duration d) {
  return static_cast<double>(d.count());
}

}  // namespace

std::string_view time_part_name(TimePart p) {
  switch (p) {
    case TimePart::kPropagation:
      return "propagation";
    case TimePart::kSerialization:
      return "serialization";
    case TimePart::kNcclWindow:
      return "nccl_window";
    case TimePart::kQueueing:
      return "queueing";
    case TimePart::kCwndWindow:
      return "cwnd_window";
    case TimePart::kCcCuts:
      return "cc_cuts";
    case TimePart::kLossRecovery:
      return "loss_recovery";
    case TimePart::kOther:
      return "other";
  }
  return "other";
}

WanLedger& WanLedger::operator+=(const WanLedger& o) {
  chrono += o.chrono;
  retransmits += o.retransmits;
  timeouts += o.timeouts;
  cnps += o.cnps;
  return *this;
}

WanLedger& WanLedger::operator-=(const WanLedger& o) {
  chrono -= o.chrono;
  retransmits -= o.retransmits;
  timeouts -= o.timeouts;
  cnps -= o.cnps;
  return *this;
}

Duration TimeAttribution::total() const {
  Duration t{0};
  for (const Duration d : part) {
    t += d;
  }
  return t;
}

TimeAttribution attribute_time(Duration measured, const ModelTimes& model,
                               const std::optional<WanLedger>& wan) {
  TimeAttribution a;
  a.transport_measured = wan.has_value();
  if (wan) {
    a.wan = *wan;
  }
  measured = std::max(measured, Duration{0});
  const Duration propagation = std::max(model.propagation, Duration{0});
  const Duration serialization = std::max(model.network - propagation, Duration{0});
  const Duration window = std::max(model.predicted - std::max(model.network, propagation), Duration{0});
  const Duration modelled = propagation + serialization + window;
  if (measured <= modelled) {
    const std::vector<Duration> parts = split(measured, {ns(propagation), ns(serialization), ns(window)});
    a[TimePart::kPropagation] = parts[0];
    a[TimePart::kSerialization] = parts[1];
    a[TimePart::kNcclWindow] = parts[2];
    if (modelled.count() == 0) {
      a[TimePart::kOther] = measured;  // nothing modelled (an op of zero bytes on one rank)
    }
    return a;
  }
  a[TimePart::kPropagation] = propagation;
  a[TimePart::kSerialization] = serialization;
  a[TimePart::kNcclWindow] = window;
  Duration excess = measured - modelled;
  if (!wan) {
    a[TimePart::kOther] = excess;
    return a;
  }
  const transport::SendChrono& c = wan->chrono;
  if (c.rtt_base.count() > 0 && c.rtt_queueing.count() > 0) {
    const double inflation = ns(c.rtt_queueing) / ns(c.rtt_base);
    a[TimePart::kQueueing] =
        std::min(excess, Duration{static_cast<std::int64_t>(std::llround(ns(propagation) * inflation))});
    excess -= a[TimePart::kQueueing];
  }
  const std::vector<Duration> held =
      split(excess, {ns(c[transport::SendState::kCwndLimited]), ns(c[transport::SendState::kCcLimited]),
                     ns(c[transport::SendState::kRecovery])});
  a[TimePart::kCwndWindow] = held[0];
  a[TimePart::kCcCuts] = held[1];
  a[TimePart::kLossRecovery] = held[2];
  a[TimePart::kOther] = excess - held[0] - held[1] - held[2];
  return a;
}

}  // namespace gw
