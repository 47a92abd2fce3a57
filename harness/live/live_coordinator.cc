// A live run's coordinator (live_coordinator.h): the endpoints' control connections and the
// real-time loop.
#include "harness/live/live_coordinator.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iostream>

#include "core/errors.h"
#include "emulator/engine/profile_writer.h"
#include "harness/run/link_model.h"
#include "harness/run/workloads/workload_kind.h"

namespace gw {

namespace {

using endpoints::LineChannel;

int listen_unix(const std::string& path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (fd < 0 || path.size() >= sizeof addr.sun_path) {
    throw EnvironmentError("live mode: cannot make a unix socket at " + path);
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 || listen(fd, 4) != 0) {
    const std::string why = std::strerror(errno);
    close(fd);
    throw EnvironmentError("live mode: cannot listen on " + path + ": " + why);
  }
  return fd;
}

// α-β of the path between the sides (docs/references.md §5, as the simulator computes it): α = the
// WAN link's base one-way delay plus one full packet at the bottleneck, β = 1 / the bottleneck
// rate (the profile's rate, else the slower NIC).
coll::AlphaBeta alpha_beta(const Scenario& s, const Profile& p) {
  BitRate slowest = s.topology.regions[0].nic_rate;
  if (s.topology.regions[1].nic_rate.bps < slowest.bps) {
    slowest = s.topology.regions[1].nic_rate;
  }
  Duration delay{0};
  Duration rtt{0};
  for (const DirectionSpec* d : {&p.a_to_b, &p.b_to_a}) {
    if (d->delay) {
      delay = std::max(delay, d->delay->delay);
      rtt += d->delay->delay;
    }
    if (d->rate && !d->rate->rate.unlimited() && d->rate->rate.bps < slowest.bps) {
      slowest = d->rate->rate;
    }
  }
  return path_alpha_beta(delay, rtt, slowest, predicted_packet_bytes(s.transport.config.mtu_bytes));
}

// A stats message without its delay histograms, stamped with the run time it arrived at.
std::string timeline_line(nlohmann::json m, Instant at) {
  m.erase("one_way_delay_us");
  m.erase("one_way_delay_remote_us");
  m["at_ns"] = ns_of(at);
  return m.dump();
}

// One endpoint process per side (`gradwall endpoint`, or `endpoint-tcp` for a kernel TCP
// baseline), told to connect to the coordinator's socket `sock`.
void start_endpoints(const LiveContext& c, const std::string& sock, Teardown& td) {
  for (std::uint32_t side = 0; side < 2; ++side) {
    const std::string name = "endpoint " + c.regions[side];
    const std::string base = (c.work / ("endpoint-" + c.regions[side])).string();
    std::vector<std::string> argv{"nice",
                                  "-n",
                                  kPriority,
                                  "ip",
                                  "netns",
                                  "exec",
                                  c.sides[side].netns,
                                  c.self,
                                  c.tcp ? "endpoint-tcp" : "endpoint",
                                  "--control",
                                  sock,
                                  "--side",
                                  std::to_string(side),
                                  "--address",
                                  c.sides[side].address,
                                  "--scenario",
                                  c.scenario_file};
    if (c.tcp) {  // a kernel TCP baseline: the same protocol, TCP sockets (live_tcp_endpoint.cc)
      const hostpace::HostPacerOptions& hp = c.options.host_pacer;
      argv.insert(
          argv.end(),
          {"--cc", c.options.tcp_cc, "--max-pacing-rate-bps", std::to_string(c.options.max_pacing_rate_bps),
           "--host-pacer", hostpace::host_pacer_name(hp.mode), "--edt-ce-threshold-ns",
           std::to_string(hp.ce_threshold.count()), "--edt-horizon-ns", std::to_string(hp.horizon.count())});
    } else {
      argv.insert(argv.end(), {"--io", c.options.endpoints});
    }
    td.endpoints.push_back(std::make_unique<Child>(name, argv, base + ".out", base + ".err"));
    std::cerr << "live: " << name << " started (pid " << td.endpoints.back()->pid() << ", netns "
              << c.sides[side].netns << ")\n";
  }
}

// The endpoints' control connections, by side, once each has said hello.
std::array<std::unique_ptr<LineChannel>, 2> accept_endpoints(const LiveContext& c, Teardown& td,
                                                             std::int64_t ready_by) {
  std::array<std::unique_ptr<LineChannel>, 2> ch;
  for (int accepted = 0; accepted < 2;) {
    pollfd p{td.listen_fd, POLLIN, 0};
    const bool late = endpoints::monotonic_ns() > ready_by + c.options.start_timeout.count();
    for (auto& e : td.endpoints) {
      if (!e->running() || late) {
        throw EnvironmentError("live mode: " + e->name() +
                               (late ? " did not connect in time" : " " + e->how_it_ended()));
      }
    }
    if (::poll(&p, 1, 100) <= 0) {
      continue;
    }
    auto channel = std::make_unique<LineChannel>(accept4(td.listen_fd, nullptr, nullptr, SOCK_CLOEXEC));
    const auto line = channel->receive_one(Duration{5'000'000'000});
    const std::optional<control::Hello> hello = line ? control::parse_hello(*line) : std::nullopt;
    if (!hello) {
      throw EnvironmentError("live mode: an endpoint connected but did not say hello");
    }
    if (hello->side > 1 || ch[hello->side]) {
      throw EnvironmentError("live mode: an endpoint said hello as side " + std::to_string(hello->side) +
                             ", which is not a side or has said hello already");
    }
    ch[hello->side] = std::move(channel);
    ++accepted;
  }
  return ch;
}

}  // namespace

std::array<std::unique_ptr<LineChannel>, 2> connect_endpoints(const LiveContext& c, Teardown& td,
                                                              std::int64_t ready_by) {
  td.socket_dir = "/tmp/gw-live-" + std::to_string(getpid());
  std::filesystem::create_directories(td.socket_dir);
  const std::string sock = td.socket_dir + "/ctl.sock";
  td.listen_fd = listen_unix(sock);
  start_endpoints(c, sock, td);
  return accept_endpoints(c, td, ready_by);
}

endpoints::RunTime start_endpoints_clock(const LiveContext& c, Teardown& td,
                                         const std::array<std::unique_ptr<LineChannel>, 2>& ch) {
  const endpoints::RunTime rt(endpoints::monotonic_ns());
  for (const auto& channel : ch) {
    channel->send(control::Start{rt.epoch_ns()}.to_json());
  }
  for (std::uint32_t side = 0; side < 2; ++side) {
    const auto ready = ch[side]->receive_one(c.options.start_timeout);
    if (!ready || !control::parse_ready(*ready)) {
      throw EnvironmentError(
          "live mode: endpoint " + c.regions[side] + " did not get ready; it " +
          (td.endpoints[side]->running() ? "is still running" : td.endpoints[side]->how_it_ended()));
    }
  }
  return rt;
}

RealTimeRun::RealTimeRun(const LiveContext& c, Teardown& td, EmulatorLauncher& emu,
                         std::array<std::unique_ptr<LineChannel>, 2>& ch, const endpoints::RunTime& rt,
                         const Profile& profile, std::optional<EmuControl> emu_control,
                         std::vector<TimedProfile> phases, std::vector<std::string>& faults)
    : c_(c),
      td_(td),
      emu_(emu),
      ch_(ch),
      rt_(rt),
      faults_(faults),
      placement_(placement_of(c.scenario)),
      steering_(c.scenario),
      emu_control_(std::move(emu_control)),
      phases_(std::move(phases)),
      coord_(placement_, {ch[0].get(), ch[1].get()}, c.sides, &steering_),
      driver_(loop_, coord_, placement_, iteration_plans(c.scenario.workload),
              link_model(c.scenario, profile), c.scenario.workload.nccl),
      flows_(loop_, c.scenario, c.regions,
             [this](std::uint32_t side, std::uint32_t qp, std::uint32_t peer, std::uint64_t msg,
                    std::uint64_t bytes, const std::string& cc,
                    const cc::CcParams& params) { coord_.post(side, qp, peer, msg, bytes, cc, params); }),
      timeline_{std::ofstream(c.work / ("endpoint-" + c.regions[0] + "-timeline.jsonl")),
                std::ofstream(c.work / ("endpoint-" + c.regions[1] + "-timeline.jsonl"))},
      series_(c.scenario.interval),
      links_({c.sides[0].port, c.sides[1].port}),
      restarts_left_(c.options.emu_restarts) {}

coll::Placement RealTimeRun::placement_of(const Scenario& s) {
  coll::Placement placement;
  for (std::uint32_t r = 0; r < 2; ++r) {
    for (std::uint32_t i = 0; i < s.topology.regions[r].hosts; ++i) {
      placement.region.push_back(r);
    }
  }
  return placement;
}

coll::LinkModel RealTimeRun::link_model(const Scenario& s, const Profile& profile) {
  const coll::AlphaBeta intra = path_alpha_beta(Duration{0}, Duration{0}, s.topology.regions[0].nic_rate,
                                                predicted_packet_bytes(s.transport.config.mtu_bytes));
  return coll::LinkModel::two_level(2, intra, alpha_beta(s, profile));
}

void RealTimeRun::absorb(std::uint32_t side, std::vector<nlohmann::json> msgs) {
  std::sort(msgs.begin(), msgs.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return a.value("at_ns", std::int64_t{0}) < b.value("at_ns", std::int64_t{0});
  });
  for (const nlohmann::json& m : msgs) {
    if (const std::optional<control::Delivered> d = control::parse_delivered(m)) {
      const Instant at = std::max(at_ns(d->at_ns), loop_.now());
      loop_.run_until(at);
      if (LiveFlows::owns(d->msg)) {
        flows_.delivered(d->msg, at_ns(d->at_ns));  // when it arrived, not when it was read
      } else if (!driver_.settled()) {
        driver_.delivered(d->msg, at);
      }
    } else if (control::is_stats(m)) {
      stats_.at(side) = m;
      series_.add(side, m, rt_.now());
      timeline_[side] << timeline_line(m, rt_.now()) << "\n";
    }
  }
}

bool RealTimeRun::endpoints_lost(Instant now) {
  bool lost = false;
  for (std::uint32_t side = 0; side < 2; ++side) {
    Child& e = *td_.endpoints[side];
    if (ch_[side]->closed() || !e.running()) {
      e.wait_for(Duration{1'000'000'000});
      faults_.push_back(e.name() + " (pid " + std::to_string(e.pid()) + ", netns " + c_.sides[side].netns +
                        ") " + e.how_it_ended() + " " + seconds(now - kEpoch) + " into the run");
      lost = true;
    }
  }
  return lost;
}

// A dead emulator is a fault; restarted while restarts are left (the endpoints' transport
// retransmits what it held). True when the run cannot go on.
bool RealTimeRun::emulator_lost(Instant now) {
  if (td_.emu->running()) {
    return false;
  }
  std::string fault = "emu (pid " + std::to_string(td_.emu->pid()) + ") " + td_.emu->how_it_ended() + " " +
                      seconds(now - kEpoch) + " into the run";
  bool lost = true;
  if (restarts_left_ > 0) {
    --restarts_left_;
    try {
      std::unique_ptr<Child> next = emu_.start();  // the dead one stays td_.emu if this throws
      td_.past_emus.push_back(std::move(td_.emu));
      td_.emu = std::move(next);
      fault += "; restarted (pid " + std::to_string(td_.emu->pid()) + ")";
      restart_ = Restart{now, faults_.size(), kEpoch};
      td_.probe.reset();
      std::cerr << "live: " << fault << "\n";
      lost = false;
    } catch (const EnvironmentError& e) {
      fault += "; could not restart it: " + std::string(e.what());
    }
  }
  faults_.push_back(fault);
  return lost;
}

// A ping across the restarted emulator every 200 ms: when is it forwarding again?
void RealTimeRun::probe_restarted_emulator() {
  if (!restart_) {
    return;
  }
  if (td_.probe && !td_.probe->running() && td_.probe->exited_ok()) {
    faults_[restart_->fault] +=
        ", forwarding again " + seconds(rt_.now() - restart_->died) + " after it died";
    restart_.reset();
    td_.probe.reset();
  } else if ((!td_.probe || !td_.probe->running()) && rt_.now() >= restart_->next_probe) {
    restart_->next_probe = rt_.now() + Duration{200'000'000};
    td_.probe = std::make_unique<Child>("ping", ping_across(c_), "/dev/null", "/dev/null");
  }
}

Instant RealTimeRun::run() {
  const bool flows_only = !workload_kind(c_.scenario.workload.kind).iterations;
  const Instant limit = kEpoch + c_.scenario.workload.duration;
  loop_.run_until(
      rt_.now());  // the run starts now, not at the epoch: the endpoints took a while to get ready
  driver_.start(loop_.now());
  flows_.start(loop_.now());
  if (steering_.active() && emu_control_) {
    next_steer_ = loop_.now() + steering_.interval();
  }
  while (flows_only || !driver_.settled()) {
    const Instant now = std::max(rt_.now(), loop_.now());
    if (now > limit) {
      break;
    }
    if (g_interrupted != 0) {
      faults_.push_back("the run was interrupted by " + signal_text(g_interrupted) + " " +
                        seconds(now - kEpoch) + " into the run");
      break;
    }
    loop_.run_until(now);
    links_.poll(now);
    for (std::uint32_t side = 0; side < 2; ++side) {
      absorb(side, ch_[side]->receive());
    }
    const bool lost = endpoints_lost(now);
    if (emulator_lost(now) || lost) {
      break;
    }
    probe_restarted_emulator();
    apply_phases(now);
    steer(now);
    const Instant next = std::min({loop_.next_event_time(), next_steer_,
                                   next_phase_ < phases_.size() ? kEpoch + phases_[next_phase_].at : kNever});
    const std::int64_t wait_ms =
        next == kNever ? 10 : std::clamp<std::int64_t>((ns_of(next) - ns_of(rt_.now())) / 1'000'000, 0, 10);
    std::array<pollfd, 2> fds{pollfd{ch_[0]->fd(), POLLIN, 0}, pollfd{ch_[1]->fd(), POLLIN, 0}};
    (void)::poll(fds.data(), fds.size(), static_cast<int>(wait_ms));
  }
  const Instant stop = std::max(rt_.now(), loop_.now());
  if (restart_ && td_.emu->running()) {
    faults_[restart_->fault] += ", not seen forwarding again by the end of the run";
  }
  td_.probe.reset();
  links_.poll(stop + Duration{50'000'000});  // a port still down at the end
  for (std::string& f : links_.faults(stop)) {
    faults_.push_back(std::move(f));
  }
  if (!driver_.done() && faults_.empty()) {
    faults_.push_back("the workload did not finish within workload.duration (" +
                      seconds(c_.scenario.workload.duration) + ")");
  }
  return stop;
}

void RealTimeRun::apply_phases(Instant now) {
  while (emu_control_ && next_phase_ < phases_.size() && now >= kEpoch + phases_[next_phase_].at) {
    const TimedProfile& ph = phases_[next_phase_++];
    try {
      emu_control_->apply(profile_to_json(ph.profile));
      std::cerr << "live: phase \"" << ph.name << "\" applied " << seconds(rt_.now() - kEpoch)
                << " into the run\n";
    } catch (const EnvironmentError& e) {
      faults_.push_back("phase \"" + ph.name + "\" not applied: " + std::string(e.what()));
    }
  }
}

void RealTimeRun::steer(Instant now) {
  if (now < next_steer_) {
    return;
  }
  next_steer_ = std::max(next_steer_ + steering_.interval(), now + Duration{1'000'000});
  nlohmann::json counters;
  try {
    counters = emu_control_->stats();
  } catch (const EnvironmentError& e) {
    if (!restart_ && !steer_failed_) {  // a restarting emulator is a fault of its own; one fault is enough
      steer_failed_ = true;
      faults_.push_back(std::string("path steering: ") + e.what() + " " + seconds(now - kEpoch) +
                        " into the run");
    }
    return;
  }
  for (const LiveSteering::Move& m : steering_.tick(now, std::move(counters), stats_)) {
    ch_[m.side]->send(control::Path{m.qp, m.path, ns_of(m.lag)}.to_json());
  }
}

// "stop" to the endpoints still alive, their final stats, and their exit.
void RealTimeRun::stop_endpoints() {
  for (std::uint32_t side = 0; side < 2; ++side) {
    if (!td_.endpoints[side]->running() || ch_[side]->closed()) {
      continue;
    }
    ch_[side]->send(control::Stop{}.to_json());
    const std::int64_t end = endpoints::monotonic_ns() + 5'000'000'000;
    bool final = false;
    while (!final && endpoints::monotonic_ns() < end && !ch_[side]->closed()) {
      for (const nlohmann::json& m : ch_[side]->receive()) {
        if (control::is_stats(m)) {
          stats_.at(side) = m;
          final = m.value("final", false);
        }
      }
      pollfd p{ch_[side]->fd(), POLLIN, 0};
      (void)::poll(&p, 1, 50);
    }
    if (!td_.endpoints[side]->wait_for(Duration{5'000'000'000})) {
      faults_.push_back(td_.endpoints[side]->name() + " did not exit after stop");
    }
  }
}

}  // namespace gw
