// The loop every live endpoint process runs (`gradwall endpoint` for the udp and dpdk kinds,
// `gradwall endpoint-tcp` for the kernel TCP baselines): orders in from the coordinator,
// deliveries and stats out, until "stop" (docs/guide/live.md "How it runs").
#pragma once

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/time.h"
#include "generators/endpoints/clock.h"
#include "generators/endpoints/line_channel.h"
#include "harness/cli/cli.h"

namespace gw {

// `stats(final)` gives the endpoint's stats message; `wait(now, next_stats)` sleeps until the
// endpoint has work, a message may have come in, or next_stats. `name` names the process in
// messages. Stats go out at `stats_interval`, kept within 10 ms to 1 s (the live time series,
// live_series.h). Returns the process's exit code.
template <class Endpoint, class Stats, class Wait>
int serve_endpoint(Endpoint& ep, endpoints::LineChannel& ch, const endpoints::RunTime& rt, std::uint32_t side,
                   Duration stats_interval, const std::string& name, Stats&& stats, Wait&& wait) {
  ch.send({{"t", "ready"}, {"port", ep.port()}});
  stats_interval = std::clamp(stats_interval, Duration{10'000'000}, Duration{1'000'000'000});
  Instant next_stats = rt.now() + stats_interval;
  bool stopping = false;
  while (!stopping) {
    Instant now = rt.now();
    for (const nlohmann::json& m : ch.receive()) {
      const std::string t = m.value("t", "");
      if (t == "send") {
        ep.post(m.at("qp").get<std::uint32_t>(), m.at("peer").get<std::string>(),
                m.at("msg").get<std::uint64_t>(), m.at("bytes").get<std::uint64_t>(), now);
      } else if (t == "stop") {
        stopping = true;
      }
    }
    if (ch.closed()) {
      std::cerr << "gradwall " << name << " (side " << side << "): the coordinator went away; stopping\n";
      return kExitEnvironment;
    }
    ep.poll(now);
    for (const auto& d : ep.take_deliveries()) {
      ch.send({{"t", "delivered"},
               {"qp", d.qp},
               {"msg", d.msg_id},
               {"bytes", d.bytes},
               {"posted_ns", ns_of(d.posted)},
               {"at_ns", ns_of(d.completed)}});
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
