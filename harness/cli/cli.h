// The `gradwall` command line. Exit codes (docs/architecture.md "CLI contract"): 0 ok / pass,
// 1 check failed, 2 bad input, 3 environment or runtime failure.
#pragma once

namespace gw {

inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitEnvironment = 3;

int cli_main(int argc, char** argv);

}  // namespace gw
