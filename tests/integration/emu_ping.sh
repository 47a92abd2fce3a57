#!/usr/bin/env bash
# cli.emu_ping: `gradwall emu` on the namespace bench (ci/bench-netns) with a 20 ms one-way
# constant delay. Checks: ping from gw-a to gw-b averages an RTT in [40, 45] ms with 0 % loss,
# emu exits 0 by itself after --duration, and its --stats-json balances in each direction
# (received + duplicates = sent + dropped + held) with every mbuf back in the pool.
# RTT tolerance: 2 x 20 ms is the configured floor; through a bare DPDK forwarder the bench
# adds ~0.1 ms (docs/bench-machine.md: kernel, af_packet, polling), so 45 ms leaves 5 ms for a loaded
# 2-vCPU machine while still catching a delay applied twice or not at all.
# Never early: the minimum RTT is >= 40 ms exactly (no tolerance: the bench only adds time) and
# the loop released ahead at least once (lcores[].ahead: the engine advanced to a release
# before it was due, then the lcore waited for it; forwarder.cc, release_ahead), so a release
# sent before its time would show here.
# Needs root (namespaces, af_packet); skipped with exit 0 otherwise. Labels: cli;root.
# Usage: emu_ping.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

# shellcheck source=lib/emu.bash
source "$SRC/tests/integration/lib/emu.bash" # common.bash has cd-ed to $TMP

cat >p.json <<'JSON'
{"gradwall": "profile/v1", "name": "d20", "a_to_b": {"delay": {"delay_ms": 20}}}
JSON

emu_start p.json 15
if ! emu_wait_forwarding; then
  fail "gradwall emu did not forward within ~10 s; its stderr: $(<emu.err)"
  finish
fi

run ip netns exec gw-a ping -c 20 -i 0.2 198.18.0.2
echo "$out" | tail -2
loss=$(sed -n 's/.* \([0-9.]*\)% packet loss.*/\1/p' <<<"$out")
avg=$(sed -n 's|^rtt min/avg/max/mdev = [0-9.]*/\([0-9.]*\)/.*|\1|p' <<<"$out")
min=$(sed -n 's|^rtt min/avg/max/mdev = \([0-9.]*\)/.*|\1|p' <<<"$out")
[[ $loss == 0 ]] || fail "ping lost ${loss:-?} % (want 0): $out"
if [[ -z $avg ]] || ! "$PY" -c "import sys; sys.exit(0 if 40 <= $avg <= 45 else 1)"; then
  fail "average RTT ${avg:-?} ms, want [40, 45] (2 x 20 ms + bench overhead)"
fi

if [[ -z $min ]] || ! "$PY" -c "import sys; sys.exit(0 if $min >= 40 else 1)"; then
  fail "minimum RTT ${min:-?} ms, want >= 40 (2 x 20 ms: a frame left before its release)"
fi

emu_wait_exit
emu_check_stats s.json 20
ahead=$("$PY" -c 'import json, sys; print(sum(l.get("ahead", 0) for l in json.load(open(sys.argv[1]))["lcores"]))' s.json)
echo "releases sent ahead: $ahead"
((ahead >= 1)) || fail "no release was sent ahead (lcores[].ahead = $ahead): the never-early check saw none"

finish
