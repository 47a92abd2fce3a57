// One function per `gradwall` command. Each takes the arguments after the command words and
// returns the exit code; errors of the user's input are thrown as InputError and turned into
// exit code 2 by cli_main.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gw {

using Args = std::vector<std::string>;

int cmd_profile_validate(const Args& args);
int cmd_profile_from_netem(const Args& args);
int cmd_profile_to_netem(const Args& args);
int cmd_profile_probe(const Args& args);
int cmd_replay(const Args& args);
int cmd_emu(const Args& args);
int cmd_run(const Args& args);
int cmd_compare(const Args& args);
int cmd_sweep(const Args& args);
int cmd_advise(const Args& args);
int cmd_train(const Args& args);
int cmd_endpoint(const Args& args);      // hidden: started by run --mode live
int cmd_endpoint_tcp(const Args& args);  // hidden: started by run --mode live --baselines

// What `emu`, `endpoint` and live runs say in a build without the data plane (GW_SIM_ONLY).
std::string sim_only_message();

// A --seed value: decimal digits only (so "-1" is an error, not 2^64 - 1).
std::uint64_t parse_seed_option(const std::string& text);

// Where the default profile lives (profiles/wan/cross-continent.json), found the same way as
// the distribution tables (data_search_dirs).
std::string default_profile_path();

}  // namespace gw
