#include "harness/sim/sim_runner.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

#include "core/errors.h"
#include "core/event_loop.h"
#include "core/histogram.h"
#include "emulator/engine/int_pool.h"
#include "emulator/fabric/network.h"
#include "emulator/fabric/path_ports.h"
#include "generators/cc/congestion_control.h"
#include "generators/transport/queue_pair.h"
#include "harness/run/collective_driver.h"
#include "harness/run/link_model.h"
#include "harness/run/queue_pairs.h"
#include "harness/run/recording_cc.h"
#include "harness/run/workloads/workload_kind.h"
#include "harness/sim/segment_pool.h"
#include "harness/sim/sim_host.h"
#include "harness/sim/sim_steering.h"

namespace gw {

namespace {

using fabric::HostId;
using transport::QueuePair;
using transport::Segment;

// Bulk flows keep this much posted so that the sender is never short of data; each message
// that completes is replaced by another, and a further one is posted whenever what is left to
// send falls below what is in flight (SimRun::supply), so that no window is capped by supply.
constexpr std::uint64_t kBulkMessageBytes = 64ULL << 20;
constexpr int kBulkMessagesPosted = 2;
constexpr std::uint16_t kRoceUdpPort = 4791;

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
  std::uint64_t data_received = 0;  // data packets that reached the receiver
  bool steered = false;             // its region pair has several paths; `path` is its own
  std::uint32_t path = 0;
  std::vector<double> spray_credit;  // steering by packet: the round robin's state
  std::uint64_t last_delivered = 0;  // for the time series
  std::uint64_t last_retransmits = 0;
  bool in_series = false;  // has a row in the time series and the result's flows
  Duration completion{-1};
  Instant next_burst = kNever;  // microbursts: when the next burst is posted
  bool started = false;
  bool connection = false;        // carries a collective's messages (not a bulk/finite flow)
  bool control = false;           // a connection of the collective library's signalling (Traffic::kControl)
  std::uint32_t sender_slot = 0;  // in its hosts' queue-pair lists
  std::uint32_t receiver_slot = 0;
};

class SimRun final : public fabric::Receiver, public Wakeable, public MessageService {
 public:
  SimRun(const Scenario& s, const SimOptions& o)
      : scenario_(s),
        options_(o),
        net_(loop_, s.topology, s.seed, *this),
        path_meter_(net_),
        steering_(net_, s.controller, path_meter_),
        tick_(loop_, *this) {
    for (std::uint32_t r = 0; r < net_.region_count(); ++r) {
      region_first_.push_back(static_cast<std::uint32_t>(hosts_.size()));
      for (std::uint32_t i = 0; i < net_.region(r).hosts; ++i) {
        hosts_.push_back(
            std::make_unique<SimHost<SimRun>>(*this, loop_, HostId{r, i}, net_.region(r).nic_rate));
      }
    }
    build_flows();
    series_.interval = s.interval;
    for (Flow& f : flows_) {
      track(f);
    }
    if (workload_kind(s.workload.kind).iterations) {
      start_collectives();
    }
    next_sample_ = kEpoch + s.interval;
    next_steer_ = steering_.active() ? kEpoch + steering_.interval() : kNever;
    tick_.arm(std::min({next_start(), next_sample_, next_steer_}));
  }

  SimResult run();

  // fabric::Receiver
  void receive(Instant now, Packet&& p) override;
  void dropped(Instant now, Packet&& p, DropCause cause, const std::string& hop) override;
  void duplicated(Packet& copy) override {
    pool_.add_ref(copy.handle);
    if (copy.telemetry != nullptr) {
      copy.telemetry = int_stacks_.take_copy(*copy.telemetry);
    }
  }

  // Timer of the run itself: flow starts and time-series samples.
  void wake(Instant now) override;

  // SimHost's wire
  void transmit(HostId from, Packet&& p, Instant now) {
    ++accounting_.packets_sent;
    net_.send(from, std::move(p), now);
  }
  // The network packet carrying `s` from `from`, written over `p`.
  void packet_of(const Segment& s, HostId from, Packet& p);

 private:
  SimHost<SimRun>& host(HostId h) { return *hosts_[region_first_[h.region] + h.index]; }
  void build_flows();
  void start(Flow& f, Instant now);
  void after_event(Flow& f, bool is_sender, Instant now);
  void supply(Flow& f, Instant now);
  Flow& add_flow(const FlowSpec& spec, HostId src, HostId dst, const std::string& cc_name,
                 const cc::CcParams& params, bool connection, bool control = false);
  void start_collectives();
  coll::LinkModel link_model() const;

 public:
  std::uint64_t send(std::uint32_t src, std::uint32_t dst, std::uint32_t channel, std::uint64_t bytes,
                     Traffic traffic, Instant now) override;
  std::optional<WanLedger> wan_ledger(Instant now) const override;

 private:
  void sample(Instant now);
  void steer(Instant now);
  void track(Flow& f);
  // result.json's row of a flow of the series (a scenario flow or a WAN connection).
  FlowResult flow_result(const Flow& f, Instant stop) const;
  Instant next_start() const;

  const Scenario& scenario_;
  SimOptions options_;
  EventLoop loop_;
  fabric::Network net_;
  HopMeter path_meter_;
  Steering steering_;
  Timer tick_;
  std::vector<std::uint32_t> region_first_;
  std::vector<std::unique_ptr<SimHost<SimRun>>> hosts_;
  std::deque<Flow> flows_;      // bulk/finite flows first, then connections as collectives open them
  std::vector<Flow*> flow_at_;  // flows_[i], without the deque's index arithmetic per packet
  std::vector<Flow*> tracked_;  // the flows in the time series, in the result's order
  std::vector<HostId> rank_host_;
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::size_t> connection_of_;
  std::uint64_t next_message_ = 0;
  std::unique_ptr<CollectiveDriver> driver_;
  std::vector<const Flow*> wan_connections_;    // a collective's data connections between regions
  std::vector<const Flow*> local_connections_;  // and inside one
  LogHistogram one_way_delay_;
  // qp number -> (flow, is the sender)
  std::vector<std::pair<std::uint32_t, bool>> qp_owner_;
  SegmentPool pool_;
  // Every packet's INT stack (the hops' queue stages stamp into it), from send to arrival,
  // when some hop stamps INT.
  IntPool int_stacks_;
  Accounting accounting_;
  Series series_;
  Instant next_sample_ = kEpoch;
  Instant next_steer_ = kNever;
};

void SimRun::packet_of(const Segment& s, HostId from, Packet& p) {
  p = Packet{};
  p.size_bytes = s.wire_bytes();
  p.handle = pool_.put(s);
  if (net_.carries_int()) {
    p.telemetry = int_stacks_.take();
  }
  PacketHeaders& h = p.headers;
  h.valid_l3 = true;
  h.valid_l4 = true;
  h.roce = true;
  h.protocol = 17;
  h.src = net_.address(from);
  const auto [flow, is_sender] = qp_owner_[s.dst_qp - kFirstQp];
  Flow& f = *flow_at_[flow];
  h.dst = net_.address(is_sender ? f.src : f.dst);
  const bool sprayed =
      f.steered && steering_.spraying() && s.kind == transport::SegmentKind::kData && !f.control;
  const std::uint32_t path = sprayed ? steering_.spray(f.src.region, f.dst.region, f.spray_credit) : f.path;
  h.src_port = f.steered ? fabric::path_port(path, s.src_qp)
                         : static_cast<std::uint16_t>(0xC000 | (s.src_qp & 0x3FFF));
  h.dst_port = kRoceUdpPort;
  h.ecn = static_cast<gw::Ecn>(s.ecn);
  h.roce_opcode = s.opcode;
  h.roce_dest_qp = s.dst_qp;
  h.roce_psn = s.psn;
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
  std::vector<const FlowSpec*> specs;
  for (const FlowSpec& spec : scenario_.workload.flows) {
    specs.push_back(&spec);
  }
  for (const FlowSpec& spec : scenario_.workload.background) {
    specs.push_back(&spec);
  }
  for (const FlowSpec* entry : specs) {
    const FlowSpec& spec = *entry;
    for (std::uint32_t k = 0; k < spec.count; ++k) {
      Flow f;
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
      const cc::CcParams& params =
          spec.cc.empty() && spec.cc_params.empty() ? scenario_.transport.cc_params : spec.cc_params;
      add_flow(spec, f.src, f.dst, spec.cc.empty() ? scenario_.transport.cc : spec.cc, params, false);
    }
  }
}

Flow& SimRun::add_flow(const FlowSpec& spec, HostId src, HostId dst, const std::string& cc_name,
                       const cc::CcParams& params, bool connection, bool control) {
  Flow& f = flows_.emplace_back();
  flow_at_.push_back(&f);  // a deque's elements stay where they are as it grows at the back
  f.spec = spec;
  f.id = static_cast<std::uint32_t>(flows_.size() - 1);
  f.src = src;
  f.dst = dst;
  f.cc_name = cc_name;
  f.connection = connection;
  f.control = control;
  cc::CcContext ctx;
  ctx.mss_bytes = scenario_.transport.config.mtu_bytes;
  ctx.line_rate_bps = net_.region(src.region).nic_rate.bps;
  auto recording =
      std::make_unique<RecordingCc>(cc::make_congestion_control(cc_name, ctx, params), kEpoch + spec.start);
  f.cc = recording.get();
  const std::uint32_t qp = kFirstQp + 2 * f.id;
  f.sender = std::make_unique<QueuePair>(scenario_.transport.config, qp, qp + 1, std::move(recording));
  f.receiver = std::make_unique<QueuePair>(scenario_.transport.config, qp + 1, qp,
                                           cc::make_congestion_control("fixed", ctx, {}));
  qp_owner_.emplace_back(f.id, true);
  qp_owner_.emplace_back(f.id, false);
  f.sender_slot = host(src).add(f.sender.get());
  f.receiver_slot = host(dst).add(f.receiver.get());
  if (steering_.steered(src.region, dst.region)) {
    // The 5-tuple's entropy (addresses and the sender's queue pair) is what ECMP hashes.
    const std::uint64_t entropy = (std::uint64_t{src.region} << 56) ^ (std::uint64_t{src.index} << 40) ^
                                  (std::uint64_t{dst.region} << 32) ^ (std::uint64_t{dst.index} << 16) ^ qp;
    f.steered = true;
    f.path = steering_.open(f.id, src.region, dst.region, entropy, !control);
    if (steering_.spraying() && !control) {
      f.sender->set_reorder_allowance(steering_.spread(src.region, dst.region));
    }
  }
  return f;
}

// Ranks are the hosts, in region order; every pair of ranks that exchanges data gets one
// connection per channel, opened on first use and kept (as NCCL keeps its connections).
void SimRun::start_collectives() {
  coll::Placement placement;
  for (std::uint32_t r = 0; r < net_.region_count(); ++r) {
    for (std::uint32_t i = 0; i < net_.region(r).hosts; ++i) {
      rank_host_.push_back(HostId{r, i});
      placement.region.push_back(r);
    }
  }
  const WorkloadSpec& w = scenario_.workload;
  driver_ =
      std::make_unique<CollectiveDriver>(loop_, *this, placement, iteration_plans(w), link_model(), w.nccl);
  driver_->set_analytic_fabric(scenario_.topology.intra_region_analytic);
}

coll::LinkModel SimRun::link_model() const {
  return link_model_of(net_, scenario_.transport.config.mtu_bytes);
}

std::uint64_t SimRun::send(std::uint32_t src, std::uint32_t dst, std::uint32_t channel, std::uint64_t bytes,
                           Traffic traffic, Instant now) {
  const auto key = std::make_tuple(src, dst, channel);
  auto it = connection_of_.find(key);
  if (it == connection_of_.end()) {
    FlowSpec spec;
    spec.start = now - kEpoch;
    Flow& f = add_flow(spec, rank_host_[src], rank_host_[dst], scenario_.transport.cc,
                       scenario_.transport.cc_params, true, traffic == Traffic::kControl);
    f.started = true;
    track(f);
    it = connection_of_.emplace(key, f.id).first;
    if (!f.control) {
      (f.src.region != f.dst.region ? wan_connections_ : local_connections_).push_back(&f);
    }
  }
  Flow& f = flows_[it->second];
  const std::uint64_t id = next_message_++;
  f.sender->post_message(now, id, bytes);
  host(f.src).touch(f.sender_slot, now);
  return id;
}

std::optional<WanLedger> SimRun::wan_ledger(Instant now) const {
  WanLedger l;
  // One region: its fabric is the network the ops cross.
  for (const Flow* f : net_.region_count() > 1 ? wan_connections_ : local_connections_) {
    l.chrono += f->sender->send_chrono(now);
    const transport::QpStats& st = f->sender->stats();
    l.retransmits += st.retransmitted_packets;
    l.timeouts += st.timeouts;
    l.cnps += st.cnps_received;
  }
  return l;
}

Instant SimRun::next_start() const {
  Instant t = kNever;
  for (const Flow& f : flows_) {
    if (!f.started) {
      t = std::min(t, kEpoch + f.spec.start);
    } else if (f.next_burst != kNever) {
      t = std::min(t, f.next_burst);
    }
  }
  return t;
}

void SimRun::start(Flow& f, Instant now) {
  f.started = true;
  if (f.spec.period.count() > 0) {
    // A microburst: one message of `bytes` now and every period after.
    f.sender->post_message(now, f.next_msg++, f.spec.bytes);
    f.next_burst = now + f.spec.period;
  } else if (f.spec.bytes > 0) {
    f.sender->post_message(now, f.next_msg++, f.spec.bytes);
  } else {
    for (int i = 0; i < kBulkMessagesPosted; ++i) {
      f.sender->post_message(now, f.next_msg++, kBulkMessageBytes);
    }
  }
  host(f.src).touch(f.sender_slot, now);
}

void SimRun::wake(Instant now) {
  for (Flow& f : flows_) {
    if (!f.started && kEpoch + f.spec.start <= now) {
      start(f, now);
    } else if (f.next_burst <= now) {
      f.sender->post_message(now, f.next_msg++, f.spec.bytes);
      f.next_burst += f.spec.period;
      host(f.src).touch(f.sender_slot, now);
    }
  }
  if (now >= next_sample_) {
    sample(now);
    next_sample_ = now + series_.interval;
  }
  if (now >= next_steer_) {
    steer(now);
    next_steer_ = now + steering_.interval();
  }
  tick_.arm(std::min({next_start(), next_sample_, next_steer_}));
}

// A flow of the time series and of result.json's flows: every scenario flow, and each data
// queue pair of a collective between two regions (the WAN connections; not the ones inside a
// region, nor NCCL's slot-free messages). A row that starts late has zeros before its start.
void SimRun::track(Flow& f) {
  if (f.connection && (f.control || f.src.region == f.dst.region)) {
    return;
  }
  f.in_series = true;
  tracked_.push_back(&f);
  const std::size_t n = series_.t_ns.size();
  series_.flow_rate_bps.emplace_back(n, 0);
  series_.flow_cwnd_bytes.emplace_back(n, 0);
  series_.flow_srtt_ns.emplace_back(n, 0);
  series_.flow_retransmits.emplace_back(n, 0);
}

void SimRun::sample(Instant now) {
  if (!options_.keep_series) {
    return;
  }
  series_.t_ns.push_back(ns_of(now));
  const auto interval_s = static_cast<double>(series_.interval.count()) * 1e-9;
  for (std::size_t i = 0; i < tracked_.size(); ++i) {
    Flow& f = *tracked_[i];
    const transport::QpStats& st = f.sender->stats();
    series_.flow_rate_bps[i].push_back(static_cast<std::uint64_t>(
        static_cast<double>(st.bytes_delivered - f.last_delivered) * 8 / interval_s));
    f.last_delivered = st.bytes_delivered;
    series_.flow_cwnd_bytes[i].push_back(f.started ? f.cc->cwnd_bytes() : 0);
    series_.flow_srtt_ns[i].push_back(f.started ? f.sender->srtt().count() : 0);
    series_.flow_retransmits[i].push_back(st.retransmitted_packets - f.last_retransmits);
    f.last_retransmits = st.retransmitted_packets;
  }
  const std::vector<std::uint64_t> queues = net_.queue_bytes_now();
  series_.hop_queue_bytes.resize(queues.size());
  for (std::size_t h = 0; h < queues.size(); ++h) {
    series_.hop_queue_bytes[h].push_back(queues[h]);
  }
}

// The controllers' interval: their moves applied, each moved queue pair told how much its
// old path lags (its loss detection waits that much longer for what is still on it).
void SimRun::steer(Instant now) {
  const auto totals = [this](std::uint32_t flow) {
    const Flow& f = *flow_at_[flow];
    const transport::QpStats& st = f.sender->stats();
    return Steering::QpTotals{f.data_received, f.marks_ce, st.retransmitted_packets, st.timeouts};
  };
  const std::vector<Steering::Move> moves = steering_.tick(now, totals);
  if (steering_.spraying()) {
    for (Flow* f : flow_at_) {
      if (f->steered && !f->control) {
        f->sender->set_reorder_allowance(steering_.spread(f->src.region, f->dst.region));
      }
    }
  }
  for (const Steering::Move& m : moves) {
    Flow& f = *flow_at_[m.flow];
    f.path = m.path;
    f.sender->path_changed(now, m.lag);
  }
}

void SimRun::receive(Instant now, Packet&& p) {
  ++accounting_.packets_received;
  if (p.corrupt_bit != kNoCorruption) {
    pool_.release(p.handle);
    int_stacks_.give(p.telemetry);
    ++accounting_.corrupted_discarded;  // the ICRC no longer matches: the NIC drops it
    return;
  }
  // The segment is used in its pool slot, unless a duplicate made by the network still
  // shares it: the fields set below belong to this copy alone. Nothing run from here puts a
  // segment into the pool (only NIC wakeups make packets), so the slot stays put until it
  // is released once the queue pair has taken the segment.
  std::optional<Segment> copy;
  const bool shared = pool_.shared(p.handle);
  if (shared) {
    copy.emplace(pool_.at(p.handle));
    pool_.release(p.handle);
  }
  Segment& s = shared ? *copy : pool_.slot(p.handle);
  const auto [flow, is_sender] = qp_owner_[s.dst_qp - kFirstQp];
  Flow& f = *flow_at_[flow];
  if (s.kind == transport::SegmentKind::kData) {
    one_way_delay_.record(ns_of(now - s.sent));
    ++f.data_received;
    s.ce = p.ce_marked || p.headers.ecn == gw::Ecn::kCe;
    if (s.ce) {
      ++f.marks_ce;
    }
    const std::size_t hops = p.telemetry != nullptr ? p.telemetry->hops : 0;
    s.hop_count = static_cast<std::uint8_t>(std::min(hops, s.int_hops.size()));
    for (std::size_t i = 0; i < s.hop_count; ++i) {
      const IntHop& in = p.telemetry->hop[i];
      s.int_hops[i] = cc::IntHopEcho{in.node_id, in.queue_bytes, in.tx_bytes, in.egress_ts_ns,
                                     std::uint64_t{in.link_rate_mbps} * 1'000'000};
    }
  }
  int_stacks_.give(p.telemetry);
  QueuePair& qp = is_sender ? *f.sender : *f.receiver;
  qp.on_segment(now, s);
  if (!shared) {
    pool_.release(p.handle);
  }
  after_event(f, is_sender, now);
  if (is_sender) {
    host(f.src).touch(f.sender_slot, now);
  } else {
    host(f.dst).touch(f.receiver_slot, now);
  }
}

void SimRun::after_event(Flow& f, bool is_sender, Instant now) {
  QueuePair& qp = is_sender ? *f.sender : *f.receiver;
  const std::vector<transport::Completion> done = qp.completions();
  qp.clear_completions();
  for (const transport::Completion& c : done) {
    if (f.connection) {
      // A collective's step is done when its message has arrived whole.
      if (c.kind == transport::CompletionKind::kReceived) {
        driver_->delivered(c.msg_id, now);
      }
    } else if (c.kind == transport::CompletionKind::kSent) {
      // Keep bulk flows supplied; time finite ones (a microburst's bursts are not timed).
      if (f.spec.period.count() > 0) {
        continue;
      }
      if (f.spec.bytes > 0) {
        f.completion = c.completed - (kEpoch + f.spec.start);
      } else {
        f.sender->post_message(now, f.next_msg++, kBulkMessageBytes);
      }
    }
  }
  if (is_sender && !f.connection && f.spec.bytes == 0 && f.spec.period.count() == 0) {
    supply(f, now);
  }
}

void SimRun::supply(Flow& f, Instant now) {
  // Two messages in hand leave at least 64 MiB unsent while less than 64 MiB is in flight.
  // Past that (a window above ~64 MiB: 3.6 Gbit/s at 150 ms) the two would cap the window at
  // 128 MiB, so whenever less than the flight is left to send another message is posted. The
  // sender is acknowledged at least once a round trip and sends at most two flights in one
  // (slow start), so it is never short of data.
  while (f.sender->unsent_bytes() < f.sender->bytes_in_flight()) {
    f.sender->post_message(now, f.next_msg++, kBulkMessageBytes);
  }
}

void SimRun::dropped(Instant /*now*/, Packet&& p, DropCause cause, const std::string& hop) {
  pool_.release(p.handle);
  int_stacks_.give(p.telemetry);
  ++accounting_.dropped[hop + "/" + drop_cause_name(cause)];
}

FlowResult SimRun::flow_result(const Flow& f, Instant stop) const {
  FlowResult fr;
  fr.id = f.id;
  fr.from = net_.region(f.src.region).name + "/" + std::to_string(f.src.index);
  fr.to = net_.region(f.dst.region).name + "/" + std::to_string(f.dst.index);
  fr.cc = f.cc_name;
  fr.traffic_class = f.connection ? "collective" : f.spec.traffic_class;
  fr.start = f.spec.start;
  fr.size_bytes = f.spec.bytes;
  const transport::QpStats& st = f.sender->stats();
  fr.bytes_delivered = st.bytes_delivered;
  fr.packets_sent = st.data_packets_sent;
  fr.retransmits = st.retransmitted_packets;
  fr.timeouts = st.timeouts;
  fr.loss_probes = st.loss_probes;
  fr.spurious_retransmits = st.dsacks_received;
  fr.loss_undos = st.loss_undos;
  fr.marks_ce = f.marks_ce;
  fr.cnps = f.cc->cnps();
  fr.rtt_ns = f.cc->rtt().summary();
  fr.mean_cwnd_bytes = f.cc->mean_cwnd(stop);
  fr.mean_pacing_rate_bps = f.cc->mean_rate(stop);
  fr.completion = f.completion;
  fr.goodput_bps = goodput_bps(st.bytes_delivered,
                               f.completion.count() >= 0 ? f.completion : (stop - kEpoch) - f.spec.start);
  return fr;
}

HopResult hop_result(const fabric::HopStats& h) {
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
  return hr;
}

SimResult SimRun::run() {
  const Instant end = kEpoch + scenario_.workload.duration;
  bool completed = true;
  if (driver_) {
    // Until the iterations are done; the duration is a limit.
    driver_->start(loop_.now());
    std::uint64_t steps = 0;
    while (!driver_->done() && loop_.next_event_time() <= end) {
      loop_.step();
      if ((++steps & ((1U << 20) - 1)) == 0 && options_.progress) {
        options_.progress(loop_.now() - kEpoch, end - kEpoch);
      }
    }
    completed = driver_->done();
  } else if (options_.progress) {
    const Duration slice = std::max(Duration{1}, scenario_.workload.duration / 100);
    for (Instant t = kEpoch + slice; t < end; t += slice) {
      loop_.run_until(t);
      options_.progress(t - kEpoch, end - kEpoch);
    }
    loop_.run_until(end);
  } else {
    loop_.run_until(end);
  }
  const Instant stop = driver_ ? loop_.now() : end;
  SimResult r;
  r.completed = completed;
  r.scenario = scenario_.name;
  r.scenario_file = scenario_.file;
  r.seed = scenario_.seed;
  r.duration = stop - kEpoch;
  r.events = loop_.events_run();
  r.scenario_json = scenario_.source;
  r.warmup_iterations = scenario_.warmup_iterations;
  for (Flow& f : flows_) {
    const transport::QpStats& totals = f.sender->stats();
    r.transport.packets_sent += totals.data_packets_sent;
    r.transport.retransmits += totals.retransmitted_packets;
    r.transport.timeouts += totals.timeouts;
    r.transport.loss_probes += totals.loss_probes;
    r.transport.spurious_retransmits += totals.dsacks_received;
    if (f.in_series) {
      r.flows.push_back(flow_result(f, stop));
    }
  }
  summarize_flows(r);
  for (const fabric::HopStats& h : net_.hop_stats()) {
    r.hops.push_back(hop_result(h));
    accounting_.duplicates_made += h.counters.duplicated;
  }
  accounting_.in_flight_at_end = net_.in_flight();
  r.one_way_delay_ns = one_way_delay_.summary();
  if (driver_) {
    add_driver_results(*driver_, false, r);
  }
  r.accounting = accounting_;
  r.series = std::move(series_);
  if (steering_.active()) {
    r.steering = steering_.result();
  }
  return r;
}

}  // namespace

SimResult run_sim(const Scenario& scenario, const SimOptions& options) {
  SimRun run(scenario, options);
  return run.run();
}

}  // namespace gw
