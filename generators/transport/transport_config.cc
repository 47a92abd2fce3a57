#include "generators/transport/transport_config.h"

#include <string>

namespace gw::transport {
namespace {

void require(bool ok, const char* field, const std::string& rule, const std::string& got) {
  if (!ok) {
    throw TransportConfigError{std::string(field) + ": must be " + rule + ", got " + got};
  }
}

std::string ns(Duration d) {
  return std::to_string(d.count()) + " ns";
}

}  // namespace

void validate(const TransportConfig& c) {
  require(c.mtu_bytes >= 1024 && c.mtu_bytes <= 9000, "mtu_bytes", "in [1024, 9000]",
          std::to_string(c.mtu_bytes));
  require(c.ack_every_packets >= 1 && c.ack_every_packets <= 64, "ack_every_packets", "in [1, 64]",
          std::to_string(c.ack_every_packets));
  require(c.ack_delay.count() >= 0, "ack_delay", ">= 0", ns(c.ack_delay));
  require(c.cnp_interval.count() >= 0, "cnp_interval", ">= 0", ns(c.cnp_interval));
  require(c.min_rto.count() > 0, "min_rto", "> 0", ns(c.min_rto));
  require(c.max_rto >= c.min_rto, "max_rto", ">= min_rto (" + ns(c.min_rto) + ")", ns(c.max_rto));
  require(c.initial_rto >= c.min_rto && c.initial_rto <= c.max_rto, "initial_rto",
          "in [min_rto, max_rto] = [" + ns(c.min_rto) + ", " + ns(c.max_rto) + "]", ns(c.initial_rto));
  require(c.min_pto.count() > 0, "min_pto", "> 0", ns(c.min_pto));
  require(c.reorder_threshold >= 1 && c.reorder_threshold <= 64, "reorder_threshold", "in [1, 64]",
          std::to_string(c.reorder_threshold));
  // IBA keeps the outstanding PSN range below half the 24-bit space so that PSN comparisons
  // are unambiguous (§9.7.1).
  require(c.max_outstanding_packets >= 1 && c.max_outstanding_packets <= (1U << 22),
          "max_outstanding_packets", "in [1, 4194304]", std::to_string(c.max_outstanding_packets));
  require(c.initial_psn <= 0xFFFFFF, "initial_psn", "a 24-bit value", std::to_string(c.initial_psn));
}

}  // namespace gw::transport
