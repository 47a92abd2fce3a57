// The control protocol between a live run's coordinator (live_coordinator.h) and its endpoints
// (`gradwall endpoint`, `gradwall endpoint-tcp`; endpoint_loop.h): one JSON object per line on
// a filesystem-path unix socket (harness/live/endpoints/line_channel.h), its kind in "t".
//   coordinator -> endpoint  Start (the run's epoch), Send (a message to post), Path (a QP
//                            moves to another path), Stop
//   endpoint -> coordinator  Hello (side, pid), Ready (its UDP or TCP port), Delivered (a
//                            message arrived whole), stats (free-form: the endpoint's counters
//                            and queue pairs, every series interval and last; only the last,
//                            "final": true, carries the one-way delay histograms)
// Each typed message converts to its JSON line and is read back from one with `parse_*`, which
// returns nullopt for a line of another kind and throws nlohmann::json's exceptions for one of
// this kind with a missing or mistyped field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "generators/cc/congestion_control.h"

namespace gw::control {

// The kind of a control line ("" when it has none).
inline std::string kind_of(const nlohmann::json& m) {
  return m.is_object() ? m.value("t", "") : "";
}

struct Hello {
  std::uint32_t side = 0;
  std::int64_t pid = 0;
  nlohmann::json to_json() const { return {{"t", "hello"}, {"side", side}, {"pid", pid}}; }
};
inline std::optional<Hello> parse_hello(const nlohmann::json& m) {
  if (kind_of(m) != "hello") {
    return std::nullopt;
  }
  return Hello{m.at("side").get<std::uint32_t>(), m.value("pid", std::int64_t{0})};
}

struct Start {
  std::int64_t epoch_ns = 0;  // CLOCK_MONOTONIC of run time 0
  nlohmann::json to_json() const { return {{"t", "start"}, {"epoch_ns", epoch_ns}}; }
};
inline std::optional<Start> parse_start(const nlohmann::json& m) {
  if (kind_of(m) != "start") {
    return std::nullopt;
  }
  return Start{m.at("epoch_ns").get<std::int64_t>()};
}

struct Ready {
  std::uint32_t port = 0;
  nlohmann::json to_json() const { return {{"t", "ready"}, {"port", port}}; }
};
inline std::optional<Ready> parse_ready(const nlohmann::json& m) {
  if (kind_of(m) != "ready") {
    return std::nullopt;
  }
  return Ready{m.value("port", std::uint32_t{0})};
}

// Post message `msg` of `bytes` on sending QP `qp` toward `peer` (an IPv4 address). `cc` and
// `cc_params`, when set, are the controller the QP opens with instead of the endpoint's (a
// scenario flow's own; sent with the flow's first message, ignored once the QP is open);
// `path`, when not -1, the path it opens on (docs/steering.md "Live").
struct Send {
  std::uint32_t qp = 0;
  std::string peer;
  std::uint64_t msg = 0;
  std::uint64_t bytes = 0;
  std::string cc;
  cc::CcParams cc_params;
  std::int32_t path = -1;
  nlohmann::json to_json() const {
    nlohmann::json j = {{"t", "send"}, {"qp", qp}, {"peer", peer}, {"msg", msg}, {"bytes", bytes}};
    if (path >= 0) {
      j["path"] = path;
    }
    if (!cc.empty()) {
      j["cc"] = cc;
    }
    if (!cc_params.empty()) {
      j["cc_params"] = cc_params;
    }
    return j;
  }
};
inline std::optional<Send> parse_send(const nlohmann::json& m) {
  if (kind_of(m) != "send") {
    return std::nullopt;
  }
  Send s{m.at("qp").get<std::uint32_t>(),
         m.at("peer").get<std::string>(),
         m.at("msg").get<std::uint64_t>(),
         m.at("bytes").get<std::uint64_t>(),
         m.value("cc", ""),
         {},
         m.value("path", std::int32_t{-1})};
  if (m.contains("cc_params")) {
    s.cc_params = m.at("cc_params").get<cc::CcParams>();
  }
  return s;
}

// The path controller moved sending QP `qp` to path `path`; its packets on the old path lag the
// new one's by about `lag_ns` (QueuePair::path_changed).
struct Path {
  std::uint32_t qp = 0;
  std::int32_t path = 0;
  std::int64_t lag_ns = 0;
  nlohmann::json to_json() const { return {{"t", "path"}, {"qp", qp}, {"path", path}, {"lag_ns", lag_ns}}; }
};
inline std::optional<Path> parse_path(const nlohmann::json& m) {
  if (kind_of(m) != "path") {
    return std::nullopt;
  }
  return Path{m.at("qp").get<std::uint32_t>(), m.at("path").get<std::int32_t>(),
              m.value("lag_ns", std::int64_t{0})};
}

struct Stop {
  nlohmann::json to_json() const { return {{"t", "stop"}}; }
};
inline bool is_stop(const nlohmann::json& m) {
  return kind_of(m) == "stop";
}

// Message `msg` arrived whole at receiving QP `qp`: posted and arrived in run time (ns).
struct Delivered {
  std::uint32_t qp = 0;
  std::uint64_t msg = 0;
  std::uint64_t bytes = 0;
  std::int64_t posted_ns = 0;
  std::int64_t at_ns = 0;
  nlohmann::json to_json() const {
    return {{"t", "delivered"},       {"qp", qp},      {"msg", msg}, {"bytes", bytes},
            {"posted_ns", posted_ns}, {"at_ns", at_ns}};
  }
};
inline std::optional<Delivered> parse_delivered(const nlohmann::json& m) {
  if (kind_of(m) != "delivered") {
    return std::nullopt;
  }
  return Delivered{m.value("qp", std::uint32_t{0}), m.at("msg").get<std::uint64_t>(),
                   m.value("bytes", std::uint64_t{0}), m.value("posted_ns", std::int64_t{0}),
                   m.at("at_ns").get<std::int64_t>()};
}

inline bool is_stats(const nlohmann::json& m) {
  return kind_of(m) == "stats";
}

}  // namespace gw::control
