#include "generators/cc/learned.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <mutex>
#include <vector>

#include "generators/cc/params.h"
#include "generators/cc/rtt_estimator.h"

namespace gw::cc {

namespace {

constexpr int kIn = LearnedPolicy::kInputs;
constexpr int kH = LearnedPolicy::kHidden;
constexpr const char* kFeatureNames[LearnedPolicy::kFeatures] = {
    "min_rtt_inflation", "min_rtt_gradient", "send_ratio", "ce_fraction",
    "loss_fraction",     "int_queue",        "rate_share"};

// One dense layer with tanh: out[j] = tanh(b[j] + sum_i w[j][i] in[i]), sums in index order.
template <int In, int Out>
void dense_tanh(const float* w, const float* in, float* out) {
  const float* b = w + In * Out;
  for (int j = 0; j < Out; ++j) {
    float s = b[j];
    const float* row = w + j * In;
    for (int i = 0; i < In; ++i) {
      s += row[i] * in[i];
    }
    out[j] = policy_tanh(s);
  }
}

// The same layer from column-major weights (wt[i * Out + j]): the same operations per output.
template <int In, int Out>
void dense_tanh_columns(const float* wt, const float* in, float* out) {
  const float* b = wt + In * Out;
  float acc[Out];
  for (int j = 0; j < Out; ++j) {
    acc[j] = b[j];
  }
  for (int i = 0; i < In; ++i) {
    const float x = in[i];
    const float* col = wt + i * Out;
    for (int j = 0; j < Out; ++j) {
      acc[j] += col[j] * x;
    }
  }
  for (int j = 0; j < Out; ++j) {
    out[j] = policy_tanh(acc[j]);
  }
}

// Row-major (out x in) to column-major (in x out), biases kept after the weights.
void transpose_layer(const float* w, int in, int out, float* wt) {
  for (int j = 0; j < out; ++j) {
    for (int i = 0; i < in; ++i) {
      wt[i * out + j] = w[j * in + i];
    }
  }
  for (int j = 0; j < out; ++j) {
    wt[in * out + j] = w[in * out + j];
  }
}

}  // namespace

float policy_tanh(float x) {
  x = std::min(std::max(x, -4.97F), 4.97F);
  const float x2 = x * x;
  return x * (135135.0F + x2 * (17325.0F + x2 * (378.0F + x2))) /
         (135135.0F + x2 * (62370.0F + x2 * (3150.0F + x2 * 28.0F)));
}

PolicyNet::PolicyNet(const LearnedPolicy& p) {
  const float* w = p.weights.data();
  float* t = w_.data();
  transpose_layer(w, kIn, kH, t);
  w += kIn * kH + kH;
  t += kIn * kH + kH;
  transpose_layer(w, kH, kH, t);
  w += kH * kH + kH;
  t += kH * kH + kH;
  transpose_layer(w, kH, 1, t);
}

float PolicyNet::decide(std::span<const float, LearnedPolicy::kInputs> inputs) const {
  alignas(64) float h1[kH];
  alignas(64) float h2[kH];
  float a = 0;
  const float* w = w_.data();
  dense_tanh_columns<kIn, kH>(w, inputs.data(), h1);
  w += kIn * kH + kH;
  dense_tanh_columns<kH, kH>(w, h1, h2);
  w += kH * kH + kH;
  dense_tanh<kH, 1>(w, h2, &a);  // one output: its column is its row
  return a;
}

float LearnedPolicy::decide(std::span<const float, kInputs> inputs) const {
  float h1[kH];
  float h2[kH];
  float a = 0;
  const float* w = weights.data();
  dense_tanh<kIn, kH>(w, inputs.data(), h1);
  w += kIn * kH + kH;
  dense_tanh<kH, kH>(w, h1, h2);
  w += kH * kH + kH;
  dense_tanh<kH, 1>(w, h2, &a);
  return a;
}

std::uint64_t LearnedPolicy::weights_hash() const {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64 (Fowler, Noll, Vo)
  for (const float x : weights) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
    for (int k = 0; k < 4; ++k) {
      h ^= (bits >> (8 * k)) & 0xffU;
      h *= 0x100000001b3ULL;
    }
  }
  return h;
}

LearnedPolicy parse_policy(const nlohmann::json& doc) {
  const auto fail = [](const std::string& path, const std::string& why) { throw PolicyError{path, why}; };
  if (!doc.is_object())
    fail("$", "a policy file is a JSON object");
  if (doc.value("gradwall", std::string()) != "policy/v1")
    fail("$.gradwall", "must be \"policy/v1\"");
  if (!doc.contains("architecture") || !doc["architecture"].is_object())
    fail("$.architecture", "missing");
  const nlohmann::json& a = doc["architecture"];
  const auto want = [&](const char* key, const nlohmann::json& value) {
    if (!a.contains(key) || a[key] != value) {
      fail(std::string("$.architecture.") + key,
           "must be " + value.dump() + " (this gradwall's learned controller)");
    }
  };
  want("inputs", kIn);
  want("hidden", nlohmann::json::array({kH, kH}));
  want("activation", "tanh");
  want("history", LearnedPolicy::kHistory);
  want("features",
       nlohmann::json(std::vector<std::string>(std::begin(kFeatureNames), std::end(kFeatureNames))));
  LearnedPolicy p;
  if (!a.contains("action_gain") || !a["action_gain"].is_number() || !(a["action_gain"].get<double>() > 0) ||
      a["action_gain"].get<double>() > 4) {
    fail("$.architecture.action_gain", "a number in (0, 4]");
  }
  p.action_gain = a["action_gain"].get<double>();
  if (a.contains("startup")) {
    if (!a["startup"].is_boolean())
      fail("$.architecture.startup", "true or false");
    p.startup = a["startup"].get<bool>();
  }
  if (!doc.contains("weights") || !doc["weights"].is_array())
    fail("$.weights", "missing: an array of numbers");
  const nlohmann::json& w = doc["weights"];
  if (w.size() != LearnedPolicy::kWeights) {
    fail("$.weights", "has " + std::to_string(w.size()) + " numbers, the architecture needs " +
                          std::to_string(LearnedPolicy::kWeights));
  }
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (!w[i].is_number() || !std::isfinite(w[i].get<double>()) || std::fabs(w[i].get<double>()) > 1e6) {
      fail("$.weights[" + std::to_string(i) + "]", "not a finite number below 1e6 in magnitude");
    }
    p.weights[i] = w[i].get<float>();
  }
  p.provenance = doc.value("provenance", nlohmann::json::object());
  return p;
}

nlohmann::json policy_to_json(const LearnedPolicy& p) {
  nlohmann::json w = nlohmann::json::array();
  for (const float x : p.weights) {
    w.push_back(x);
  }
  return {{"gradwall", "policy/v1"},
          {"architecture",
           {{"inputs", kIn},
            {"hidden", {kH, kH}},
            {"activation", "tanh"},
            {"history", LearnedPolicy::kHistory},
            {"features", std::vector<std::string>(std::begin(kFeatureNames), std::end(kFeatureNames))},
            {"action", "pacing rate x 2^(action_gain x a), a = the output in (-1, 1), once per smoothed RTT"},
            {"action_gain", p.action_gain},
            {"startup", p.startup}}},
          {"provenance", p.provenance},
          {"weights_fnv1a64",
           [&] {
             char hex[17];
             std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(p.weights_hash()));
             return std::string(hex);
           }()},
          {"weights", w}};
}

namespace {

std::mutex registry_mutex;
std::vector<std::shared_ptr<const LearnedPolicy>>& registry() {
  static std::vector<std::shared_ptr<const LearnedPolicy>> r;
  return r;
}

class Learned final : public CongestionControl {
 public:
  Learned(const CcContext& ctx, std::shared_ptr<const LearnedPolicy> policy, double initial_rate_bps,
          double min_rate_bps)
      : policy_(std::move(policy)),
        net_(*policy_),
        mss_(ctx.mss_bytes),
        line_rate_(static_cast<double>(ctx.line_rate_bps)),
        min_rate_(std::min(min_rate_bps, line_rate_)),
        in_startup_(policy_->startup) {
    double initial = initial_rate_bps;
    if (initial <= 0) {
      const double rtt = std::chrono::duration<double>(ctx.base_rtt_hint).count();
      initial = rtt > 0 ? 10.0 * ctx.mss_bytes * 8 / rtt : 100e6;
    }
    rate_ = std::clamp(initial, min_rate_, line_rate_);
  }

  void on_packet_sent(const SentEvent& e) override { sent_ += e.bytes; }

  void on_ack(const AckEvent& e) override {
    rtt_.update(e.rtt);
    if (e.rtt > Duration{0}) {
      const double rtt = std::chrono::duration<double>(e.rtt).count();
      interval_min_rtt_ = interval_min_rtt_ > 0 ? std::min(interval_min_rtt_, rtt) : rtt;
    }
    acked_ += e.acked_bytes;
    ce_ += e.ce_bytes;
    if (rtt_.has_sample()) {
      const double min_rtt = std::chrono::duration<double>(rtt_.min_rtt()).count();
      for (const IntHopEcho& h : e.int_hops) {
        if (h.link_rate_bps > 0 && min_rtt > 0) {
          int_queue_ =
              std::max(int_queue_, h.queue_bytes * 8.0 / (static_cast<double>(h.link_rate_bps) * min_rtt));
        }
      }
    }
    if (!started_) {
      started_ = true;
      interval_start_ = e.now;
      return;
    }
    if (rtt_.has_sample() && e.now - interval_start_ >= std::max(rtt_.srtt(), Duration{100'000})) {
      decide(e.now);
    }
  }

  void on_loss(const LossEvent& e) override {
    lost_ += e.lost_bytes;
    if (e.timeout) {  // the path went silent for an RTO: start again from half
      rate_ = std::max(min_rate_, rate_ / 2);
    }
  }

  std::uint64_t cwnd_bytes() const override {
    if (!rtt_.has_sample()) {
      return std::uint64_t{10} * mss_;
    }
    const double w = 2.0 * rate_ / 8.0 * std::chrono::duration<double>(rtt_.srtt()).count();
    return std::max(static_cast<std::uint64_t>(w), std::uint64_t{2} * mss_);
  }
  BitRate pacing_rate() const override { return BitRate{static_cast<std::uint64_t>(rate_)}; }
  CcState state() const override { return CcState{cwnd_bytes(), pacing_rate().bps, "learned"}; }
  std::string_view name() const override { return "learned"; }

 private:
  void decide(Instant now) {
    const double min_rtt = std::chrono::duration<double>(rtt_.min_rtt()).count();
    // The interval's least RTT, not its mean: a host's scheduling and a path's jitter only add
    // to a sample, so the least of an interval's samples is its queue as the packets saw it
    // (Copa, NSDI 2018, takes its standing RTT the same way).
    const double least =
        interval_min_rtt_ > 0 ? interval_min_rtt_ : std::chrono::duration<double>(rtt_.srtt()).count();
    const double prev = prev_least_ > 0 ? prev_least_ : least;
    const double acked = static_cast<double>(std::max<std::uint64_t>(acked_, 1));
    const float f[LearnedPolicy::kFeatures] = {
        static_cast<float>(std::clamp(least / min_rtt - 1, 0.0, 4.0)),
        static_cast<float>(std::clamp((least - prev) / min_rtt, -1.0, 1.0)),
        static_cast<float>(std::clamp(static_cast<double>(sent_) / acked - 1, -1.0, 3.0)),
        static_cast<float>(std::clamp(static_cast<double>(ce_) / acked, 0.0, 1.0)),
        static_cast<float>(std::clamp(
            static_cast<double>(lost_) / static_cast<double>(std::max<std::uint64_t>(sent_, 1)), 0.0, 1.0)),
        static_cast<float>(std::clamp(int_queue_, 0.0, 4.0)),
        static_cast<float>(std::clamp(std::log2(rate_ / line_rate_) / 8, -2.0, 0.0))};
    std::copy(history_.begin() + LearnedPolicy::kFeatures, history_.end(), history_.begin());
    std::copy(std::begin(f), std::end(f), history_.end() - LearnedPolicy::kFeatures);
    if (in_startup_) {
      // RFC 9406 §4.2: RttThresh = clamp(lastRoundMinRTT / 8, MIN_RTT_THRESH 4 ms,
      // MAX_RTT_THRESH 16 ms), compared with the round's least RTT as here.
      const double thresh = std::clamp(min_rtt / 8, 0.004, 0.016);
      const bool queue =
          least > min_rtt + thresh || ce_ > 0 ||
          static_cast<double>(lost_) > 0.05 * static_cast<double>(std::max<std::uint64_t>(sent_, 1));
      if (queue) {
        in_startup_ = false;
        const double seconds = std::chrono::duration<double>(now - interval_start_).count();
        if (seconds > 0) {
          rate_ =
              std::clamp(std::min(rate_, static_cast<double>(acked_) * 8 / seconds), min_rate_, line_rate_);
        }
      } else {
        rate_ = std::min(rate_ * 2, line_rate_);
      }
    } else {
      const float a = net_.decide(history_);
      rate_ =
          std::clamp(rate_ * std::exp2(policy_->action_gain * static_cast<double>(a)), min_rate_, line_rate_);
    }
    prev_least_ = least;
    interval_start_ = now;
    sent_ = acked_ = ce_ = lost_ = 0;
    interval_min_rtt_ = 0;
    int_queue_ = 0;
  }

  std::shared_ptr<const LearnedPolicy> policy_;
  PolicyNet net_;
  std::uint32_t mss_;
  double line_rate_;
  double min_rate_;
  bool in_startup_;
  double rate_ = 0;
  RttEstimator rtt_;
  bool started_ = false;
  Instant interval_start_{};
  std::uint64_t sent_ = 0, acked_ = 0, ce_ = 0, lost_ = 0;
  double interval_min_rtt_ = 0;  // seconds; 0: no sample yet this interval
  double int_queue_ = 0;
  double prev_least_ = 0;
  std::array<float, LearnedPolicy::kInputs> history_{};
};

}  // namespace

std::uint32_t register_policy(std::shared_ptr<const LearnedPolicy> policy) {
  const std::lock_guard lock(registry_mutex);
  registry().push_back(std::move(policy));
  return static_cast<std::uint32_t>(registry().size() - 1);
}

std::shared_ptr<const LearnedPolicy> registered_policy(std::uint32_t id) {
  const std::lock_guard lock(registry_mutex);
  return id < registry().size() ? registry()[id] : nullptr;
}

void release_policy(std::uint32_t id) {
  const std::lock_guard lock(registry_mutex);
  if (id < registry().size()) {
    registry()[id].reset();
  }
}

std::unique_ptr<CongestionControl> make_learned_with(const CcContext& ctx,
                                                     std::shared_ptr<const LearnedPolicy> policy,
                                                     double initial_rate_bps, double min_rate_bps) {
  return std::make_unique<Learned>(ctx, std::move(policy), initial_rate_bps, min_rate_bps);
}

std::unique_ptr<CongestionControl> make_learned(const CcContext& ctx, const CcParams& params) {
  ParamReader r("learned", params);
  constexpr std::uint64_t kNone = ~std::uint64_t{0} >> 1;
  const std::uint64_t id = r.integer("policy", kNone, 0, kNone);
  const double initial = r.number("initial_rate_mbps", 0, 0, 1e7) * 1e6;
  const double min_rate = r.number("min_rate_mbps", 1, 0.001, 1e6) * 1e6;
  r.finish();
  if (id == kNone) {
    r.fail("policy",
           "learned needs cc_params.policy: a policy file from `gradwall train` (docs/cc.md \"learned\")");
  }
  std::shared_ptr<const LearnedPolicy> p = registered_policy(static_cast<std::uint32_t>(id));
  if (!p) {
    r.fail("policy", "no policy was loaded under this id");
  }
  return make_learned_with(ctx, std::move(p), initial, min_rate);
}

}  // namespace gw::cc
