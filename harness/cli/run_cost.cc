#include "harness/cli/run_cost.h"
#include "harness/run/workloads/reading.h"
#include "harness/run/workloads/workload_kind.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "core/errors.h"

namespace gw {
namespace {

// Measured with /usr/bin/time on the release build (2 vCPU, 2026-12-05): 1,000 and 4,000
// bulk flows for 200 ms (70 KB and 0.25 ms of set-up per flow); a ring all-reduce of 1 MiB in
// 64-byte pieces and DDP with 1,000-byte buckets (240-340 B and about 1 us per step and per
// packet, counting an ACK per data packet and a message and its credit per step); MoE all-to-
// all on 128 and 256 ranks (140 KB and about 0.5 ms per connection); 20,000 flows (68 KB and
// 0.23 ms each: linear).
constexpr double kBaseBytes = 20e6;
constexpr double kFlowConnectionBytes = 70e3;
constexpr double kCollectiveConnectionBytes = 140e3;
constexpr double kStepBytes = 300;
constexpr double kWorkItemBytes = 300;
constexpr double kFlowConnectionSeconds = 0.25e-3;
constexpr double kCollectiveConnectionSeconds = 0.5e-3;
constexpr double kPacketSeconds = 1e-6;

struct OpCost {
  double steps = 0;
  double pairs = 0;  // ordered pairs of ranks that carry steps
  double wire_bytes = 0;
};

OpCost op_cost(const coll::CollectiveSpec& c, double p) {
  using coll::Algorithm;
  using coll::Op;
  const double ch = std::max<double>(1, c.channels);
  const double lg = std::max(1.0, std::ceil(std::log2(std::max(2.0, p))));
  const double S = static_cast<double>(c.bytes);
  double pieces = 1;
  if (c.algorithm == Algorithm::kRing && c.chunk_bytes > 0) {
    pieces = std::max(1.0, std::ceil(S / (ch * p) / static_cast<double>(c.chunk_bytes)));
  }
  const bool ring = c.algorithm == Algorithm::kRing || c.algorithm == Algorithm::kHierarchical;
  const bool doubling =
      c.algorithm == Algorithm::kHalvingDoubling || c.algorithm == Algorithm::kRecursiveDoubling;
  OpCost o;
  switch (c.op) {
    case Op::kAllReduce:
      o.steps = ring ? 2 * (p - 1) * p * ch * pieces : doubling ? 2 * p * lg * ch : 2 * (p - 1) * ch;
      o.wire_bytes = 2 * S * (p - 1);
      break;
    case Op::kAllGather:
    case Op::kReduceScatter:
      o.steps = ring ? (p - 1) * p * ch * pieces : p * lg * ch;
      o.wire_bytes = S * (p - 1);
      break;
    case Op::kBroadcast:
    case Op::kReduce:
      o.steps = (p - 1) * ch * pieces;
      o.wire_bytes = S * (p - 1);
      break;
    case Op::kAllToAll: {
      o.steps = p * (p - 1) * ch;
      double matrix = 0;
      for (const auto& row : c.send_matrix) {
        for (const std::uint64_t b : row) {
          matrix += static_cast<double>(b);
        }
      }
      o.wire_bytes = c.send_matrix.empty() ? S * (p - 1) : matrix;
      break;
    }
    case Op::kBarrier:
      o.steps = p * lg;
      break;
  }
  o.pairs = c.op == Op::kAllToAll ? p * (p - 1) : doubling ? p * lg : ring ? p * ch : 2 * p * ch;
  return o;
}

double mem_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit) {
    if (key == "MemAvailable:") {
      return kb * 1024;
    }
  }
  return 8.0 * (1 << 30);  // not Linux: assume a small machine
}

// 16777216 -> "16,777,216".
std::string count_text(double v) {
  std::string digits = std::to_string(static_cast<std::uint64_t>(std::llround(std::max(0.0, v))));
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) {
    digits.insert(static_cast<std::size_t>(i), ",");
  }
  return digits;
}

std::string fixed_text(double v) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(v < 10 ? 2 : v < 100 ? 1 : 0);
  os << v;
  return os.str();
}

}  // namespace

double estimate_steps(const coll::CollectiveSpec& c, std::uint32_t ranks) {
  return op_cost(c, ranks).steps;
}

std::string bytes_text(double bytes) {
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  return bytes >= kGiB ? fixed_text(bytes / kGiB) + " GiB" : fixed_text(bytes / (1024.0 * 1024)) + " MiB";
}

std::string seconds_text(double s) {
  return s >= 3600 ? fixed_text(s / 3600) + " h"
         : s >= 60 ? fixed_text(s / 60) + " min"
                   : fixed_text(s) + " s";
}

namespace {

// What a run holds and moves, counted before it runs.
struct Tally {
  double flow_connections = 0;
  double flow_packets = 0;
  double collective_pairs = 0;
  double items = 0;       // a training job's work items
  double steps = 0;       // collective schedule steps and point-to-point transfers
  double held_steps = 0;  // the steps of built schedules (a ring's are generated as it runs)
  double packets = 0;
};

// The NIC rate and hosts of `region`.
std::pair<double, double> nic_of(const Scenario& s, const std::string& region) {
  for (const auto& r : s.topology.regions) {
    if (r.name == region) {
      return {static_cast<double>(r.nic_rate.bps), static_cast<double>(r.hosts)};
    }
  }
  return {0.0, 0.0};
}

// The rate of the direct WAN link between two regions (its profile's rate stage), or no cap.
double wan_rate(const Scenario& s, const std::string& from, const std::string& to) {
  for (const auto& l : s.topology.wan) {
    const DirectionSpec* d = l.a == from && l.b == to   ? &l.profile.a_to_b
                             : l.a == to && l.b == from ? &l.profile.b_to_a
                                                        : nullptr;
    if (d != nullptr && d->rate && !d->rate->rate.unlimited() && d->rate->trace.empty()) {
      return static_cast<double>(d->rate->rate.bps);
    }
  }
  return std::numeric_limits<double>::infinity();
}

// Flows that run for `run`: a microburst's bytes every period, a finite flow's bytes, a bulk
// flow at most its senders' NICs or the WAN link's rate.
void count_flows(const Scenario& s, const std::vector<FlowSpec>& list, Duration run, double payload,
                 Tally& t) {
  const double seconds = static_cast<double>(run.count()) / 1e9;
  for (const FlowSpec& f : list) {
    t.flow_connections += f.count;
    const auto [nic, hosts] = nic_of(s, f.from);
    double bytes = 0;
    if (f.period.count() > 0) {
      bytes = static_cast<double>(f.bytes) * f.count * seconds * 1e9 / static_cast<double>(f.period.count());
    } else if (f.bytes > 0) {
      bytes = static_cast<double>(f.bytes) * f.count;
    } else {
      bytes = std::min({std::min<double>(f.count, hosts) * nic, wan_rate(s, f.from, f.to)}) / 8 * seconds;
    }
    t.flow_packets += bytes / payload;
  }
}

// A collective or training job: its ops' schedule steps and packets, its transfers, and the
// connections of the op that opens the most.
void count_job(const Scenario& s, double ranks, double payload, Tally& t) {
  const WorkloadSpec& w = s.workload;
  struct Op {
    const coll::CollectiveSpec* spec;
    double ranks;
    std::uint32_t comm;
    double regions;  // the regions its ranks are in
  };
  // With the analytic intra-region fabric a ring sends only its hops across regions: one per
  // region per round, against one per rank.
  const coll::Placement placement = placement_of(s.topology);
  const auto regions_of = [&placement](const std::vector<std::uint32_t>& group) {
    std::set<std::uint32_t> seen;
    if (group.empty()) {
      seen.insert(placement.region.begin(), placement.region.end());
    }
    for (const std::uint32_t r : group) {
      seen.insert(r < placement.region.size() ? placement.region[r] : 0);
    }
    return static_cast<double>(seen.size());
  };
  std::vector<Op> ops;
  double p2p_bytes = 0;
  double p2p_items = 0;
  if (w.training.items.empty()) {  // "collective": one op, `iterations` times
    ops.assign(w.iterations, Op{&w.collective, ranks, 0, regions_of({})});
  } else {
    t.items = static_cast<double>(w.training.items.size());
    for (const wl::WorkItem& it : w.training.items) {
      if (it.kind == wl::WorkKind::kCollective) {
        ops.push_back(Op{&it.collective, it.group.empty() ? ranks : static_cast<double>(it.group.size()),
                         it.comm, regions_of(it.group)});
      } else if (it.kind == wl::WorkKind::kP2p) {
        p2p_bytes += static_cast<double>(it.bytes);
        ++p2p_items;
      }
    }
  }
  // Each communicator keeps the connections of its op that opens the most.
  std::map<std::uint32_t, double> pairs;
  for (const Op& op : ops) {
    OpCost o = op_cost(*op.spec, op.ranks);
    if (s.topology.intra_region_analytic && op.spec->algorithm == coll::Algorithm::kRing && op.ranks > 1) {
      const double across = op.regions > 1 ? op.regions / op.ranks : 0;
      o.steps *= across;
      o.wire_bytes *= across;
      o.pairs *= across;
    }
    t.steps += o.steps;
    t.held_steps += op.spec->algorithm == coll::Algorithm::kRing ? 0 : o.steps;
    t.packets += 2 * std::max(o.steps, o.wire_bytes / payload) + 2 * o.steps;
    pairs[op.comm] = std::max(pairs[op.comm], o.pairs);
  }
  for (const auto& [comm, n] : pairs) {
    t.collective_pairs += n;
  }
  t.steps += p2p_items;
  t.held_steps += p2p_items;
  t.packets += 2 * std::max(p2p_items, p2p_bytes / payload) + 2 * p2p_items;
  t.collective_pairs += p2p_items > 0 ? 2 * ranks : 0;
}

}  // namespace

RunCost estimate_cost(const Scenario& s) {
  const WorkloadSpec& w = s.workload;
  double ranks = 0;
  for (const auto& r : s.topology.regions) {
    ranks += r.hosts;
  }
  const double payload = std::max(64.0, static_cast<double>(s.transport.config.mtu_bytes) - 64);
  Tally t;
  const bool job = workload_kind(w.kind).iterations;
  if (job) {
    count_job(s, ranks, payload, t);
  } else {
    count_flows(s, w.flows, w.duration, payload, t);
  }
  // Background beside a job counts only what is given in bytes: a bulk or microburst flow runs
  // as long as the job, which is not known before it runs (priced over 0 s).
  count_flows(s, w.background, job ? Duration{0} : w.duration, payload, t);
  RunCost c;
  c.schedule_steps = t.steps;
  c.connections = t.flow_connections + t.collective_pairs;
  c.packets = t.packets + t.flow_packets;
  const double conn_bytes =
      t.flow_connections * kFlowConnectionBytes + t.collective_pairs * kCollectiveConnectionBytes;
  const double step_bytes = t.held_steps * kStepBytes;
  const double item_bytes = t.items * kWorkItemBytes;
  c.memory_bytes = kBaseBytes + conn_bytes + step_bytes + item_bytes;
  const double conn_seconds =
      t.flow_connections * kFlowConnectionSeconds + t.collective_pairs * kCollectiveConnectionSeconds;
  const double packet_seconds = c.packets * kPacketSeconds;
  const double runs = job ? 2 : 1;  // a job and its unimpaired baseline
  c.cpu_seconds = runs * (conn_seconds + packet_seconds);
  // The largest term, named in the message.
  const double biggest = std::max({conn_bytes, step_bytes, item_bytes});
  if (conn_seconds > packet_seconds && conn_bytes >= biggest) {
    c.driver = count_text(c.connections) + " connections";
  } else if (step_bytes >= biggest && step_bytes >= conn_bytes) {
    c.driver = count_text(t.held_steps) + " collective schedule steps";
  } else if (conn_bytes >= biggest) {
    c.driver = count_text(c.connections) + " connections";
  } else {
    c.driver = count_text(t.items) + " work items";
  }
  if (packet_seconds > conn_seconds && c.cpu_seconds > 60 && step_bytes < biggest) {
    c.driver = count_text(c.packets) + " packets";
  }
  return c;
}

CostLimits default_cost_limits() {
  CostLimits l;
  l.memory_bytes = 0.8 * mem_available_bytes();
  return l;
}

void check_cost(const Scenario& s, const RunCost& cost, const CostLimits& limits) {
  const std::string what = "estimated " + bytes_text(cost.memory_bytes) + " of memory and " +
                           seconds_text(cost.cpu_seconds) + " of CPU (" + cost.driver + ")";
  if (cost.memory_bytes > limits.memory_bytes) {
    throw InputError(s.file, "$",
                     what + ": above the memory limit of " + bytes_text(limits.memory_bytes) +
                         " (80 % of this machine's available memory); run with --force to try "
                         "anyway (docs/scenarios.md \"Cost\")");
  }
  if (cost.cpu_seconds > limits.cpu_seconds) {
    throw InputError(s.file, "$",
                     what + ": above the time limit of " + seconds_text(limits.cpu_seconds) +
                         "; run with --force to run it anyway (docs/scenarios.md \"Cost\")");
  }
}

}  // namespace gw
