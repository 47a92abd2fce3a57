// The sim-only build (GW_SIM_ONLY: no DPDK, ibverbs, prometheus-cpp or libbpf) has no eBPF
// host pacer: EdtPacer says so when made, the way the sim-only build's emu and endpoint
// commands do (harness/cli/sim_only.cc).
#include "core/errors.h"
#include "harness/live/hostpace/edt_pacer.h"

namespace gw::hostpace {

namespace {
[[noreturn]] void absent() {
  throw EnvironmentError(
      "host pacer edt-bpf: this gradwall is a sim-only build, without libbpf; use a full build "
      "(docs/install.md)");
}
}  // namespace

EdtFlowKey EdtFlowKey::ipv4(std::uint8_t, in_addr_t, std::uint16_t, in_addr_t, std::uint16_t) {
  absent();
}
EdtFlowKey EdtFlowKey::roce_v4(in_addr_t, in_addr_t, std::uint32_t) {
  absent();
}
EdtFlowKey EdtFlowKey::of_socket(int) {
  absent();
}
EdtPacer::EdtPacer(const EdtConfig&) {
  absent();
}
EdtPacer::~EdtPacer() = default;
void EdtPacer::attach(const std::string&) {
  absent();
}
void EdtPacer::configure(const EdtConfig&) {
  absent();
}
void EdtPacer::set_rate(const EdtFlowKey&, std::uint64_t) {
  absent();
}
void EdtPacer::clear_rate(const EdtFlowKey&) {
  absent();
}
EdtStats EdtPacer::stats() const {
  absent();
}
EdtVerdict EdtPacer::test_run(std::span<const std::uint8_t>, std::uint64_t) const {
  absent();
}

}  // namespace gw::hostpace
