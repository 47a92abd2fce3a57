#!/usr/bin/env bash
# cli.emu_interval: `gradwall emu --stats-interval 0.5 --busy-poll` on the namespace bench.
# Checks: while it runs, --stats-json is rewritten with the live counters ("final": false)
# and they grow as pings cross; stderr gets one line per interval (at least 4 in 3 s: 6 are
# due, 2 of slack for a loaded machine); at exit the file holds the final counters
# ("final": true, balanced). Then the old spelling --idle-sleep-us 0 (busy poll) still runs.
# Needs root (namespaces, af_packet); skipped with exit 0 otherwise. Labels: cli;root.
# Usage: emu_interval.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

# shellcheck source=lib/emu.bash
source "$SRC/tests/integration/lib/emu.bash" # common.bash has cd-ed to $TMP

cat >p.json <<'JSON'
{"gradwall": "profile/v1", "name": "d2", "a_to_b": {"delay": {"delay_ms": 2}}}
JSON

received() { "$PY" -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["a_to_b"]["received"], s["final"])' "$1"; }

emu_start p.json 6 --stats-interval 0.5 --busy-poll
if ! emu_wait_forwarding; then
  fail "gradwall emu did not forward within ~10 s; its stderr: $(<emu.err)"
  finish
fi
sleep 0.6
read -r first final1 < <(received s.json)
ip netns exec gw-a ping -q -c 10 -i 0.1 198.18.0.2 >/dev/null || fail "ping through the emulator failed"
sleep 1.1
read -r second final2 < <(received s.json)
echo "live a_to_b received: $first then $second (final: $final1, $final2)"
[[ $final1 == False && $final2 == False ]] || fail "live --stats-json should say final: false"
((second >= first + 10)) || fail "live counters did not grow by the 10 pings: $first -> $second"
emu_wait_exit
emu_check_stats s.json 10
lines=$(grep -c '^gradwall emu: [0-9]* s; a_to_b received' emu.err || true)
echo "interval lines on stderr: $lines"
((lines >= 4)) || fail "want >= 4 interval lines on stderr in ~3 s at 0.5 s, got $lines: $(<emu.err)"
[[ $(received s.json) == *True ]] || fail "the exit --stats-json should say final: true"

# The old option for busy polling still works.
emu_start p.json 3 --idle-sleep-us 0
emu_wait_forwarding || fail "with --idle-sleep-us 0 it did not forward; stderr: $(<emu.err)"
emu_wait_exit
emu_check_stats s.json 1

finish
