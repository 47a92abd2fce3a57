// The path policies (docs/steering.md gives each one's source) and the pieces they share.
#include "generators/steering/path_controller.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace gw::steering {

namespace {

// splitmix64's finalizer (Steele, Lea, Flood, "Fast splittable pseudorandom number
// generators", OOPSLA 2014): a fixed, well-mixed hash of 64 bits.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::vector<std::uint32_t> counts_of(std::span<const std::uint32_t> paths, std::size_t path_count) {
  std::vector<std::uint32_t> counts(path_count, 0);
  for (std::uint32_t p : paths) {
    ++counts[p];
  }
  return counts;
}

// The common case: a controller that wants a share of traffic per path; queue pairs follow
// by assign_by_weights, a new one goes where its path is shortest of its share.
class WeightedController : public PathController {
 public:
  explicit WeightedController(std::uint32_t path_count) : weights_(path_count, 1.0 / path_count) {}

  std::vector<std::uint32_t> steer(Instant now, std::span<const PathSample> paths,
                                   std::span<const QpSample> qps) override {
    update(now, paths);
    primed_ = true;
    std::vector<std::uint32_t> current;
    current.reserve(qps.size());
    for (const QpSample& q : qps) {
      current.push_back(q.path);
    }
    return assign_by_weights(weights_, current);
  }

  std::uint32_t place(const QpSample& /*qp*/, std::span<const PathSample> paths,
                      std::span<const std::uint32_t> others) override {
    if (!primed_) {
      // The first queue pair opens before any interval has ended: shares from what is known
      // of the paths already (their capacity and base delay).
      update(kEpoch, paths);
      primed_ = true;
    }
    const std::vector<std::uint32_t> counts = counts_of(others, weights_.size());
    const double n = static_cast<double>(others.size() + 1);
    std::uint32_t best = 0;
    double most = -std::numeric_limits<double>::infinity();
    for (std::uint32_t p = 0; p < weights_.size(); ++p) {
      const double deficit = weights_[p] * n - counts[p];
      if (deficit > most + 1e-9) {
        most = deficit;
        best = p;
      }
    }
    return best;
  }

  std::vector<double> weights() const override { return weights_; }

 protected:
  virtual void update(Instant now, std::span<const PathSample> paths) = 0;
  std::vector<double> weights_;

 private:
  bool primed_ = false;
};

// `static`: equal shares, whatever happens (what a scenario without a controller gets).
class StaticController final : public WeightedController {
 public:
  using WeightedController::WeightedController;

 private:
  void update(Instant /*now*/, std::span<const PathSample> /*paths*/) override {}
};

// `te`: shares in proportion to each path's capacity less the headroom kept free, over the
// paths that are up (SWAN, Hong et al., SIGCOMM 2013, keeps scratch capacity s on every link
// so that updates stay congestion-free; B4, Jain et al., SIGCOMM 2013, splits a flow group
// over tunnels by their capacity).
class TeController final : public WeightedController {
 public:
  TeController(std::uint32_t path_count, double headroom)
      : WeightedController(path_count), headroom_(headroom) {}

  // Every up path has run into its headroom for kBusyIntervals in a row: the traffic needs more
  // than the paths give with their scratch capacity kept free.
  bool wants_capacity() const override { return busy_ >= kBusyIntervals; }

 private:
  static constexpr std::uint32_t kBusyIntervals = 3;

  void update(Instant /*now*/, std::span<const PathSample> paths) override {
    bool any_up = false;
    bool all_busy = true;
    for (const PathSample& p : paths) {
      if (!p.down()) {
        any_up = true;
        all_busy = all_busy && p.utilization >= 1 - headroom_;
      }
    }
    busy_ = any_up && all_busy ? busy_ + 1 : 0;
    constexpr double kUnlimited = 1e15;  // a path without a rate limit counts as very wide
    double total = 0;
    std::vector<double> w(paths.size(), 0);
    for (std::size_t p = 0; p < paths.size(); ++p) {
      if (!paths[p].down()) {
        const double cap =
            paths[p].capacity.unlimited() ? kUnlimited : static_cast<double>(paths[p].capacity.bps);
        w[p] = cap * (1 - headroom_);
        total += w[p];
      }
    }
    if (total <= 0) {
      return;  // nothing up: keep the last shares
    }
    for (std::size_t p = 0; p < w.size(); ++p) {
      weights_[p] = w[p] / total;
    }
  }
  double headroom_;
  std::uint32_t busy_ = 0;
};

// `seed`: the controller of the design gradwall was conceived from, as written there. All
// traffic starts on the direct path (the route's first); every interval, if the direct path's
// queueing delay grew (its gradient is positive) its share is cut by a factor (the pseudo-code's
// `rate *= 0.95`) and the rest goes "through a third point", the alternative with the least
// queueing; else, below the target delay, the direct path takes back a fixed step (`+= 1.5`).
// It reads neither capacity nor loss, which is what its results show.
class SeedController final : public WeightedController {
 public:
  SeedController(std::uint32_t path_count, const Settings& s) : WeightedController(path_count), s_(s) {
    std::fill(weights_.begin(), weights_.end(), 0.0);
  }

 private:
  void update(Instant /*now*/, std::span<const PathSample> paths) override {
    const Duration q = paths[direct_].queue_delay;
    if (q > last_queue_ && q > Duration{0}) {
      share_ *= s_.seed_backoff;
    } else if (q < s_.seed_target) {
      share_ = std::min(1.0, share_ + s_.seed_step);
    }
    last_queue_ = q;
    std::uint32_t detour = direct_;
    for (std::uint32_t p = 0; p < paths.size(); ++p) {
      if (p != direct_ && (detour == direct_ || paths[p].queue_delay < paths[detour].queue_delay)) {
        detour = p;
      }
    }
    std::fill(weights_.begin(), weights_.end(), 0.0);
    weights_[direct_] = detour == direct_ ? 1.0 : share_;
    if (detour != direct_) {
      weights_[detour] = 1.0 - share_;
    }
  }
  static constexpr std::uint32_t direct_ = 0;
  Settings s_;
  double share_ = 1.0;
  Duration last_queue_{0};
};

// `ecmp`: each queue pair's path is a hash of its 5-tuple (RoCE puts per-QP entropy in the UDP
// source port, so two QPs of one host pair may hash apart or collide), over the paths that
// are up: when a path fails, routing withdraws it and the hash is taken modulo the rest (plain
// modulo hashing, so most pairs move, not only the failed path's).
class EcmpController : public PathController {
 public:
  explicit EcmpController(std::uint32_t path_count) : path_count_(path_count) {}

  std::vector<std::uint32_t> steer(Instant /*now*/, std::span<const PathSample> paths,
                                   std::span<const QpSample> qps) override {
    std::vector<std::uint32_t> out;
    out.reserve(qps.size());
    for (std::size_t i = 0; i < qps.size(); ++i) {
      out.push_back(hash_path(entropy(i, qps[i]), paths));
    }
    last_ = out;
    return out;
  }
  std::uint32_t place(const QpSample& qp, std::span<const PathSample> paths,
                      std::span<const std::uint32_t> others) override {
    const std::uint32_t p = hash_path(entropy(others.size(), qp), paths);
    last_.resize(others.size());
    last_.push_back(p);
    return p;
  }
  std::vector<double> weights() const override {
    std::vector<double> w(path_count_, 0);
    for (std::uint32_t p : last_) {
      w[p] += 1.0 / static_cast<double>(last_.size());
    }
    return w;
  }

 protected:
  virtual std::uint64_t entropy(std::size_t /*index*/, const QpSample& qp) const { return qp.entropy; }
  std::uint32_t path_count_;
  std::vector<std::uint32_t> last_;
};

// `plb`: ECMP, plus Protective Load Balancing (Qureshi et al., SIGCOMM 2022): a queue pair
// that sees `plb_rounds` congested rounds in a row (a round: one interval; congested: at least
// `plb_ce_fraction` of its packets CE-marked) or a retransmission timeout draws new entropy,
// so the hash sends it somewhere else (or, by chance, to the same path).
class PlbController final : public EcmpController {
 public:
  PlbController(std::uint32_t path_count, const Settings& s) : EcmpController(path_count), s_(s) {}

  std::vector<std::uint32_t> steer(Instant now, std::span<const PathSample> paths,
                                   std::span<const QpSample> qps) override {
    salt_.resize(qps.size(), 0);
    rounds_.resize(qps.size(), 0);
    for (std::size_t i = 0; i < qps.size(); ++i) {
      const QpSample& q = qps[i];
      const bool congested =
          q.packets_received > 0 &&
          static_cast<double>(q.ce_marked) >= s_.plb_ce_fraction * static_cast<double>(q.packets_received);
      rounds_[i] = congested ? rounds_[i] + 1 : 0;
      if (rounds_[i] >= s_.plb_rounds || q.timeouts > 0) {
        salt_[i] = mix(salt_[i] + i + 1);
        rounds_[i] = 0;
      }
    }
    return EcmpController::steer(now, paths, qps);
  }

 private:
  std::uint64_t entropy(std::size_t index, const QpSample& qp) const override {
    return index < salt_.size() ? qp.entropy ^ salt_[index] : qp.entropy;
  }
  Settings s_;
  std::vector<std::uint64_t> salt_;
  std::vector<std::uint32_t> rounds_;
};

struct Entry {
  std::string_view name;
  std::function<std::unique_ptr<PathController>(const Settings&, std::uint32_t)> make;
};

const std::array<Entry, 5> kPolicies{{
    {"static", [](const Settings&, std::uint32_t n) { return std::make_unique<StaticController>(n); }},
    {"ecmp", [](const Settings&, std::uint32_t n) { return std::make_unique<EcmpController>(n); }},
    {"plb", [](const Settings& s, std::uint32_t n) { return std::make_unique<PlbController>(n, s); }},
    {"te", [](const Settings& s, std::uint32_t n) { return std::make_unique<TeController>(n, s.headroom); }},
    {"seed", [](const Settings& s, std::uint32_t n) { return std::make_unique<SeedController>(n, s); }},
}};

}  // namespace

std::unique_ptr<PathController> make_path_controller(const Settings& s, std::uint32_t path_count) {
  if (path_count == 0) {
    throw std::invalid_argument("a path controller needs at least one path");
  }
  for (const Entry& e : kPolicies) {
    if (e.name == s.policy) {
      return e.make(s, path_count);
    }
  }
  throw std::invalid_argument("unknown path policy '" + s.policy + "'");
}

std::vector<std::string_view> policy_names() {
  std::vector<std::string_view> names;
  for (const Entry& e : kPolicies) {
    names.push_back(e.name);
  }
  return names;
}

std::vector<std::uint32_t> assign_by_weights(std::span<const double> weights,
                                             std::span<const std::uint32_t> current) {
  const std::size_t paths = weights.size();
  const std::size_t n = current.size();
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  // Largest remainder: each path's floor of its quota, then one more to the largest
  // remainders (ties to the lower index).
  std::vector<std::uint32_t> target(paths, 0);
  std::vector<std::pair<double, std::size_t>> remainders;
  std::size_t given = 0;
  for (std::size_t p = 0; p < paths; ++p) {
    const double quota = total > 0 ? weights[p] / total * static_cast<double>(n)
                                   : static_cast<double>(n) / static_cast<double>(paths);
    target[p] = static_cast<std::uint32_t>(std::floor(quota + 1e-9));
    given += target[p];
    remainders.emplace_back(quota - target[p], p);
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first + 1e-9; });
  for (std::size_t i = 0; given < n; ++i, ++given) {
    ++target[remainders[i % paths].second];
  }
  std::vector<std::uint32_t> out(current.begin(), current.end());
  std::vector<std::uint32_t> counts = counts_of(current, paths);
  // The pairs over their path's target move (the last ones first), each to the path short of
  // its target by most.
  for (std::size_t i = n; i-- > 0;) {
    const std::uint32_t from = out[i];
    if (counts[from] <= target[from]) {
      continue;
    }
    std::uint32_t to = 0;
    std::int64_t most = std::numeric_limits<std::int64_t>::min();
    for (std::uint32_t p = 0; p < paths; ++p) {
      const std::int64_t deficit = std::int64_t{target[p]} - counts[p];
      if (deficit > most) {
        most = deficit;
        to = p;
      }
    }
    if (most <= 0) {
      continue;
    }
    --counts[from];
    ++counts[to];
    out[i] = to;
  }
  return out;
}

std::uint32_t hash_path(std::uint64_t entropy, std::span<const PathSample> paths) {
  std::vector<std::uint32_t> up;
  for (std::uint32_t p = 0; p < paths.size(); ++p) {
    if (!paths[p].down()) {
      up.push_back(p);
    }
  }
  if (up.empty()) {
    return static_cast<std::uint32_t>(mix(entropy) % paths.size());
  }
  return up[mix(entropy) % up.size()];
}

Duration lag_after_move(const PathSample& from, const PathSample& to) {
  if (from.down()) {
    return Duration{0};
  }
  const Duration d = from.delay() - to.delay();
  if (d <= Duration{0}) {
    return Duration{0};
  }
  return d + d / 10 + Duration{100'000};
}

}  // namespace gw::steering
