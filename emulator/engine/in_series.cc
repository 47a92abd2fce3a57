#include "emulator/engine/in_series.h"

#include <algorithm>
#include <stdexcept>

namespace gw {

namespace {

bool traced(const RateSettings& r) {
  return !r.trace.empty() || !r.mahimahi.empty();
}

// The one link of `links` for which `has` holds, or nullptr; throws when several do.
template <typename Has>
const SeriesLink* at_most_one(const std::vector<SeriesLink>& links, Has has, const std::string& what) {
  const SeriesLink* found = nullptr;
  for (const SeriesLink& l : links) {
    if (!has(*l.spec)) {
      continue;
    }
    if (found != nullptr) {
      throw std::invalid_argument("links " + found->name + " and " + l.name + " both have " + what +
                                  ", which one emulator stage per path cannot carry in series");
    }
    found = &l;
  }
  return found;
}

// Independent chances in series: 1 - prod(1 - p). Correlated ones do not combine.
std::optional<ChanceSettings> chances(const std::vector<SeriesLink>& links,
                                      std::optional<ChanceSettings> DirectionSpec::*field,
                                      const std::string& what) {
  std::optional<ChanceSettings> out;
  double pass = 1;
  int given = 0;
  for (const SeriesLink& l : links) {
    const auto& c = l.spec->*field;
    if (!c) {
      continue;
    }
    ++given;
    out = *c;
    pass *= 1 - c->p;
  }
  if (given > 1) {
    (void)at_most_one(
        links, [&](const DirectionSpec& d) { return (d.*field) && (d.*field)->correlation > 0; },
        "correlated " + what);
    out->correlation = 0;
    out->p = 1 - pass;
  }
  return out;
}

std::optional<LossSettings> losses(const std::vector<SeriesLink>& links) {
  std::optional<LossSettings> out;
  double pass = 1;
  int given = 0;
  for (const SeriesLink& l : links) {
    if (!l.spec->loss) {
      continue;
    }
    ++given;
    out = *l.spec->loss;
    pass *= 1 - l.spec->loss->p;
  }
  if (given > 1) {
    for (const SeriesLink& l : links) {
      if (l.spec->loss && (l.spec->loss->model != LossModel::kRandom || l.spec->loss->correlation > 0)) {
        throw std::invalid_argument(
            "link " + l.name +
            " has a correlated or bursty loss model and another link of the path loses "
            "packets too, which one emulator stage per path cannot carry in series");
      }
    }
    for (const SeriesLink& l : links) {
      if (l.spec->loss && l.spec->loss->ecn != out->ecn) {
        throw std::invalid_argument("links of one path mark CE for loss on some links and drop on others (" +
                                    l.name + "), which one emulator stage per path cannot carry");
      }
    }
    out->p = 1 - pass;
  }
  return out;
}

// The link whose rate binds: the slowest constant rate, or the one traced rate.
const SeriesLink* bottleneck(const std::vector<SeriesLink>& links) {
  const SeriesLink* trace = at_most_one(
      links, [](const DirectionSpec& d) { return d.rate && traced(*d.rate); }, "a rate trace");
  const SeriesLink* slowest = nullptr;
  for (const SeriesLink& l : links) {
    if (!l.spec->rate || l.spec->rate->rate.unlimited() || traced(*l.spec->rate)) {
      continue;
    }
    if (slowest == nullptr || l.spec->rate->rate.bps < slowest->spec->rate->rate.bps) {
      slowest = &l;
    }
  }
  if (trace != nullptr && slowest != nullptr) {
    throw std::invalid_argument("link " + trace->name + " has a rate trace and " + slowest->name +
                                " a rate: which binds changes with time, which one emulator stage per path "
                                "cannot carry");
  }
  return trace != nullptr ? trace : slowest;
}

}  // namespace

DirectionSpec in_series(const std::vector<SeriesLink>& links) {
  if (links.size() == 1) {
    return *links.front().spec;
  }
  for (const SeriesLink& l : links) {
    if (l.spec->incast || l.spec->slot) {
      throw std::invalid_argument("link " + l.name + " has " + (l.spec->incast ? "incast" : "a slot") +
                                  " settings, which do not compose along a path of several links");
    }
  }
  DirectionSpec out;
  for (const SeriesLink& l : links) {
    if (l.spec->limit_packets) {
      out.limit_packets =
          std::min(out.limit_packets.value_or(*l.spec->limit_packets), *l.spec->limit_packets);
    }
  }
  out.loss = losses(links);
  out.duplicate = chances(links, &DirectionSpec::duplicate, "duplication");
  out.corrupt = chances(links, &DirectionSpec::corrupt, "corruption");

  // The bottleneck's rate and queue; a queue elsewhere holds no standing backlog, unless it
  // makes cross traffic of its own.
  const SeriesLink* neck = bottleneck(links);
  (void)at_most_one(
      links, [](const DirectionSpec& d) { return d.queue && !d.queue->microbursts.empty(); }, "microbursts");
  if (neck != nullptr) {
    out.rate = neck->spec->rate;
    out.queue = neck->spec->queue;
  }
  for (const SeriesLink& l : links) {
    if (l.spec->queue && !l.spec->queue->microbursts.empty()) {
      if (!out.queue) {
        out.queue = l.spec->queue;
      }
      out.queue->microbursts = l.spec->queue->microbursts;
    }
  }

  const SeriesLink* jittered = at_most_one(
      links,
      [](const DirectionSpec& d) {
        return d.delay && (d.delay->jitter.count() > 0 || d.delay->reorder_p > 0);
      },
      "jitter or reordering");
  for (const SeriesLink& l : links) {
    if (!l.spec->delay) {
      continue;
    }
    if (!out.delay) {
      out.delay = DelaySettings{};
    }
    out.delay->delay += l.spec->delay->delay;
    out.delay->distance_km += l.spec->delay->distance_km;
  }
  if (jittered != nullptr) {
    const DelaySettings& j = *jittered->spec->delay;
    out.delay->jitter = j.jitter;
    out.delay->correlation = j.correlation;
    out.delay->distribution = j.distribution;
    out.delay->reorder_policy = j.reorder_policy;
    out.delay->reorder_p = j.reorder_p;
    out.delay->reorder_correlation = j.reorder_correlation;
    out.delay->reorder_gap = j.reorder_gap;
  }
  return out;
}

}  // namespace gw
