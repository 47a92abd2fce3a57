#include "harness/live/hostpace/edt_pacer.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <net/if.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "core/errors.h"

namespace gw::hostpace {

// The program, compiled by clang -target bpf at build time (CMakeLists.txt: edt_bpf_object.cc).
extern const unsigned char kEdtBpfObject[];
extern const std::size_t kEdtBpfObjectSize;

namespace {

// libbpf's messages, kept so that an error can say what the verifier or netlink said.
std::mutex log_mutex;
std::string libbpf_log;

int keep_libbpf_message(enum libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG)
    return 0;
  char line[1024];
  const int n = std::vsnprintf(line, sizeof line, format, args);
  const std::lock_guard lock(log_mutex);
  if (libbpf_log.size() < 16384)
    libbpf_log += line;
  return n;
}

std::string take_libbpf_log() {
  const std::lock_guard lock(log_mutex);
  std::string s;
  s.swap(libbpf_log);
  while (!s.empty() && s.back() == '\n')
    s.pop_back();
  return s.empty() ? "" : " (libbpf: " + s + ")";
}

[[noreturn]] void fail(const std::string& what, int err) {
  throw EnvironmentError("host pacer edt-bpf: " + what + ": " + std::strerror(err < 0 ? -err : err) +
                         take_libbpf_log());
}

void write_config(int fd, const EdtConfig& c) {
  gw_edt_config v{};
  v.default_bytes_per_sec = c.default_rate_bps / 8;
  v.ce_threshold_ns = static_cast<std::uint64_t>(c.ce_threshold.count());
  v.horizon_ns = static_cast<std::uint64_t>(c.horizon.count());
  const std::uint32_t zero = 0;
  if (bpf_map_update_elem(fd, &zero, &v, BPF_ANY) != 0)
    fail("writing its configuration", errno);
}

}  // namespace

EdtFlowKey EdtFlowKey::ipv4(std::uint8_t proto, in_addr_t src, std::uint16_t sport, in_addr_t dst,
                            std::uint16_t dport) {
  EdtFlowKey k;
  k.key.family = 4;
  k.key.proto = proto;
  k.key.saddr[0] = htonl(src);
  k.key.daddr[0] = htonl(dst);
  k.key.sport = htons(sport);
  k.key.dport = htons(dport);
  return k;
}

EdtFlowKey EdtFlowKey::roce_v4(in_addr_t src, in_addr_t dst, std::uint32_t qp) {
  EdtFlowKey k = ipv4(IPPROTO_UDP, src, 0, dst, 4791);
  k.key.qp = qp & 0xffffffU;
  return k;
}

EdtFlowKey EdtFlowKey::of_socket(int fd) {
  sockaddr_in self{};
  sockaddr_in peer{};
  socklen_t len = sizeof self;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&self), &len) != 0 || self.sin_family != AF_INET) {
    throw EnvironmentError("host pacer edt-bpf: not an IPv4 socket");
  }
  len = sizeof peer;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0) {
    throw EnvironmentError("host pacer edt-bpf: the socket is not connected");
  }
  int proto = 0;
  len = sizeof proto;
  if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) != 0) {
    throw EnvironmentError("host pacer edt-bpf: SO_PROTOCOL: " + std::string(std::strerror(errno)));
  }
  return ipv4(static_cast<std::uint8_t>(proto), ntohl(self.sin_addr.s_addr), ntohs(self.sin_port),
              ntohl(peer.sin_addr.s_addr), ntohs(peer.sin_port));
}

EdtPacer::EdtPacer(const EdtConfig& config) {
  libbpf_set_print(keep_libbpf_message);
  take_libbpf_log();
  bpf_object_open_opts opts{};
  opts.sz = sizeof opts;
  opts.object_name = "gradwall_edt";
  obj_ = bpf_object__open_mem(kEdtBpfObject, kEdtBpfObjectSize, &opts);
  if (obj_ == nullptr)
    fail("opening the program", errno);
  if (const int err = bpf_object__load(obj_); err != 0) {
    bpf_object__close(obj_);
    obj_ = nullptr;
    fail("loading the program (needs CAP_BPF, i.e. root)", err);
  }
  bpf_program* prog = bpf_object__find_program_by_name(obj_, "gw_edt");
  prog_fd_ = prog == nullptr ? -1 : bpf_program__fd(prog);
  rates_fd_ = bpf_object__find_map_fd_by_name(obj_, "gw_edt_rates");
  config_fd_ = bpf_object__find_map_fd_by_name(obj_, "gw_edt_config");
  stats_fd_ = bpf_object__find_map_fd_by_name(obj_, "gw_edt_stats");
  if (prog_fd_ < 0 || rates_fd_ < 0 || config_fd_ < 0 || stats_fd_ < 0) {
    bpf_object__close(obj_);
    obj_ = nullptr;
    throw EnvironmentError("host pacer edt-bpf: the built-in object lacks its program or maps");
  }
  write_config(config_fd_, config);
}

EdtPacer::~EdtPacer() {
  if (ifindex_ != 0) {
    bpf_tc_hook hook{};
    hook.sz = sizeof hook;
    hook.ifindex = ifindex_;
    hook.attach_point = BPF_TC_EGRESS;
    bpf_tc_opts o{};
    o.sz = sizeof o;
    o.handle = 1;
    o.priority = 1;
    bpf_tc_detach(&hook, &o);  // the interface may be gone already (a torn-down bench)
    if (made_clsact_) {
      hook.attach_point = static_cast<bpf_tc_attach_point>(BPF_TC_INGRESS | BPF_TC_EGRESS);
      bpf_tc_hook_destroy(&hook);
    }
  }
  if (obj_ != nullptr)
    bpf_object__close(obj_);
}

void EdtPacer::attach(const std::string& ifname) {
  const unsigned idx = if_nametoindex(ifname.c_str());
  if (idx == 0)
    fail("no interface '" + ifname + "'", errno);
  bpf_tc_hook hook{};
  hook.sz = sizeof hook;
  hook.ifindex = static_cast<int>(idx);
  hook.attach_point = BPF_TC_EGRESS;
  const int made = bpf_tc_hook_create(&hook);
  if (made != 0 && made != -EEXIST)
    fail("adding a clsact qdisc to " + ifname, made);
  bpf_tc_opts o{};
  o.sz = sizeof o;
  o.prog_fd = prog_fd_;
  o.handle = 1;
  o.priority = 1;
  o.flags = BPF_TC_F_REPLACE;
  if (const int err = bpf_tc_attach(&hook, &o); err != 0) {
    if (made == 0) {
      hook.attach_point = static_cast<bpf_tc_attach_point>(BPF_TC_INGRESS | BPF_TC_EGRESS);
      bpf_tc_hook_destroy(&hook);
    }
    fail("attaching to " + ifname + "'s egress", err);
  }
  ifindex_ = static_cast<int>(idx);
  made_clsact_ = made == 0;
}

void EdtPacer::configure(const EdtConfig& config) {
  write_config(config_fd_, config);
}

void EdtPacer::set_rate(const EdtFlowKey& flow, std::uint64_t bps) {
  const gw_edt_rate v{bps / 8};
  if (bpf_map_update_elem(rates_fd_, &flow.key, &v, BPF_ANY) != 0)
    fail("writing a flow's rate", errno);
}

void EdtPacer::clear_rate(const EdtFlowKey& flow) {
  if (bpf_map_delete_elem(rates_fd_, &flow.key) != 0 && errno != ENOENT)
    fail("clearing a flow's rate", errno);
}

EdtStats EdtPacer::stats() const {
  const int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0)
    fail("counting the CPUs", cpus);
  std::vector<std::uint64_t> per_cpu(static_cast<std::size_t>(cpus));
  EdtStats s;
  for (std::uint32_t c = 0; c < GW_EDT_COUNTERS; ++c) {
    if (bpf_map_lookup_elem(stats_fd_, &c, per_cpu.data()) != 0)
      fail("reading its counters", errno);
    for (const std::uint64_t v : per_cpu)
      s.counter[c] += v;
  }
  return s;
}

EdtVerdict EdtPacer::test_run(std::span<const std::uint8_t> frame, std::uint64_t tstamp) const {
  __sk_buff ctx_in{};
  ctx_in.tstamp = tstamp;
  __sk_buff ctx_out{};
  EdtVerdict v;
  v.frame.resize(frame.size() + 256);
  bpf_test_run_opts o{};
  o.sz = sizeof o;
  o.data_in = frame.data();
  o.data_size_in = static_cast<std::uint32_t>(frame.size());
  o.data_out = v.frame.data();
  o.data_size_out = static_cast<std::uint32_t>(v.frame.size());
  o.ctx_in = &ctx_in;
  o.ctx_size_in = sizeof ctx_in;
  o.ctx_out = &ctx_out;
  o.ctx_size_out = sizeof ctx_out;
  o.repeat = 1;
  if (const int err = bpf_prog_test_run_opts(prog_fd_, &o); err != 0)
    fail("BPF_PROG_TEST_RUN", err);
  v.action = static_cast<int>(o.retval);
  v.tstamp = ctx_out.tstamp;
  v.frame.resize(o.data_size_out);
  return v;
}

}  // namespace gw::hostpace
