#include "harness/live/live_flows.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace gw {

namespace {

constexpr std::uint64_t kBulkMessageBytes = 64ULL << 20;  // as the simulator's bulk flows
constexpr std::uint64_t kBulkMessagesOutstanding = 2;

// A sending queue pair's entry in a side's stats message (nullptr when it never opened).
const nlohmann::json* qp_stats(const nlohmann::json& stats, std::uint32_t qp) {
  if (!stats.is_object() || !stats.contains("qps")) {
    return nullptr;
  }
  for (const nlohmann::json& q : stats.at("qps")) {
    if (q.value("sending", false) && q.value("qp", std::uint32_t{0}) == qp) {
      return &q;
    }
  }
  return nullptr;
}

}  // namespace

LiveFlows::LiveFlows(EventLoop& loop, const Scenario& s, const std::array<std::string, 2>& regions, Post post)
    : regions_(regions), cc_(s.transport.cc), post_(std::move(post)), timer_(loop, *this) {
  auto side_of = [&](const std::string& region, const std::string& path) {
    const auto it = std::find(regions_.begin(), regions_.end(), region);
    if (it == regions_.end()) {  // check_live_scenario: two regions, and the flows' are known
      throw std::logic_error("live flows: " + path + ": \"" + region + "\" is not a side");
    }
    return static_cast<std::uint32_t>(it - regions_.begin());
  };
  // Sources and destinations take each region's hosts in turn, as the simulator's do (the
  // hosts of a side share its endpoint: the index only names the flow in the result).
  std::array<std::uint32_t, 2> next_src{};
  std::array<std::uint32_t, 2> next_dst{};
  auto add = [&](const FlowSpec& spec, const std::string& path) {
    for (std::uint32_t k = 0; k < spec.count; ++k) {
      Flow f;
      f.spec = spec;
      f.side = {side_of(spec.from, path + ".from"), side_of(spec.to, path + ".to")};
      const std::uint32_t src_hosts = s.topology.regions[f.side[0]].hosts;
      const std::uint32_t dst_hosts = s.topology.regions[f.side[1]].hosts;
      f.host[0] = spec.from_host ? *spec.from_host : next_src[f.side[0]]++ % src_hosts;
      f.host[1] = spec.to_host ? *spec.to_host : next_dst[f.side[1]]++ % dst_hosts;
      if (f.side[0] == f.side[1] && f.host[0] == f.host[1] && !spec.to_host) {
        f.host[1] = next_dst[f.side[1]]++ % dst_hosts;
      }
      f.qp = kFirstFlowQp + 2 * static_cast<std::uint32_t>(flows_.size());
      flows_.push_back(f);
    }
  };
  for (std::size_t i = 0; i < s.workload.flows.size(); ++i) {
    add(s.workload.flows[i], "$.workload.flows[" + std::to_string(i) + "]");
  }
  for (std::size_t i = 0; i < s.workload.background.size(); ++i) {
    add(s.workload.background[i], "$.background[" + std::to_string(i) + "]");
  }
}

void LiveFlows::start(Instant now) {
  Instant first = kNever;
  for (const Flow& f : flows_) {
    first = std::min(first, std::max(kEpoch + f.spec.start, now));
  }
  timer_.arm(first);
}

void LiveFlows::wake(Instant now) {
  Instant next = kNever;
  for (Flow& f : flows_) {
    if (!f.started && kEpoch + f.spec.start <= now) {
      f.started = true;
      f.started_at = now;
      if (f.spec.period.count() > 0) {
        f.next_burst = now;
      } else if (f.spec.bytes > 0) {
        post(f, f.spec.bytes);
      } else {
        for (std::uint64_t k = 0; k < kBulkMessagesOutstanding; ++k) {
          post(f, kBulkMessageBytes);
        }
      }
    }
    if (f.next_burst <= now) {
      post(f, f.spec.bytes);
      f.next_burst += f.spec.period * ((now - f.next_burst) / f.spec.period + 1);
    }
    next = std::min(next, f.started ? f.next_burst : kEpoch + f.spec.start);
  }
  timer_.arm(next == kNever ? kNever : std::max(next, now + Duration{1}));
}

void LiveFlows::post(Flow& f, std::uint64_t bytes) {
  const auto index = static_cast<std::uint32_t>(&f - flows_.data());
  const std::uint64_t msg = kFlowMessage | flow_of_message_.size();
  flow_of_message_.push_back(index);
  // A flow's own controller as the simulator takes it (sim_runner.cc build_flows): its cc, else
  // the transport's; its cc_params, else the transport's when it names neither.
  const bool own = !f.spec.cc.empty() || !f.spec.cc_params.empty();
  if (own && !f.posted) {
    post_(f.side[0], f.qp, f.side[1], msg, bytes, f.spec.cc.empty() ? cc_ : f.spec.cc, f.spec.cc_params);
  } else {
    post_(f.side[0], f.qp, f.side[1], msg, bytes, {}, {});
  }
  f.posted = true;
}

void LiveFlows::delivered(std::uint64_t msg, Instant at) {
  const std::uint64_t n = msg & ~kFlowMessage;
  if (n >= flow_of_message_.size()) {
    throw std::logic_error("live flows: a message they never sent");
  }
  Flow& f = flows_[flow_of_message_[n]];
  if (f.spec.period.count() > 0) {
    return;  // a burst: not timed
  }
  if (f.spec.bytes > 0) {
    f.completed = at;
  } else {
    post(f, kBulkMessageBytes);
  }
}

void LiveFlows::add_results(const std::array<nlohmann::json, 2>& stats, Instant stop, SimResult& r) const {
  for (std::size_t i = 0; i < flows_.size(); ++i) {
    const Flow& f = flows_[i];
    FlowResult fr;
    fr.id = static_cast<std::uint32_t>(i);
    fr.from = regions_[f.side[0]] + "/" + std::to_string(f.host[0]);
    fr.to = regions_[f.side[1]] + "/" + std::to_string(f.host[1]);
    fr.cc = f.spec.cc.empty() ? cc_ : f.spec.cc;
    fr.traffic_class = f.spec.traffic_class;
    fr.start = f.spec.start;
    fr.size_bytes = f.spec.bytes;
    // Times from when the flow was first posted: a live run starts a little after its epoch
    // (the endpoints getting ready), so a flow due at 0 goes out then.
    const Instant began = f.started ? f.started_at : kEpoch + f.spec.start;
    if (f.completed != kNever) {
      fr.completion = f.completed - began;
    }
    if (const nlohmann::json* q = qp_stats(stats[f.side[0]], f.qp)) {
      const nlohmann::json& st = q->at("stats");
      if (st.contains("tcpi_bytes_acked")) {  // a kernel TCP baseline's connection (TCP_INFO)
        fr.bytes_delivered = st.value("tcpi_bytes_acked", std::uint64_t{0});
        fr.packets_sent = st.value("tcpi_data_segs_out", std::uint64_t{0});
        fr.retransmits = st.value("tcpi_total_retrans", std::uint64_t{0});
        fr.cc = q->value("congestion_control", fr.cc);
      } else {
        fr.bytes_delivered = st.value("bytes_delivered", std::uint64_t{0});
        fr.packets_sent = st.value("data_packets_sent", std::uint64_t{0});
        fr.retransmits = st.value("retransmitted_packets", std::uint64_t{0});
        fr.timeouts = st.value("timeouts", std::uint64_t{0});
      }
      fr.mean_cwnd_bytes = q->value("cwnd_bytes", std::uint64_t{0});  // the last, not a mean
      fr.cc = q->value("cc", fr.cc);                                  // the controller the endpoint ran
    }
    fr.goodput_bps =
        goodput_bps(fr.bytes_delivered, fr.completion.count() >= 0 ? fr.completion : stop - began);
    r.flows.push_back(std::move(fr));
  }
}

}  // namespace gw
