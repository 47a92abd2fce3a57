#include "harness/sim_runner.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>

#include "core/errors.h"
#include "core/event_loop.h"
#include "emulator/fabric/network.h"
#include "generators/cc/congestion_control.h"
#include "generators/transport/queue_pair.h"
#include "harness/recording_cc.h"

namespace gw {

namespace {

using fabric::HostId;
using transport::QueuePair;
using transport::Segment;

// Bulk flows keep this much posted so that the sender is never short of data; each message
// that completes is replaced by another.
constexpr std::uint64_t kBulkMessageBytes = 64ULL << 20;
constexpr int kBulkMessagesPosted = 2;
constexpr std::uint16_t kRoceUdpPort = 4791;

// Segments in the network, by handle (the Packet's `handle`). A duplicate made by the network
// shares its original's slot; the slot is freed when the last copy is received or dropped.
class SegmentPool {
 public:
  std::uint64_t put(const Segment& s) {
    std::uint64_t h = 0;
    if (free_.empty()) {
      h = slots_.size();
      slots_.push_back(s);
      refs_.push_back(1);
    } else {
      h = free_.back();
      free_.pop_back();
      slots_[h] = s;
      refs_[h] = 1;
    }
    return h;
  }
  const Segment& at(std::uint64_t h) const { return slots_[h]; }
  void add_ref(std::uint64_t h) { ++refs_[h]; }
  void release(std::uint64_t h) {
    if (refs_[h] == 0) {
      throw std::logic_error("sim: a packet released twice");
    }
    if (--refs_[h] == 0) {
      free_.push_back(h);
    }
  }

 private:
  std::vector<Segment> slots_;
  std::vector<std::uint32_t> refs_;
  std::vector<std::uint64_t> free_;
};

class SimRun;

// A host: its NIC serializes one packet at a time at the NIC rate and, when free, takes the
// next packet from its queue pairs in round-robin order (an RDMA NIC's QP scheduler).
class SimHost final : public Wakeable {
 public:
  SimHost(SimRun& run, EventLoop& loop, HostId id, BitRate nic)
      : run_(&run), timer_(loop, *this), id_(id), nic_(nic) {}

  void add(QueuePair* qp) { qps_.push_back(qp); }
  void wake(Instant now) override;
  // Something changed on one of its queue pairs: look again at `now`.
  void kick(Instant now) {
    if (!on_wire_) {
      timer_.arm(now);
    }
  }

 private:
  void rearm(Instant now);

  SimRun* run_;
  Timer timer_;
  HostId id_;
  BitRate nic_;
  std::vector<QueuePair*> qps_;
  std::size_t next_ = 0;
  std::optional<Packet> on_wire_;
  Instant tx_done_ = kNever;
};

struct Flow {
  FlowSpec spec;
  std::uint32_t id = 0;
  HostId src;
  HostId dst;
  std::string cc_name;
  RecordingCc* cc = nullptr;  // owned by the sender's queue pair
  std::unique_ptr<QueuePair> sender;
  std::unique_ptr<QueuePair> receiver;
  std::uint64_t next_msg = 0;
  std::uint64_t marks_ce = 0;
  std::uint64_t last_delivered = 0;  // for the time series
  Duration completion{-1};
  bool started = false;
};

class SimRun final : public fabric::Receiver, public Wakeable {
 public:
  SimRun(const Scenario& s, const SimOptions& o)
      : scenario_(s), options_(o), net_(loop_, s.topology, s.seed, *this), tick_(loop_, *this) {
    for (std::uint32_t r = 0; r < net_.region_count(); ++r) {
      region_first_.push_back(static_cast<std::uint32_t>(hosts_.size()));
      for (std::uint32_t i = 0; i < net_.region(r).hosts; ++i) {
        hosts_.push_back(std::make_unique<SimHost>(*this, loop_, HostId{r, i}, net_.region(r).nic_rate));
      }
    }
    build_flows();
    series_.interval = s.interval;
    series_.flow_rate_bps.resize(flows_.size());
    series_.flow_cwnd_bytes.resize(flows_.size());
    next_sample_ = kEpoch + s.interval;
    tick_.arm(std::min(next_start(), next_sample_));
  }

  SimResult run();

  // fabric::Receiver
  void receive(Instant now, Packet&& p) override;
  void dropped(Instant now, Packet&& p, DropCause cause, const std::string& hop) override;
  void duplicated(const Packet& copy) override { pool_.add_ref(copy.handle); }

  // Timer of the run itself: flow starts and time-series samples.
  void wake(Instant now) override;

  void transmit(HostId from, Packet&& p, Instant now) {
    ++accounting_.packets_sent;
    net_.send(from, std::move(p), now);
  }
  Packet packet_of(const Segment& s, HostId from);

 private:
  SimHost& host(HostId h) { return *hosts_[region_first_[h.region] + h.index]; }
  void build_flows();
  void start(Flow& f, Instant now);
  void after_event(QueuePair& qp, Instant now);
  void sample(Instant now);
  Instant next_start() const;

  const Scenario& scenario_;
  SimOptions options_;
  EventLoop loop_;
  fabric::Network net_;
  Timer tick_;
  std::vector<std::uint32_t> region_first_;
  std::vector<std::unique_ptr<SimHost>> hosts_;
  std::vector<Flow> flows_;
  // qp number -> (flow, is the sender)
  std::vector<std::pair<std::uint32_t, bool>> qp_owner_;
  SegmentPool pool_;
  Accounting accounting_;
  Series series_;
  Instant next_sample_ = kEpoch;
};

constexpr std::uint32_t kFirstQp = 0x100;

void SimHost::wake(Instant now) {
  if (on_wire_ && tx_done_ <= now) {
    Packet p = std::move(*on_wire_);
    on_wire_.reset();
    run_->transmit(id_, std::move(p), now);
  }
  if (!on_wire_) {
    for (std::size_t k = 0; k < qps_.size(); ++k) {
      const std::size_t i = (next_ + k) % qps_.size();
      QueuePair& qp = *qps_[i];
      if (qp.next_wakeup() > now) {
        continue;
      }
      std::optional<Segment> s = qp.poll(now);
      if (s) {
        next_ = i + 1;
        Packet p = run_->packet_of(*s, id_);
        tx_done_ = now + nic_.transmit_time(p.size_bytes);
        on_wire_ = std::move(p);
        break;
      }
    }
  }
  rearm(now);
}

void SimHost::rearm(Instant now) {
  if (on_wire_) {
    timer_.arm(tx_done_);
    return;
  }
  Instant next = kNever;
  for (QueuePair* qp : qps_) {
    next = std::min(next, qp->next_wakeup());
  }
  // A queue pair that is due but had nothing to send (its window is closed) is asked again
  // a nanosecond later rather than in a loop at the same instant.
  timer_.arm(next <= now ? now + Duration{1} : next);
}

Packet SimRun::packet_of(const Segment& s, HostId from) {
  Packet p;
  p.size_bytes = s.wire_bytes();
  p.handle = pool_.put(s);
  PacketHeaders& h = p.headers;
  h.valid_l3 = true;
  h.valid_l4 = true;
  h.roce = true;
  h.protocol = 17;
  h.src = net_.address(from);
  const auto [flow, is_sender] = qp_owner_[s.dst_qp - kFirstQp];
  h.dst = net_.address(is_sender ? flows_[flow].src : flows_[flow].dst);
  h.src_port = static_cast<std::uint16_t>(0xC000 | (s.src_qp & 0x3FFF));
  h.dst_port = kRoceUdpPort;
  h.ecn = static_cast<gw::Ecn>(s.ecn);
  h.roce_opcode = s.opcode;
  h.roce_dest_qp = s.dst_qp;
  h.roce_psn = s.psn;
  return p;
}

void SimRun::build_flows() {
  // Sources and destinations take each region's hosts in turn, separately; a flow never
  // goes from a host to itself.
  std::vector<std::uint32_t> next_src(net_.region_count(), 0);
  std::vector<std::uint32_t> next_dst(net_.region_count(), 0);
  auto pick = [&](const std::string& region, std::optional<std::uint32_t> fixed,
                  std::vector<std::uint32_t>& next, std::optional<HostId> avoid) {
    const std::uint32_t r = net_.region_index(region);
    if (fixed) {
      return HostId{r, *fixed};
    }
    HostId h{r, next[r]++ % net_.region(r).hosts};
    if (avoid && *avoid == h && net_.region(r).hosts > 1) {
      h.index = next[r]++ % net_.region(r).hosts;
    }
    return h;
  };
  for (const FlowSpec& spec : scenario_.workload.flows) {
    for (std::uint32_t k = 0; k < spec.count; ++k) {
      Flow f;
      f.spec = spec;
      f.id = static_cast<std::uint32_t>(flows_.size());
      const auto r_to = net_.region_index(spec.to);
      std::optional<HostId> fixed_dst;
      if (spec.to_host) {
        fixed_dst = HostId{r_to, *spec.to_host};
      }
      f.src = pick(spec.from, spec.from_host, next_src, fixed_dst);
      f.dst = pick(spec.to, spec.to_host, next_dst, f.src);
      if (f.src == f.dst) {
        throw InputError(scenario_.file, "$.workload.flows",
                         "a flow from " + spec.from + " to " + spec.to +
                             " would go from a host to itself (the region has one host)");
      }
      f.cc_name = spec.cc.empty() ? scenario_.transport.cc : spec.cc;
      const cc::CcParams& params =
          spec.cc.empty() && spec.cc_params.empty() ? scenario_.transport.cc_params : spec.cc_params;
      cc::CcContext ctx;
      ctx.mss_bytes = scenario_.transport.config.mtu_bytes;
      ctx.line_rate_bps = net_.region(f.src.region).nic_rate.bps;
      auto recording = std::make_unique<RecordingCc>(cc::make_congestion_control(f.cc_name, ctx, params),
                                                     kEpoch + spec.start);
      f.cc = recording.get();
      const std::uint32_t qp = kFirstQp + 2 * f.id;
      f.sender = std::make_unique<QueuePair>(scenario_.transport.config, qp, qp + 1, std::move(recording));
      f.receiver = std::make_unique<QueuePair>(scenario_.transport.config, qp + 1, qp,
                                               cc::make_congestion_control("fixed", ctx, {}));
      qp_owner_.emplace_back(f.id, true);
      qp_owner_.emplace_back(f.id, false);
      flows_.push_back(std::move(f));
    }
  }
  for (Flow& f : flows_) {
    host(f.src).add(f.sender.get());
    host(f.dst).add(f.receiver.get());
  }
}

Instant SimRun::next_start() const {
  Instant t = kNever;
  for (const Flow& f : flows_) {
    if (!f.started) {
      t = std::min(t, kEpoch + f.spec.start);
    }
  }
  return t;
}

void SimRun::start(Flow& f, Instant now) {
  f.started = true;
  if (f.spec.bytes > 0) {
    f.sender->post_message(now, f.next_msg++, f.spec.bytes);
  } else {
    for (int i = 0; i < kBulkMessagesPosted; ++i) {
      f.sender->post_message(now, f.next_msg++, kBulkMessageBytes);
    }
  }
  host(f.src).kick(now);
}

void SimRun::wake(Instant now) {
  for (Flow& f : flows_) {
    if (!f.started && kEpoch + f.spec.start <= now) {
      start(f, now);
    }
  }
  if (now >= next_sample_) {
    sample(now);
    next_sample_ = now + series_.interval;
  }
  tick_.arm(std::min(next_start(), next_sample_));
}

void SimRun::sample(Instant now) {
  if (!options_.keep_series) {
    return;
  }
  series_.t_ns.push_back(ns_of(now));
  const auto interval_s = static_cast<double>(series_.interval.count()) * 1e-9;
  for (std::size_t i = 0; i < flows_.size(); ++i) {
    Flow& f = flows_[i];
    const std::uint64_t delivered = f.sender->stats().bytes_delivered;
    series_.flow_rate_bps[i].push_back(
        static_cast<std::uint64_t>(static_cast<double>(delivered - f.last_delivered) * 8 / interval_s));
    f.last_delivered = delivered;
    series_.flow_cwnd_bytes[i].push_back(f.started ? f.cc->cwnd_bytes() : 0);
  }
  const std::vector<std::uint64_t> queues = net_.queue_bytes_now();
  series_.hop_queue_bytes.resize(queues.size());
  for (std::size_t h = 0; h < queues.size(); ++h) {
    series_.hop_queue_bytes[h].push_back(queues[h]);
  }
}

void SimRun::receive(Instant now, Packet&& p) {
  ++accounting_.packets_received;
  Segment s = pool_.at(p.handle);
  pool_.release(p.handle);
  if (p.corrupt_bit != kNoCorruption) {
    ++accounting_.corrupted_discarded;  // the ICRC no longer matches: the NIC drops it
    return;
  }
  const auto [flow, is_sender] = qp_owner_[s.dst_qp - kFirstQp];
  Flow& f = flows_[flow];
  if (s.kind == transport::SegmentKind::kData) {
    s.ce = p.ce_marked || p.headers.ecn == gw::Ecn::kCe;
    if (s.ce) {
      ++f.marks_ce;
    }
    s.hop_count = static_cast<std::uint8_t>(std::min<std::size_t>(p.telemetry.hops, s.int_hops.size()));
    for (std::size_t i = 0; i < s.hop_count; ++i) {
      const IntHop& in = p.telemetry.hop[i];
      s.int_hops[i] = cc::IntHopEcho{in.node_id, in.queue_bytes, in.tx_bytes, in.egress_ts_ns,
                                     std::uint64_t{in.link_rate_mbps} * 1'000'000};
    }
  }
  QueuePair& qp = is_sender ? *f.sender : *f.receiver;
  qp.on_segment(now, s);
  after_event(qp, now);
  host(is_sender ? f.src : f.dst).kick(now);
}

void SimRun::after_event(QueuePair& qp, Instant now) {
  const std::vector<transport::Completion> done = qp.completions();
  qp.clear_completions();
  for (const transport::Completion& c : done) {
    if (c.kind != transport::CompletionKind::kSent) {
      continue;
    }
    // Completions of the sender: keep bulk flows supplied; time finite ones.
    for (Flow& f : flows_) {
      if (f.sender.get() != &qp) {
        continue;
      }
      if (f.spec.bytes > 0) {
        f.completion = c.completed - (kEpoch + f.spec.start);
      } else {
        f.sender->post_message(now, f.next_msg++, kBulkMessageBytes);
      }
      break;
    }
  }
}

void SimRun::dropped(Instant /*now*/, Packet&& p, DropCause cause, const std::string& hop) {
  pool_.release(p.handle);
  ++accounting_.dropped[hop + "/" + drop_cause_name(cause)];
}

SimResult SimRun::run() {
  const Instant end = kEpoch + scenario_.workload.duration;
  loop_.run_until(end);
  SimResult r;
  r.scenario = scenario_.name;
  r.scenario_file = scenario_.file;
  r.seed = scenario_.seed;
  r.duration = scenario_.workload.duration;
  r.events = loop_.events_run();
  r.scenario_json = scenario_.source;
  std::vector<double> bulk_goodputs;
  for (Flow& f : flows_) {
    FlowResult fr;
    fr.id = f.id;
    fr.from = net_.region(f.src.region).name + "/" + std::to_string(f.src.index);
    fr.to = net_.region(f.dst.region).name + "/" + std::to_string(f.dst.index);
    fr.cc = f.cc_name;
    fr.start = f.spec.start;
    fr.size_bytes = f.spec.bytes;
    const transport::QpStats& st = f.sender->stats();
    fr.bytes_delivered = st.bytes_delivered;
    fr.packets_sent = st.data_packets_sent;
    fr.retransmits = st.retransmitted_packets;
    fr.timeouts = st.timeouts;
    fr.marks_ce = f.marks_ce;
    fr.cnps = f.cc->cnps();
    fr.rtt_ns = f.cc->rtt().summary();
    fr.mean_cwnd_bytes = f.cc->mean_cwnd(end);
    fr.mean_pacing_rate_bps = f.cc->mean_rate(end);
    fr.completion = f.completion;
    const Duration active =
        f.completion.count() >= 0 ? f.completion : scenario_.workload.duration - f.spec.start;
    if (active.count() > 0) {
      fr.goodput_bps = static_cast<std::uint64_t>(static_cast<long double>(st.bytes_delivered) * 8e9L /
                                                  static_cast<long double>(active.count()));
    }
    if (f.spec.bytes == 0) {
      bulk_goodputs.push_back(static_cast<double>(fr.goodput_bps));
    }
    r.flows.push_back(std::move(fr));
  }
  r.jain_fairness = jain_index(bulk_goodputs);
  for (const fabric::HopStats& h : net_.hop_stats()) {
    HopResult hr;
    hr.name = h.name;
    hr.wan = h.wan;
    hr.rate_bps = h.rate.bps;
    hr.packets_in = h.counters.packets_in;
    hr.delivered = h.counters.delivered;
    for (std::size_t c = 0; c < h.counters.dropped.size(); ++c) {
      if (h.counters.dropped[c] > 0) {
        hr.dropped[drop_cause_name(static_cast<DropCause>(c))] = h.counters.dropped[c];
      }
    }
    hr.marked_ce = h.counters.marked_ce;
    hr.duplicated = h.counters.duplicated;
    hr.corrupted = h.counters.corrupted;
    hr.reordered = h.counters.reordered;
    hr.queue_bytes = h.queue_bytes.summary();
    hr.queue_delay_ns = h.queue_delay_ns.summary();
    hr.sojourn_ns = h.sojourn_ns.summary();
    accounting_.duplicates_made += h.counters.duplicated;
    r.hops.push_back(std::move(hr));
  }
  accounting_.in_flight_at_end = net_.in_flight();
  r.accounting = accounting_;
  r.series = std::move(series_);
  return r;
}

}  // namespace

SimResult run_sim(const Scenario& scenario, const SimOptions& options) {
  SimRun run(scenario, options);
  return run.run();
}

}  // namespace gw
