#!/usr/bin/env bash
# cli.soak: the soaks of ci/bench, shortened to a CI budget (issue 14):
#  - ci/bench/soak-sim --seconds 2: a simulated run's peak memory does not grow with simulated
#    time (2 s against 8 s of two bulk flows over the cross-continent WAN: at most 10 % + 2 MiB);
#  - ci/bench/soak-emu --duration 120: `gradwall emu` with the full WAN profile on two net_null
#    ports under full load for 2 minutes: RSS flat after the first fifth (2 % + 4 MiB), exit 0
#    (accounting balanced in each direction), every mbuf back in the pool, frames sent in
#    every stats period. Under ASan (the asan preset) 40 s: that run is for memory errors over a
#    long run, and ASan's quarantine (freed blocks it holds back to catch use after free) makes
#    RSS a weaker check there.
# docs/benchmarks.md has the long runs (60 s simulated; an hour of emu). The emulator part
# needs root (DPDK); skipped without. Labels: cli;root.
# Usage: soak.sh GRADWALL SOURCE_DIR
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

run "$SRC/ci/bench/soak-sim" --gradwall "$GW" --seconds 2
echo "$out"
((rc == 0)) || fail "soak-sim: exit $rc: ${out: -300} ${err: -300}"

if [[ $(id -u) -ne 0 ]]; then
  echo "SKIP: the emulator soak needs root (DPDK)"
else
  duration=120
  ldd "$GW" | grep -q libasan && duration=40
  run "$SRC/ci/bench/soak-emu" --gradwall "$GW" --duration "$duration"
  echo "$out" | tail -8
  ((rc == 0)) || fail "soak-emu: exit $rc: ${out: -500} ${err: -300}"
fi
finish
