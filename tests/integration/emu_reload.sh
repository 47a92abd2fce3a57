#!/usr/bin/env bash
# cli.emu_reload: SIGHUP makes `gradwall emu` re-read its profile file mid-run.
# Profile 10 ms one-way (given for a_to_b; b_to_a takes the same when omitted: RTT 20 ms),
# then the file is rewritten to 30 ms (RTT 60 ms) and SIGHUP sent while a ping stream crosses. Then a bad file (p = 1.5) and SIGHUP: rejected with the reason on
# stderr, 30 ms keeps running. Checks:
#   - median ping RTT before in [20, 25] ms, after in [60, 65] ms, after the bad reload still
#     in [60, 65] (twice the configured delay is the floor; the bench adds ~0.1 ms, 5 ms of
#     slack covers a loaded 2-vCPU machine; 20 vs 60 cannot be confused);
#   - the ping stream across the switch loses nothing (no packet in flight is lost by the
#     reconfiguration), and the exit stats balance with nothing dropped at all;
#   - stderr names the rejected file's problem ($.a_to_b.loss.p).
# Needs root (namespaces, af_packet); skipped with exit 0 otherwise. Labels: cli;root.
# Usage: emu_reload.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

# shellcheck source=lib/emu.bash
source "$SRC/tests/integration/lib/emu.bash" # common.bash has cd-ed to $TMP

profile() {
  printf '{"gradwall": "profile/v1", "name": "%s", "a_to_b": {"delay": {"delay_ms": %s}}}\n' "$1" "$2"
}

# rtt LO HI LABEL: 15 pings; their median RTT must be in [LO, HI] ms. The median, not the
# mean: on a loaded 2-vCPU machine a few pings wait for a CPU for tens of ms.
rtt() {
  run ip netns exec gw-a ping -c 15 -i 0.1 198.18.0.2
  local median
  median=$("$PY" -c 'import re, statistics, sys; t = [float(x) for x in re.findall(r"time=([0-9.]+) ms", sys.stdin.read())]; print(statistics.median(t) if t else "")' <<<"$out")
  echo "$3: median ${median:-?} ms; $(tail -n 1 <<<"$out")"
  if [[ -z $median ]] || ! "$PY" -c "import sys; sys.exit(0 if $1 <= $median <= $2 else 1)"; then
    fail "$3: median RTT ${median:-?} ms, want [$1, $2]"
  fi
}

# wait_stderr PATTERN: until emu.err has it (~5 s).
wait_stderr() {
  for _ in $(seq 1 50); do
    grep -q "$1" emu.err && return 0
    sleep 0.1
  done
  return 1
}

profile d10 10 >p.json
emu_start p.json 30
if ! emu_wait_forwarding; then
  fail "gradwall emu did not forward within ~10 s; its stderr: $(<emu.err)"
  finish
fi
rtt 20 25 "10 ms"

ip netns exec gw-a ping -c 60 -i 0.05 198.18.0.2 >across.txt 2>&1 &
across=$!
sleep 1
profile d30 30 >p.json
kill -HUP "$EMU_PID"
wait_stderr "SIGHUP: profile d30" || fail "no SIGHUP acknowledgement on stderr: $(<emu.err)"
wait "$across" || true
echo "across the switch: $(grep 'packet loss' across.txt)"
grep -q ' 0% packet loss' across.txt || fail "pings lost across the profile change: $(tail -n 2 across.txt)"
sleep 0.2
rtt 60 65 "30 ms after SIGHUP"

printf '{"gradwall": "profile/v1", "name": "bad", "a_to_b": {"loss": {"p": 1.5}}}\n' >p.json
kill -HUP "$EMU_PID"
wait_stderr "profile rejected" || fail "the bad profile was not reported as rejected: $(<emu.err)"
grep "profile rejected" emu.err
grep -q 'profile rejected.*a_to_b.loss.p' emu.err || fail "the rejection should name \$.a_to_b.loss.p"
rtt 60 65 "30 ms after the bad SIGHUP"

emu_stop
emu_check_stats s.json 90
run "$PY" -c 'import json,sys; s=json.load(open("s.json")); print(s["profile"], s["a_to_b"]["dropped_total"] + s["b_to_a"]["dropped_total"])'
[[ $out == "d30 0" ]] || fail "want profile d30 and nothing dropped at exit, got: $out"

finish
