// The loop every live endpoint process runs (`gradwall endpoint` for the udp and dpdk kinds,
// `gradwall endpoint-tcp` for the kernel TCP baselines): orders in from the coordinator,
// deliveries and stats out, until "stop" (docs/guide/live.md "How it runs").
#pragma once

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/time.h"
#include "harness/cli/cli.h"
#include "harness/live/control_messages.h"
#include "harness/live/endpoints/clock.h"
#include "harness/live/endpoints/line_channel.h"

namespace gw {

// Says hello to the coordinator and waits for its Start: the run's clock. `name` names the
// process in the error (EnvironmentError when no Start comes within 30 s).
inline endpoints::RunTime greet_coordinator(endpoints::LineChannel& ch, std::uint32_t side, std::int64_t pid,
                                            const std::string& name) {
  ch.send(control::Hello{side, pid}.to_json());
  const auto line = ch.receive_one(Duration{30'000'000'000});
  const std::optional<control::Start> start = line ? control::parse_start(*line) : std::nullopt;
  if (!start) {
    throw EnvironmentError(name + ": no start message from the coordinator");
  }
  return endpoints::RunTime(start->epoch_ns);
}

// `stats(final)` gives the endpoint's stats message; `wait(now, next_stats)` sleeps until the
// endpoint has work, a message may have come in, or next_stats. `name` names the process in
// messages. Stats go out at `stats_interval`, kept within 10 ms to 1 s (the live time series,
// live_series.h). Returns the process's exit code.
template <class Endpoint, class Stats, class Wait>
int serve_endpoint(Endpoint& ep, endpoints::LineChannel& ch, const endpoints::RunTime& rt, std::uint32_t side,
                   Duration stats_interval, const std::string& name, Stats&& stats, Wait&& wait) {
  ch.send(control::Ready{static_cast<std::uint32_t>(ep.port())}.to_json());
  stats_interval = std::clamp(stats_interval, Duration{10'000'000}, Duration{1'000'000'000});
  Instant next_stats = rt.now() + stats_interval;
  bool stopping = false;
  while (!stopping) {
    Instant now = rt.now();
    for (const nlohmann::json& m : ch.receive()) {
      if (const std::optional<control::Send> send = control::parse_send(m)) {
        if (!send->cc.empty()) {
          ep.set_controller(send->qp, send->cc, send->cc_params);
        }
        if constexpr (requires { ep.move(send->qp, send->path, Duration{0}, now); }) {
          ep.post(send->qp, send->peer, send->msg, send->bytes, now, send->path);
        } else {  // a kernel TCP baseline: no paths (check_live_scenario)
          ep.post(send->qp, send->peer, send->msg, send->bytes, now);
        }
      } else if (const std::optional<control::Path> path = control::parse_path(m)) {
        if constexpr (requires { ep.move(path->qp, path->path, Duration{0}, now); }) {
          (void)ep.move(path->qp, path->path, Duration{path->lag_ns}, now);
        }
      } else if (control::is_stop(m)) {
        stopping = true;
      }
    }
    if (ch.closed()) {
      std::cerr << "gradwall " << name << " (side " << side << "): the coordinator went away; stopping\n";
      return kExitEnvironment;
    }
    ep.poll(now);
    for (const auto& d : ep.take_deliveries()) {
      ch.send(control::Delivered{d.qp, d.msg_id, d.bytes, ns_of(d.posted), ns_of(d.completed)}.to_json());
    }
    now = rt.now();
    if (now >= next_stats) {
      nlohmann::json m = stats(false);
      m["at_ns"] = ns_of(now);  // when sampled
      ch.send(m);
      next_stats = now + stats_interval;
    }
    if (!stopping) {
      wait(now, next_stats);
    }
  }
  if constexpr (requires { ep.drain(rt.now()); }) {
    ep.drain(rt.now());  // what is still in the port's ring is received, not counted as lost
  }
  ch.send(stats(true));
  return kExitOk;
}

}  // namespace gw
