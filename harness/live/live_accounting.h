// A live run's result from what its processes counted: the endpoints' datagrams and queue
// pairs, the emulator's hops over all its lifetimes, and what the hosts dropped, balanced as
// received = sent + dropped by cause + in flight (docs/guide/live.md "Every datagram accounted for").
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/histogram.h"
#include "harness/run/sim_result.h"

namespace gw {

// A histogram from endpoints' microsecond bins ([[us, count], ...]) under `key` of their final
// stats messages, each value at the middle of its microsecond.
LogHistogram histogram_of(const std::array<nlohmann::json, 2>& stats, const char* key);
nlohmann::json percentiles_of(const Percentiles& p);

// Endpoint and emulator counters into the result's transport totals, hops and accounting.
// `tcp`: kernel TCP endpoints, whose drops are shown per hop but not booked (TCP resends
// them; the bytes are balanced instead). `host_counters`: the bench's veth counters are the
// run's (not --ports). `emulator_died`: what is unaccounted for was lost with it.
void fill_counters(const std::array<nlohmann::json, 2>& stats, const nlohmann::json& emu_stats,
                   const nlohmann::json& host_delta, const std::array<std::string, 2>& regions, bool tcp,
                   bool host_counters, bool emulator_died, SimResult& r);

// The emulator's counts over all its lifetimes, one --stats-json file each (the first
// emu-stats.json): summed per direction when it was restarted.
nlohmann::json emulator_stats(const std::vector<std::filesystem::path>& files);

}  // namespace gw
