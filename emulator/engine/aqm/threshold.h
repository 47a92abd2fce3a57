// Instantaneous-queue ECN marking, as in DCTCP/DCQCN switches (Alizadeh et al., "Data Center
// TCP", SIGCOMM 2010, §3.1: mark when the queue exceeds K; Zhu et al., "Congestion Control for
// Large-Scale RDMA Deployments", SIGCOMM 2015, §3.1: RED-like marking on the instantaneous
// queue, docs/references.md §2). On arrival, with q the queue in bytes before the packet joins:
//   q < kmin: pass;   kmin <= q <= kmax: mark with pmax (q - kmin) / (kmax - kmin);   q > kmax: mark.
// Only ECN-capable packets are marked; Not-ECT packets always pass (this AQM never drops).
// DCTCP's single threshold K is kmin = kmax = K, pmax = 1.
#pragma once

#include <cstdint>
#include <string>

#include "core/rng.h"
#include "emulator/engine/aqm/aqm.h"
#include "emulator/engine/spec.h"

namespace gw {

class ThresholdAqm final : public Aqm {
 public:
  ThresholdAqm(const ThresholdSettings& settings, Rng rng) : s_(settings), rng_(rng) {}

  AqmVerdict on_enqueue(const Packet& p, const QueueView& q, Instant now) override;
  AqmVerdict on_dequeue(const Packet& p, Duration sojourn, const QueueView& q, Instant now) override;
  bool decides_at_enqueue() const override { return true; }
  std::string name() const override { return "threshold"; }

  // The marking probability for a queue of `queue_bytes`.
  double mark_probability(std::uint64_t queue_bytes) const;

 private:
  ThresholdSettings s_;
  Rng rng_;
};

}  // namespace gw
